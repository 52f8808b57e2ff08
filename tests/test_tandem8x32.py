"""tandem.Tandem against the tandem specification (Tandem8x32) and its conformance suite.

Pinned to facts nobody here wrote: the vectors of ``SPEC.md`` section 8 and
Appendix C, and the conformance fixtures and hashes of ``tandem-rng/spec``
(``tests/data/tandem_spec``, Apache License 2.0, copyright 2026 the tandem
authors; see its README).  Each behaviour of the spec's
``conformance/CHECKLIST.md`` has a test here, named after its section.
"""

import hashlib
import json
import pathlib

import numpy as np
import pytest

import tandem
from tandem.core import tandem8x32 as t8

DATA = pathlib.Path(__file__).parent / "data" / "tandem_spec"
K1234 = (1, 2, 3, 4)
U = np.uint64


def _fixture(name):
    return json.loads((DATA / name).read_text())


def _cases(name):
    return _fixture(name)["cases"]


def _hex(words):
    return [f"{int(w):08x}" for w in words]


def _key(case):
    return [int(k, 16) for k in case["key"]]


def _gen(case, start=None):
    return tandem.Tandem.from_key(_key(case), case["start"] if start is None else start,
                                  case["K"])


# -- SPEC.md section 8 ---------------------------------------------------------

def test_step_vectors():
    o_h = t8.step(*map(U, (1, 2, 3, 4, 5, 6, 7, 8)))
    assert _hex(o_h) == ["00000017", "00150007", "00000001", "00050008",
                         "9e377ca9", "0000e006", "02000007", "00001820"]
    assert _hex(t8.step(*map(U, [0] * 8))) == ["00000000"] * 4 + ["9e3779b9"] + ["00000000"] * 3


def test_seeding_function_vectors():
    k = tuple(map(U, K1234))
    assert _hex(t8.chunk_start(*k, U(0))) == ["472bef12", "c0977c66", "d330ac3a", "b11a020d",
                                              "bfa0b6ba", "ecdbc48e", "f1989116", "c2374d96"]
    assert _hex(t8.chunk_start(*k, U(1))) == ["b777c10c", "2f6b5a5d", "67a9ce03", "7de06a50",
                                              "d0c2dc4f", "e1e50e0f", "89efc72c", "6e82b062"]


def test_stream_and_draw_vectors():
    g = tandem.Tandem.from_key(K1234)
    words, _ = g.words(36)
    assert _hex(words[:8]) == ["0a5bcb90", "6dfe98bc", "9612198a", "ac115fd8",
                               "33f598d7", "b5c280ca", "7a8e7b99", "8c362290"]
    assert _hex(words[32:36]) == ["9da7bac0", "4aca79eb", "beb1f65a", "e2f0d5a1"]
    x, after = g.random(17)
    assert (x[0], x[16], after.position) == (0.4296660861094629, 0.2921520424112306, 1088)
    assert g.random(3, dtype=np.float32)[0][2] == np.float32(0.58621365)
    bools, _ = g.bits(129, dtype=bool)
    assert bools[:8].astype(int).tolist() == [0, 0, 0, 0, 1, 0, 0, 1] and bools[128]


def test_derived_key_vectors():
    g = tandem.Tandem.from_key(K1234, position=777)
    assert _hex(g.split(0).key) == ["e256e9a1", "5020f806", "3bd3f7dc", "5328763d"]
    assert _hex(g.split(1).key) == ["a9ea3f0b", "47f97af0", "d1844c53", "97e9cee2"]
    assert _hex(g.sub(7).key) == ["8048398f", "1678e814", "d8823983", "c4b1045c"]
    assert g.split(1).position == g.sub(7).position == 777  # the parent's position kept
    children, parent = tandem.Tandem.from_key(K1234).fork(1)
    assert _hex(children[0].key) == ["67fd37c5", "9dc0b8c6", "4e3bd55e", "af3f2216"]
    assert (children[0].position, parent.position) == (0, 128)


def test_seed_whitening_vectors():
    g = tandem.Tandem(42)
    assert _hex(g.key) == ["421d21eb", "32d31777", "62e7564b", "df2bdf82"]
    x, _ = g.random(17)
    assert (x[0], x[2], x[16]) == (0.9829130398628935, 0.47759300283385586, 0.9692135305890753)
    assert _hex(g.words(1)[0]) == ["05e80cec"]
    assert tandem.Tandem(2**128 - 1).key != tandem.Tandem(0).key
    # beyond the specification's seeds, as NumPy takes any size (docs/spec.md, Seeds)
    assert tandem.Tandem(2**128) == tandem.Tandem(np.random.SeedSequence(2**128))
    with pytest.raises(ValueError):
        tandem.Tandem(-1)


