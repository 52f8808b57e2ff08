"""tandem.bn data sets, the BIF reader and forward sampling."""

import gzip
import hashlib
import re
import warnings
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import tandem
from tandem.bn import NETWORKS, Dataset, Network, load_network, read_bif
from tandem.bn.network import PURPOSE_SAMPLE

# -- Dataset.from_codes and Dataset.gaussian ----------------------------------------------


def test_from_codes():
    d = Dataset.from_codes([[0, 1], [2, 0], [1, 1]], [3, 2], names=["a", "b"])
    assert d.kind == "discrete" and d.shape == (3, 2) and len(d) == 3
    assert d.values.dtype == np.uint8 and d.values.flags.c_contiguous
    assert not d.values.flags.writeable
    assert d.arities == (3, 2) and d.states == ((0, 1, 2), (0, 1))
    assert d.names == ("a", "b") and d.codes is d.values
    assert Dataset.from_codes([[1, 299]], [2, 300]).values.dtype == np.int32
    assert Dataset.from_codes([[0, 1]], [2, 2]).names == ("X0", "X1")


@pytest.mark.parametrize("codes, arities, names, error, match", [
    ([[0.0, 1.0]], [2, 2], None, TypeError, "codes must be integers"),
    ([0, 1], [2, 2], None, ValueError, "two-dimensional"),
    (np.zeros((0, 2), int), [2, 2], None, ValueError, "at least one row"),
    ([[0, 1]], [2], None, ValueError, "arities has 1 entries for 2 columns"),
    ([[0, 1]], [2, 0], None, ValueError, r"arities\[1\] must be at least 1"),
    ([[0, 1]], [2, 2.0], None, TypeError, r"arities\[1\] must be an integer"),
    ([[0, 1], [0, 2]], [2, 2], ["a", "b"], ValueError, r"column 'b': code 2 at row 1"),
    ([[0, -1]], [2, 2], ["a", "b"], ValueError, r"column 'b': code -1 at row 0"),
    ([[0, 1]], [2, 2], ["a", "a"], ValueError, "'a' appears more than once"),
    ([[0, 1]], [2, 2], ["a"], ValueError, "names has 1 entries"),
    ([[0, 1]], [2, 2], "ab", TypeError, "not one string"),
])
def test_from_codes_errors(codes, arities, names, error, match):
    with pytest.raises(error, match=match):
        Dataset.from_codes(codes, arities, names)


def test_arity_one_warns():
    with pytest.warns(UserWarning, match="column 'c' is constant"):
        d = Dataset.from_codes([[0, 0], [1, 0]], [2, 1], names=["x", "c"])
    assert d.arities == (2, 1)


def test_gaussian():
    d = Dataset.gaussian(np.arange(6).reshape(3, 2), names=["u", "v"])
    assert d.kind == "gaussian" and d.values.dtype == np.float64
    assert d.arities is None and d.states is None
    with pytest.raises(TypeError, match="a Gaussian data set has no codes"):
        _ = d.codes
    x = np.ones((4, 2))
    x[:, 0] = [1, 2, 3, 4]
    with pytest.warns(UserWarning, match="column 'X1' is constant"):
        Dataset.gaussian(x)
    x[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"column 'X1' has a missing value \(NaN\) at row 2"):
        Dataset.gaussian(x)
    x[2, 1] = np.inf
    with pytest.raises(ValueError, match="column 'X1' has an infinite value at row 2"):
        Dataset.gaussian(x)
    with pytest.raises(TypeError, match="real numbers"):
        Dataset.gaussian([["a", "b"]])


# -- Dataset.from_dataframe -----------------------------------------------------------------