def test_fork_rules():
    g = tandem.Tandem.from_key(K1234, position=300)  # block 2
    kids, after = g.fork(3)
    assert after.position == 384 and all(k.position == 0 for k in kids)
    assert [k.key for k in kids] == [tuple(int(w) for w in t8.fork_key(
        *map(U, K1234), U(2), U(i))) for i in range(3)]
    assert g.fork(0) == ([], after)  # an empty batch still advances
    assert tandem.Tandem.from_key(K1234, position=256).fork(0)[1].position == 384


# -- Appendix C ------------------------------------------------------------------

_CHOICE_VECTORS = [
    ((1, 2, 3, 4), "1400000000000000",
     ["0800000000000000", "1000000000000000", "0c00000000000000", "1400000000000000"],
     [2, 3, 3, 3], [1, 3, 3, 2, 1, 1, 3, 0, 1, 1, 0, 3, 3, 1, 3, 3]),
    ((0.25,), "4000000000000000", ["4000000000000000"], [0], [0] * 16),
    ((2, 0.1, 0, 1, 5e-324, 0.7, 3.8, 0.001, 0.3), "0e0bd53834cafaa8",
     ["0581ef293003a450", "01999999999999a0", "0000000000000000", "077619f0fb38a9a8",
      "0000000000000001", "0b33333333333300", "0e0bd53834cafaa8", "0004189374bc6a7f",
      "04ccccccccccccc0"], [3, 0, 0, 6, 6, 6, 6, 6, 6],
     [6, 6, 6, 6, 0, 3, 6, 0, 6, 3, 3, 6, 6, 6, 6, 6]),
    ((5e-324, 1.5e-323, 0), "1555555555555556",
     ["1000000000000000", "1555555555555556", "0000000000000000"], [1, 1, 1],
     [1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1]),
    ((1e308, 1, 1.7976931348623157e308), "21334d03f285bf56",
     ["02669a07e50b80ab", "0000000000000001", "21334d03f285bf56"], [2, 0, 2],
     [0, 2, 2, 0, 2, 0, 2, 2, 0, 0, 2, 2, 2, 0, 2, 2]),
]


@pytest.mark.parametrize("weights, capacity, cut, alias, draws", _CHOICE_VECTORS)
def test_choice_vectors(weights, capacity, cut, alias, draws):
    table = tandem.ChoiceTable(weights)
    assert f"{table.capacity:016x}" == capacity
    assert [f"{int(c):016x}" for c in table.cut] == cut
    assert table.alias.tolist() == alias
    values, after = tandem.Tandem.from_key(K1234).choice(table, 16)
    assert values.tolist() == draws and after.position == 16 * 64


@pytest.mark.parametrize("weights", [[], [[1.0]], [-1.0, 2.0], [np.nan], [np.inf], [0.0, -0.0]])
def test_choice_table_refuses(weights):
    with pytest.raises(ValueError):
        tandem.ChoiceTable(weights)


# -- the conformance fixtures -----------------------------------------------------

def _expected(case):
    kind = case["kind"]
    if kind.endswith("f64"):
        dtype = np.float64
    elif kind.endswith("f32"):
        dtype = np.float32
    elif kind.endswith("u64"):
        dtype = np.uint64
    else:
        dtype = np.uint32
    bits = np.array([int(v, 16) for v in case["values"]], np.uint64)
    if dtype == np.float32 or dtype == np.uint32:
        return bits.astype(np.uint32).view(dtype)
    return bits.view(dtype)


def _fill(g, case, n):
    """One fill of ``n`` elements of ``case``'s kind: ``(values, next stream)``."""
    kind = case["kind"]
    if kind.startswith("fill_below"):
        return g.below(int(case["range"], 16), n, width=32 if kind.endswith("u32") else 64)
    if kind == "fill_normal_f64":
        return g.normal(n)
    if kind == "fill_normal_f32":
        return g.normal(n, dtype=np.float32)
    if kind == "fill_exponential_f64":
        return g.exponential(n)
    if kind == "fill_exponential_f32":
        return g.exponential(n, dtype=np.float32)
    if kind == "fill_choice":
        weights = np.array([int(w, 16) for w in case["weights"]], np.uint64).view(np.float64)
        return g.choice(tandem.ChoiceTable(weights), n)
    raise AssertionError(kind)


def _check(case, got):
    want = _expected(case)
    assert got.shape == want.shape
    if "tol" in case:
        tol = case["tol"]
        bound = tol["ulps"] * 2.0**-23 * np.abs(want.astype(np.float64)) + tol["abs"]
        assert np.all(np.abs(got.astype(np.float64) - want) <= bound), case["id"]
    else:
        assert got.tobytes() == want.tobytes(), case["id"]


def _fill_cases():
    cases = []
    for name in ("fill_below.json", "normal.json", "exponential.json", "choice.json"):
        cases += [pytest.param(c, id=c["id"]) for c in _cases(name)]
    return cases


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in _cases("below.json")])
def test_below_scalars(case):
    g = _gen(case)
    bound, width = int(case["range"], 16), 32 if case["kind"] == "below_u32" else 64
    values = []
    for _ in range(case["n"]):
        value, g = g.below(bound, width=width)
        values.append(value)
    _check(case, np.array(values, np.uint32 if width == 32 else np.uint64))
    if "end" in case:
        assert g.position == case["end"]


@pytest.mark.parametrize("case", _fill_cases())
def test_fill_cases(case):
    values, after = _fill(_gen(case), case, case["n"])
    _check(case, values)
    if "end" in case:
        assert after.position == case["end"]


@pytest.mark.parametrize("case", _fill_cases())
def test_cut_fills(case):
    """Cut fill: the pieces, filled in order on one generator, equal the whole."""
    n = case["n"]
    whole, end = _fill(_gen(case), case, n)
    for cut in sorted({1, 7, 20, 21, n - 1}):
        if not 0 < cut < n or (case["kind"] == "fill_normal_f32" and cut % 2):
            continue  # a float32 normal cut at an odd element splits a pair (Appendix A)
        first, g = _fill(_gen(case), case, cut)
        second, g = _fill(g, case, n - cut)
        assert np.concatenate([first, second]).tobytes() == whole.tobytes(), cut
        assert g == end


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for name in
                                  ("normal.json", "exponential.json") for c in _cases(name)
                                  if c["kind"].endswith("f64") and c["n"]])
def test_scalars_equal_fills(case):
    whole, end = _fill(_gen(case), case, case["n"])
    g = _gen(case)
    values = []
    for _ in range(case["n"]):
        value, g = (g.normal if case["kind"] == "fill_normal_f64" else g.exponential)()
        values.append(value)
    assert np.array(values).tobytes() == whole.tobytes() and g == end


def _case(name, suffix):
    return next(c for c in _cases(name) if c["id"].endswith(suffix))


# -- CHECKLIST.md ----------------------------------------------------------------------

def test_fallback_by_global_draw_index():
    for name, later, earlier in (("fill_below.json", "CROSS_BELOW32_AT[4]", "CROSS_BELOW32[4]"),
                                 ("fill_below.json", "CROSS_BELOW64_AT[6]", "CROSS_BELOW64[6]"),
                                 ("normal.json", "CROSS_NORMAL[1]", "CROSS_NORMAL[0]")):
        a, b = _case(name, later), _case(name, earlier)
        assert a["start"] == 1 and b["start"] == 0
        assert _expected(a)[:-1].tobytes() == _expected(b)[1:].tobytes()
        assert _fill(_gen(a), a, a["n"])[0][:-1].tobytes() == _expected(b)[1:].tobytes()
    assert any(c.get("rejected", 0) > 0 for c in _cases("fill_below.json"))


def test_width_from_range():
    g = tandem.Tandem(42)
    b32 = _case("fill_below.json", "CROSS_BELOW32[3]")
    b64 = _case("fill_below.json", "CROSS_BELOW64[3]")
    assert int(b32["range"], 16) == int(b64["range"], 16) == 1000
    values, _ = g.integers(0, 1000, 64, dtype=np.int64)
    assert values.astype(np.uint32).tobytes() == _expected(b32).tobytes()
    assert g.below(1000, 64, width=64)[0].tobytes() == _expected(b64).tobytes()
    for width in (32, 64):  # range 0: zero, one draw of the width
        value, after = g.at(5).below(0, width=width)
        assert value == 0 and after.position == 2 * width