def test_from_dataframe_discrete():
    df = pd.DataFrame({
        "s": ["lo", "hi", "lo", "mid"],
        "i": [3, 1, 3, 2],
        "b": [True, False, True, True],
        "c": pd.Categorical(["y", "x", "y", "y"], categories=["z", "y", "x"]),
        "f": [1.0, 0.0, 1.0, 0.0],
    })
    d = Dataset.from_dataframe(df)
    assert d.kind == "discrete" and d.names == ("s", "i", "b", "c", "f")
    assert d.states == (("hi", "lo", "mid"), (1, 2, 3), (False, True), ("z", "y", "x"), (0, 1))
    assert d.arities == (3, 3, 2, 3, 2)
    assert d.values.tolist() == [[1, 2, 1, 1, 1], [0, 0, 0, 2, 0], [1, 2, 1, 1, 1],
                                 [2, 1, 1, 1, 0]]
    assert isinstance(d.states[4][0], int)
    back = d.to_dataframe()
    assert back["s"].tolist() == df["s"].tolist() and back["i"].tolist() == df["i"].tolist()
    assert Dataset.from_dataframe(back) == d


def test_from_dataframe_missing():
    df = pd.DataFrame({"a": ["x", "y", None, "x"], "b": [1.0, np.nan, 2.0, 1.0]},
                      index=["r0", "r1", "r2", "r3"])
    with pytest.raises(ValueError, match=r"column 'b' has a missing value at row 'r1'.*dropna"):
        Dataset.from_dataframe(df)
    with pytest.warns(UserWarning, match="is constant"):  # both columns, once dropped
        d = Dataset.from_dataframe(df, dropna=True)
    assert d.n_rows == 2 and d.n_dropped == 2
    assert d.states == (("x",), (1,))
    with pytest.raises(ValueError, match="every row has a missing value"):
        Dataset.from_dataframe(pd.DataFrame({"a": [None, "x"], "b": [1, None]}), dropna=True)


def test_from_dataframe_mixed_types():
    df = pd.DataFrame({"ok": [1, 2, 3], "bad": pd.Series(["a", "b", 7], dtype=object)})
    with pytest.raises(TypeError, match=r"column 'bad' mixes types: str at row 0, int at row 2"):
        Dataset.from_dataframe(df)
    with pytest.raises(TypeError, match="column 'bad' has a value of unsupported type tuple"):
        Dataset.from_dataframe(pd.DataFrame({"bad": pd.Series(["a", (1, 2)], dtype=object)}))


def test_from_dataframe_kind():
    rng = np.random.default_rng(0)
    g = pd.DataFrame({"u": rng.normal(size=5), "v": rng.normal(size=5)})
    d = Dataset.from_dataframe(g)
    assert d.kind == "gaussian" and np.array_equal(d.values, g.to_numpy())
    mixed = g.assign(w=["a", "b", "a", "b", "a"])
    with pytest.raises(TypeError, match="column 'u' holds real numbers, column 'w' does not"):
        Dataset.from_dataframe(mixed)
    with pytest.raises(TypeError, match="column 'w' is not numeric"):
        Dataset.from_dataframe(mixed, kind="gaussian")
    ints = pd.DataFrame({"a": [1, 2, 3], "b": [1.5, 2.5, 0.0]})
    assert Dataset.from_dataframe(ints, kind="gaussian").values[:, 0].tolist() == [1, 2, 3]
    assert Dataset.from_dataframe(ints, kind="discrete").states[1] == (0, 1.5, 2.5)
    with pytest.raises(ValueError, match="kind must be"):
        Dataset.from_dataframe(ints, kind="continuous")
    with pytest.raises(TypeError, match="df must be a pandas DataFrame"):
        Dataset.from_dataframe(ints.to_numpy())
    with pytest.raises(ValueError, match="'a' appears more than once"):
        Dataset.from_dataframe(pd.DataFrame([[1, 2]], columns=["a", "a"]))
    with pytest.raises(ValueError, match="no rows"):
        Dataset.from_dataframe(pd.DataFrame({"a": []}))


def test_from_dataframe_nullable_dtypes():
    df = pd.DataFrame({"i": pd.array([1, 2, None, 2], dtype="Int64"),
                       "b": pd.array([True, False, True, None], dtype="boolean"),
                       "c": pd.Categorical(["x", "y", "y", None])})
    with pytest.raises(ValueError, match="column 'i' has a missing value at row 2"):
        Dataset.from_dataframe(df)
    d = Dataset.from_dataframe(df.iloc[:2])
    assert d.states == ((1, 2), (False, True), ("x", "y"))
    assert d.values.tolist() == [[0, 1, 0], [1, 0, 1]]
    g = pd.DataFrame({"u": pd.array([0.5, 1.5, None], dtype="Float64"), "v": [1.25, 2.0, 3.0]})
    assert Dataset.from_dataframe(g, dropna=True).kind == "gaussian"


def test_from_dataframe_constant_column_warns():
    with pytest.warns(UserWarning, match="column 'k' is constant"):
        d = Dataset.from_dataframe(pd.DataFrame({"k": ["same"] * 3, "x": [0, 1, 0]}))
    assert d.arities == (1, 2)


# -- Dataset.from_csv ---------------------------------------------------------------------


def test_from_csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,c\nlo,1,0.5\nhi,2,1.5\nlo,NA,2.5\nhi,1,0.5\n")
    with pytest.raises(ValueError, match="column 'b' has a missing value at line 4"):
        Dataset.from_csv(path, kind="discrete")
    d = Dataset.from_csv(path, kind="discrete", dropna=True)
    assert d.states == (("hi", "lo"), (1, 2), (0.5, 1.5)) and d.n_dropped == 1
    assert d.values.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 0]]
    with pytest.raises(TypeError, match="cannot tell the kind"):
        Dataset.from_csv(path, dropna=True)
    # The same as pandas' reader on a clean file.
    clean = tmp_path / "clean.csv"
    clean.write_text("x,y,z\n1,a,3\n2,b,3\n1,b,4\n")
    assert Dataset.from_csv(clean) == Dataset.from_dataframe(pd.read_csv(clean))
    gauss = tmp_path / "g.csv"
    gauss.write_text("u;v\n0.5;1\n1.25;-2.5\n")
    g = Dataset.from_csv(gauss, delimiter=";")
    assert g.kind == "gaussian" and g.values.tolist() == [[0.5, 1.0], [1.25, -2.5]]
    ragged = tmp_path / "r.csv"
    ragged.write_text("x,y\n1,2\n3\n")
    with pytest.raises(ValueError, match="line 3 has 1 cells, the header has 2"):
        Dataset.from_csv(ragged)
    empty = tmp_path / "e.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="expected a header line"):
        Dataset.from_csv(empty)


def test_fingerprint():
    a = Dataset.from_codes([[0, 1], [1, 1]], [2, 2])
    b = Dataset.from_codes(np.array([[0, 1], [1, 1]], dtype=np.int64), [2, 2])
    c = Dataset.from_codes([[0, 1], [1, 0]], [2, 2])
    assert a.fingerprint == b.fingerprint != c.fingerprint
    assert re.fullmatch("[0-9a-f]{64}", a.fingerprint)
    assert Dataset.from_codes([[0, 1]], [2, 3]).fingerprint != Dataset.from_codes(
        [[0, 1]], [2, 2]).fingerprint


# -- BIF reader --------------------------------------------------------------------------


def _package_file(name):
    return resources.files("tandem.bn").joinpath("networks", name)


def test_shipped_networks_match_readme():
    readme = _package_file("README.md").read_text()
    assert "CC BY-SA 3.0" in readme and "bnlearn" in readme
    for name in NETWORKS:
        digest = hashlib.sha256(_package_file(f"{name}.bif.gz").read_bytes()).hexdigest()
        assert f"| {name} |" in readme and digest in readme