def test_empty_fills():
    g = tandem.Tandem.from_key(K1234, position=33)
    assert g.random(0)[1].position == 64 and g.normal(0)[1].position == 64
    assert g.bits(0, dtype=np.uint32)[1].position == 64
    assert g.choice(tandem.ChoiceTable([1.0]), 0)[1].position == 64
    for after in (g.below(10, 0)[1], g.normal(0, dtype=np.float32)[1], g.exponential(0)[1],
                  g.exponential(0, dtype=np.float32)[1]):
        assert after.position == 33
    empty = [c for n in ("fill_below.json", "normal.json", "exponential.json")
             for c in _cases(n) if c["n"] == 0]
    assert len(empty) == 6 and all(c["start"] == 33 for c in empty)


def test_odd_n_and_pair_rule():
    odd = [_case("normal.json", f"CROSS_NORMAL32[{i}]") for i in range(5)]
    for case in odd:
        assert case["n"] == 33
        values, after = _fill(_gen(case), case, 33)
        _check(case, values)
        assert after.position == ((case["start"] + 31) // 32) * 32 + 32 * 2 * 17
    whole = _case("normal.json", "CROSS_NORMALF")
    assert _expected(whole)[:33].tobytes() == _expected(odd[1]).tobytes()
    assert _expected(odd[2]).tobytes()[:31 * 4] == _expected(odd[0])[2:].tobytes()
    g = _gen(whole)
    z, after = g.normal(dtype=np.float32)
    assert z == g.normal(2, dtype=np.float32)[0][0] and after.position == 32 + 64


def test_complex_spans_blocks():
    g = tandem.Tandem.from_key(K1234, position=64)  # the real part ends block 0
    z, after = g.random(dtype=np.complex128)
    x, _ = g.random(2)
    assert (z.real, z.imag, after.position) == (x[0], x[1], 192)


@pytest.mark.parametrize("K", [1, 8, 32, 1024])
def test_random_access_equals_fill(K):
    g = tandem.Tandem.from_key(K1234, K=K)
    whole, _ = g.words(40 * 32 + 7)
    for start in (0, 1, 3, 4, 31, 32, 33, 255, 256, 257, 8 * 32 - 1, 8 * 32 * 4 + 5, 1000):
        piece, after = g.at(32 * start).words(200)
        assert piece.tolist() == whole[start:start + 200].tolist()
        assert after.position == 32 * (start + 200)
    for w in (0, 5, 31, 32, 300, 1200):
        assert int(t8.word_at(*map(U, K1234), U(K.bit_length() - 1), U(w))) == whole[w]


@pytest.mark.parametrize("K", [8, 32, 256])
def test_uniform_fills_map_the_words(K):
    """Long uniform and exponential fills (whole spans of four chunk groups,
    mapped where the lanes lie) equal section 5's maps of the stream's words,
    at any start."""
    words, _ = tandem.Tandem.from_key(K1234, K=K).words(2 * 10**4 + 4096 + 2)
    for start in (0, 1, 2, 4096):
        g = tandem.Tandem.from_key(K1234, position=32 * start, K=K)
        f32, _ = g.random(10**4, dtype=np.float32)
        expected = (words[start:start + 10**4] >> 8).astype(np.float32) * np.float32(2**-24)
        assert f32.tobytes() == expected.tobytes()
        if start % 2 == 0:
            f64, _ = g.random(10**4)
            draws = words[start:start + 2 * 10**4].view(np.uint64)
            assert f64.tobytes() == ((draws >> 11).astype(np.float64) * 2.0**-53).tobytes()
            # exponentials made where the lanes lie equal those of short fills
            # (through the cursor, each draw mapped by tandem_draws.exponential64)
            whole, _ = g.exponential(10**4)
            pieces, h = [], g
            for _ in range(20):
                piece, h = h.exponential(500)
                pieces.append(piece)
            assert whole.tobytes() == np.concatenate(pieces).tobytes()


def test_position_bounds():
    top = tandem.Tandem.from_key(K1234, position=2**63 - 1)
    for bad in (2**63, 2**64 - 1):
        with pytest.raises(ValueError):
            tandem.Tandem.from_key(K1234, position=bad)
        with pytest.raises(ValueError):
            top.at(bad)
    assert top.position == 2**63 - 1
    assert top.bits(dtype=np.uint64)[1].position == 2**63 + 64
    with pytest.raises(ValueError):
        top.bits(2**57, dtype=np.uint64)  # ends at 2**64: refused before any output


@pytest.mark.parametrize("K", [0, 3, 2**17])
def test_chunk_length_refused(K):
    with pytest.raises(ValueError):
        tandem.Tandem(1, K=K)


# -- hashes.json ----------------------------------------------------------------------

_TYPES = {"UInt32": ("bits", np.uint32), "UInt64": ("bits", np.uint64),
          "UInt8": ("bits", np.uint8), "Bool": ("bits", np.bool_),
          "UInt128": ("bits", "uint128"), "Float64": ("random", np.float64),
          "Float32": ("random", np.float32), "Float16": ("random", np.float16),
          "ComplexF64": ("random", np.complex128), "ComplexF32": ("random", np.complex64),
          "Char": ("chars", None)}


@pytest.mark.parametrize("stream", [pytest.param(s, id=s["file"].split("/")[-1])
                                    for s in _fixture("hashes.json")["streams"]])
def test_stream_hashes(stream):
    g = _gen(stream)
    method, dtype = _TYPES[stream["type"]]
    values, _ = g.chars(stream["n"]) if method == "chars" else getattr(g, method)(
        stream["n"], dtype=dtype)
    data = np.ascontiguousarray(values).tobytes()
    assert len(data) == stream["bytes"]
    assert hashlib.sha256(data).hexdigest() == stream["sha256"]


def _fnv1a(data, h=0xCBF29CE484222325):
    from numba import njit

    @njit(cache=True)
    def fnv(b, h0):
        h = np.uint64(h0)
        prime = np.uint64(0x100000001B3)
        for i in range(b.size):
            h = (h ^ np.uint64(b[i])) * prime
        return h

    return int(fnv(data, np.uint64(h)))


@pytest.mark.parametrize("dump", [pytest.param(d, id=f"{d['id']} {d['starts'][0]}") for d in
                                  _fixture("hashes.json")["dumps"]
                                  if d["draws"] == [{"kind": "fill_normal_f64", "n": d["draws"][0]["n"]}]])
def test_normal_dump_hashes(dump):
    """The Float64 normal dumps: 5 x 10**6 and 2 x 2 x 10**5 ziggurat normals.

    The other dumps pin the C reference's Float32 polynomials, which the text
    leaves to each port (Appendix A, "Agreement"); their values are checked
    within the fixtures' tolerance by ``test_fill_cases``.
    """
    h, total = 0xCBF29CE484222325, 0
    for start in dump["starts"]:
        g = tandem.Tandem.from_key(_key(dump), start, dump["K"])
        values, g = g.normal(dump["draws"][0]["n"])
        data = values.view(np.uint8)
        h, total = _fnv1a(data, h), total + data.size
    assert total == dump["bytes"] and f"{h:016x}" == dump["fnv1a"]
    if "end" in dump:
        assert g.position == dump["end"]


def test_ziggurat_tables_equal_the_specification():
    """``W``, ``K_FLOOR``, ``F`` and ``R`` of tools/ziggurat_tables.py equal the
    spec's ``tables/normal_f64_zig1024.json`` (its SHA-256 is in SPEC.md)."""
    from tandem.core.ziggurat_tables import F, K_FLOOR, R, W

    data = (DATA / "normal_f64_zig1024.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == \
        "8b961dd46a2582b953bd8780138edb0ad712e3d243a366a123ffc8978d0a33ab"
    tables = json.loads(data)
    assert float.fromhex(tables["R"]) == R
    assert [float.fromhex(x) for x in tables["W"]] == W.tolist()
    assert [float.fromhex(y) for y in tables["Y"]] == F.tolist()
    assert tables["K"] == K_FLOOR.tolist()


def test_out_and_value_semantics():
    import pickle

    g = tandem.Tandem(7, K=8).at(96)
    for method, dtype in (("random", np.float64), ("random", np.float32), ("normal", np.float64),
                          ("normal", np.float32), ("exponential", np.float64),
                          ("bits", np.uint64), ("bits", np.uint32)):
        want, after = getattr(g, method)((3, 5), dtype=dtype)
        out = np.full((3, 5), 7, dtype)
        got, after2 = getattr(g, method)(dtype=dtype, out=out)
        assert got is out and out.tobytes() == want.tobytes() and after2 == after
        with pytest.raises(TypeError):
            getattr(g, method)(dtype=dtype, out=np.zeros(3, np.int8))
    with pytest.raises(ValueError):
        g.random(4, out=np.zeros(5))
    assert pickle.loads(pickle.dumps(g)) == g and hash(g) == hash(tandem.Tandem(7, K=8).at(96))
    assert g.variant == "Tandem8x32-K8" and g != g.at(97)