def test_load_network():
    asia = load_network("asia")
    assert asia.name == "asia" and asia.n_nodes == 8
    assert asia.names[:3] == ("asia", "tub", "smoke")
    assert asia.states[0] == ("yes", "no")
    either = asia.index("either")
    assert [asia.names[p] for p in asia.parents[either]] == ["lung", "tub"]
    assert asia.cpts[either].shape == (2, 2, 2)
    assert asia.cpts[either][1, 1].tolist() == [0.0, 1.0]  # lung=no, tub=no
    a = asia.adjacency()
    assert a.dtype == bool and a.sum() == 8 and a[asia.index("tub"), either]
    perm = asia.names[::-1]
    assert np.array_equal(asia.adjacency(perm), a[::-1, ::-1])
    assert ("lung", "either") in asia.edges
    with pytest.raises(ValueError, match="unknown network 'pigs'"):
        load_network("pigs")


@pytest.mark.parametrize("name", ["asia", "sachs", "child"])
def test_bif_matches_pgmpy(name):
    from pgmpy.readwrite import BIFReader

    text = gzip.decompress(_package_file(f"{name}.bif.gz").read_bytes()).decode()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = BIFReader(string=text).get_model()
    net = read_bif(text)
    assert set(net.names) == set(model.nodes())
    for i, node in enumerate(net.names):
        cpd = model.get_cpds(node)
        parents = [net.names[p] for p in net.parents[i]]
        assert list(cpd.variables[1:]) == parents
        assert tuple(cpd.state_names[node]) == net.states[i]
        for p in parents:
            assert tuple(cpd.state_names[p]) == net.states[net.index(p)]
        # pgmpy: (child state, parent configuration with the last parent fastest)
        ours = np.moveaxis(net.cpts[i], -1, 0).reshape(len(net.states[i]), -1)
        np.testing.assert_array_equal(ours, cpd.get_values())


def test_bif_forms_and_errors(tmp_path):
    text = """
    // a comment
    network "tiny" { property note; }
    variable A { type discrete [ 2 ] { a0, a1 }; property position = (1, 2); }
    variable B { type discrete [ 3 ] { b0 b1 b2 }; }
    variable "C/x" { type discrete [ 2 ] { c0, c1 }; }
    probability ( A ) { table 0.25, 0.75; }
    probability ( B | A ) { (a0) 0.1, 0.2, 0.7; default 0.5, 0.25, 0.25; }
    probability ( "C/x" | A, B ) { table 0.1 0.2 0.3 0.4 0.5 0.6 0.9 0.8 0.7 0.6 0.5 0.4; }
    """
    net = read_bif(text)
    assert net.name == "tiny" and net.names == ("A", "B", "C/x")
    assert net.states[1] == ("b0", "b1", "b2")
    assert net.cpts[1].tolist() == [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]
    # table: child state slowest, last parent fastest (pgmpy's reading)
    assert net.cpts[2][0, 0].tolist() == [0.1, 0.9] and net.cpts[2][1, 2].tolist() == [0.6, 0.4]
    path = tmp_path / "tiny.bif.gz"
    path.write_bytes(gzip.compress(text.encode()))
    again = read_bif(path)
    assert again.names == net.names and all(
        np.array_equal(x, y) for x, y in zip(again.cpts, net.cpts))

    head = "variable A { type discrete [ 2 ] { a0, a1 }; }\nvariable B { type discrete [ 2 ] { b0, b1 }; }\n"
    cases = [
        ("probability ( A ) { table 0.5, 0.6; }\nprobability ( B ) { table 0.5, 0.5; }",
         "line 3: a row of the CPT of 'A' sums to 1.1"),
        ("probability ( A | C ) { table 0.5, 0.5; }", "'C' is not a declared variable"),
        ("probability ( A ) { table 0.5, 0.5; }", r"no probability block for \['B'\]"),
        ("probability ( A | B ) { (b0) 0.5, 0.5; }\nprobability ( B ) { table 0.5, 0.5; }",
         "misses 1 parent configuration"),
        ("probability ( A | B ) { (b2) 0.5, 0.5; (b1) 0.5, 0.5; }", "'b2' is not a state of 'B'"),
        (("probability ( A | B ) { (b0) 0.5, 0.5; (b1) 0.5, 0.5; }\n"
         "probability ( B | A ) { (a0) 0.5, 0.5; (a1) 0.5, 0.5; }"), "directed cycle"),
        ("probability ( A ) { table 0.5, x; }\nprobability ( B ) { table 0.5, 0.5; }",
         "not a number"),
        ("probability ( A ) { table 0.5, 0.5; }\nprobability ( A ) { table 0.5, 0.5; }",
         "a second probability block for 'A'"),
    ]
    for body, match in cases:
        with pytest.raises(ValueError, match=match):
            read_bif(head + body)
    with pytest.raises(ValueError, match="declares 3 states and lists 2"):
        read_bif("variable A { type discrete [ 3 ] { a0, a1 }; }")


# -- forward sampling ----------------------------------------------------------------------


def exact_marginal(net, i):
    """P(node i) by summing the product of all CPTs (numpy.einsum), no sampling."""
    operands = []
    for j in range(net.n_nodes):
        operands += [net.cpts[j], [*net.parents[j], j]]
    return np.einsum(*operands, [i], optimize="greedy")


def test_sample_is_reproducible():
    net = load_network("child")
    root = tandem.Philox(2024)
    a = net.sample(300, root)
    b = net.sample(300, tandem.Philox(2024))
    assert a == b and a.fingerprint == b.fingerprint
    assert a.names == net.names and a.states == net.states and a.arities == net.arities
    prefix = net.sample(120, root)
    assert np.array_equal(prefix.values, a.values[:120])
    assert net.sample(300, root.split(1)) != a
    assert net.sample(300, 2024) == a  # an int is a Philox seed
    # node i's uniforms are stream.sub(PURPOSE_SAMPLE).split(i): recompute one node by hand
    i = net.order[0]
    u, _ = root.sub(PURPOSE_SAMPLE).split(i).random(300)
    cdf = np.cumsum(net.cpts[i])
    assert np.array_equal(a.values[:, i], np.searchsorted(cdf[:-1], u, side="right"))
    with pytest.raises(ValueError, match="n must be at least 1"):
        net.sample(0, root)
    with pytest.raises(TypeError, match="stream must be a tandem Stream"):
        net.sample(5, "seed")


@pytest.mark.parametrize("name, n", [("asia", 40000), ("child", 40000), ("alarm", 20000)])
def test_sample_marginals(name, n):
    # One chi-square test per node at level 1e-4: with at most 37 nodes, a
    # correct sampler fails this test with probability below 0.4 % per stream.
    # The stream is fixed, so the outcome is deterministic.
    net = load_network(name)
    data = net.sample(n, tandem.Philox(99))
    for i in range(net.n_nodes):
        p = exact_marginal(net, i)
        counts = np.bincount(data.values[:, i], minlength=len(p))
        assert counts[p == 0].sum() == 0
        keep = p > 0
        if keep.sum() < 2:
            continue
        _stat, pvalue = stats.chisquare(counts[keep], n * p[keep] / p[keep].sum())
        assert pvalue > 1e-4, (net.names[i], counts, n * p)


def test_sample_respects_zero_probabilities():
    # asia's "either" is a deterministic OR of lung and tub.
    net = load_network("asia")
    d = net.sample(5000, tandem.Philox(5)).values
    lung, tub, either = (net.index(v) for v in ("lung", "tub", "either"))
    yes = 0
    assert np.array_equal(d[:, either] == yes, (d[:, lung] == yes) | (d[:, tub] == yes))


def test_network_checks():
    with pytest.raises(ValueError, match="shape"):
        Network(("a",), (("x", "y"),), ((),), (np.array([1.0]),))
    with pytest.raises(ValueError, match="directed cycle"):
        Network(("a", "b"), (("x", "y"), ("x", "y")), ((1,), (0,)),
                (np.full((2, 2), 0.5), np.full((2, 2), 0.5)))
