"""tandem.bn and ``tandem bn learn`` against hostile input (issue 14).

Checkpoints crafted or damaged, CSV files with long cells, huge integers, a
byte order mark or a stray string, report folders that cannot be written or
are interrupted, tables too wide for the time or memory they would take,
results compared with ``==``; and property tests that feed the Dataset
constructors hostile arguments.
"""

import csv
import io
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_bn_exact import synthetic_table

import tandem
from tandem import bn, cli
from tandem.bn import report
from tandem.bn import table as table_module
from tandem.bn.data import MISSING_TOKENS, Dataset
from tandem.bn.mcmc import _Prepared, order_mcmc
from tandem.bn.mcmc import estimate_bytes as mcmc_bytes
from tandem.bn.scores import Scorer, scratch_sizes

SMALL = ["--iterations", "200", "--chains", "2", "--max-parents", "2", "--samples", "200"]


def run(argv):
    """``tandem bn learn ARGV`` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["bn", "learn", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def refuse_learning(monkeypatch):
    """Make ``report.learn`` fail the test: a refusal must come before the run."""
    def learn(*args, **kwargs):
        raise AssertionError("the run started")
    monkeypatch.setattr(report, "learn", learn)


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


# -- 4: checkpoints, validated field by field ------------------------------------------

KW = dict(chains=2, burn_in=40, thin=3, dags_per_order=2, progress=False)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A table, a checkpoint after 100 iterations, its fields, and the run to 200."""
    table = synthetic_table(6, 2, 8)
    path = tmp_path_factory.mktemp("checkpoint") / "run.npz"
    order_mcmc(table, tandem.Philox(3), iterations=100, checkpoint=path, **KW)
    with np.load(path) as f:
        fields = {name: f[name] for name in f.files}
    whole = order_mcmc(table, tandem.Philox(3), iterations=200, **KW)
    return table, path, fields, whole


def resume(table, path):
    return order_mcmc(table, tandem.Philox(3), iterations=200, resume=path, **KW)


def test_a_valid_checkpoint_resumes_to_the_uninterrupted_run(saved):
    table, path, _, whole = saved
    assert resume(table, path) == whole


def changed(fields, name, value):
    out = dict(fields)
    if value is None:
        del out[name]
    else:
        out[name] = value
    return out


def swapped(a):
    b = a.copy()
    b[..., [0, 1]] = b[..., [1, 0]]
    return b


CRAFTED = [
    ("orders", lambda f: np.full_like(f["orders"], 10**6), "one permutation"),
    ("orders", lambda f: np.where(f["orders"] == 1, 0, f["orders"]), "one permutation"),
    ("orders", lambda f: -f["orders"], "one permutation"),
    ("orders", lambda f: f["orders"].astype(np.int32), "int64"),
    ("orders", lambda f: f["orders"][:1], r"shape \(2, 1, 6\)"),
    ("orders", lambda f: swapped(f["orders"]), "score"),
    ("best_order", lambda f: np.zeros_like(f["best_order"]), "one permutation"),
    ("best_score", lambda f: f["best_score"] + 1.0, "best score"),
    ("best_score", lambda f: f["best_score"].astype(np.float32), "float64"),
    ("trace", lambda f: np.where(np.arange(100) == 7, np.nan, f["trace"]), "finite"),
    ("trace", lambda f: f["trace"][:, :50], r"shape \(2, 100\)"),
    ("proposed", lambda f: f["proposed"] - 200, "non-negative"),
    ("proposed", lambda f: f["proposed"] + 1, "sum to 100"),
    ("accepted", lambda f: f["proposed"] + 1, "between 0 and the proposals"),
    ("n_kept", lambda f: f["n_kept"] + 1, "must be 20"),
    ("edge_counts", lambda f: f["edge_counts"] - 1, "0 .. 40"),
    ("edge_counts", lambda f: f["edge_counts"] + np.eye(6, dtype=np.int64), "allows no edge"),
    ("edge_given_order", lambda f: f["edge_given_order"] * np.nan, r"\[0, 20\]"),
    ("edge_given_order", lambda f: f["edge_given_order"] + 30.0, r"\[0, 20\]"),
    ("batch_counts", lambda f: f["batch_counts"] + 1, "sum to edge_counts"),
    ("batch_counts", lambda f: np.roll(f["batch_counts"], 12, axis=1), "zero past batch 20"),
    ("batch_counts", lambda f: -f["batch_counts"], "non-negative"),
    ("batch_counts", lambda f: f["batch_counts"][:, :4], r"shape \(2, 512, 6, "),
    ("done", lambda f: np.int64(-1), "non-negative"),
    ("done", lambda f: np.float64(100), "single int"),
    ("version", lambda f: np.int64(99), "must be 4"),
    ("version", lambda f: np.str_("1"), "single int"),
    ("fingerprint", lambda f: np.str_("0" * 16), "another score table"),
    ("fingerprint", lambda f: np.arange(3), "single str"),
    ("settings", lambda f: np.str_("{"), "not JSON"),
    ("settings", lambda f: np.str_("[1, 2]"), "JSON object"),
    ("settings", lambda f: np.str_(str(f["settings"]).replace('"burn_in": 40', '"burn_in": "40"')),
     "burn_in"),
]


@pytest.mark.parametrize("name, mutate, message", CRAFTED,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(CRAFTED)])
def test_crafted_checkpoint_is_refused_naming_resume_and_the_field(saved, tmp_path, name,
                                                                   mutate, message):
    table, _, fields, _ = saved
    path = tmp_path / "crafted.npz"
    np.savez(path, **changed(fields, name, mutate(fields)))
    burn_in_free = {**KW, "burn_in": None}  # the checkpoint's burn-in: its settings are read
    with pytest.raises(ValueError, match=f"resume: .*field '{name}': .*{message}"):
        order_mcmc(table, tandem.Philox(3), iterations=200, resume=path, **burn_in_free)


@pytest.mark.parametrize("fields_of", [
    lambda f: changed(f, "n_kept", None),
    lambda f: {**f, "extra": np.zeros(3)},
])
def test_checkpoint_with_missing_or_unknown_fields_is_refused(saved, tmp_path, fields_of):
    table, _, fields, _ = saved
    path = tmp_path / "fields.npz"
    np.savez(path, **fields_of(fields))
    with pytest.raises(ValueError, match="resume: .*missing fields .*unknown fields"):
        resume(table, path)


def test_empty_truncated_or_foreign_files_are_refused(saved, tmp_path):
    table, path, _, _ = saved
    raw = path.read_bytes()
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "half.npz").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "text.npz").write_text("orders,1,2,3\n")
    (tmp_path / "folder.npz").mkdir()
    for name in ("empty.npz", "half.npz", "text.npz", "array.npy", "folder.npz", "none.npz"):
        with pytest.raises(ValueError, match=f"resume: .*{name}"):
            resume(table, tmp_path / name)


def test_a_checkpoint_larger_than_its_run_is_refused_before_reading(saved, tmp_path):
    table, _, fields, _ = saved
    path = tmp_path / "big.npz"
    np.savez_compressed(path, **{**fields, "trace": np.zeros((2, 10**7))})  # small on disk
    assert path.stat().st_size < 2**20
    with pytest.raises(ValueError, match="resume: .*bytes, more than"):
        resume(table, path)


@given(st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
                min_size=1, max_size=3))
def test_a_damaged_checkpoint_is_refused_or_resumes_exactly(saved, tmp_path_factory, flips):
    table, path, _, whole = saved
    raw = bytearray(path.read_bytes())
    for where, mask in flips:
        raw[int(where * len(raw))] ^= mask
    damaged = tmp_path_factory.mktemp("damaged") / "run.npz"
    damaged.write_bytes(bytes(raw))
    try:
        result = resume(table, damaged)
    except ValueError as error:
        assert str(error).startswith(f"resume: {damaged}")
    else:  # the flip hit bytes that nothing reads
        assert result == whole


# -- 5, 13: CSV files ----------------------------------------------------------------


def test_a_cell_beyond_the_csv_limit_is_a_clean_error(tmp_path, monkeypatch):
    path = tmp_path / "long.csv"
    path.write_text("a,b\n0,1\n" + "x" * 140_000 + ",0\n1,1\n")
    with pytest.raises(ValueError, match=r"long.csv'?: cannot read line 3: a cell is longer "
                                         r"than the csv module's limit of 131072"):
        Dataset.from_csv(path)
    monkeypatch.chdir(tmp_path)
    code, _, err = run([str(path), "--out", "report", *SMALL])
    assert code == 2 and err.startswith("tandem bn learn: error:") and "131072" in err
    assert "Traceback" not in err and not (tmp_path / "report").exists()


def test_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_text("first,second\n1,a\n2,b\n", encoding="utf-8-sig")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert Dataset.from_csv(path).names == ("first", "second")
    assert Dataset.from_csv(path, encoding="utf-8").names == ("first", "second")


def test_a_stray_string_in_a_number_column_raises_naming_the_column(tmp_path, monkeypatch):
    path = tmp_path / "stray.csv"
    path.write_text("a,b\n1,x\n2,y\nthree,x\n2,NA\n")
    with pytest.raises(ValueError, match=r"column 'a' mixes types: the number '1' at line 2, "
                                         r"the string 'three' at line 4"):
        Dataset.from_csv(path, dropna=True)
    floats = tmp_path / "floats.csv"
    floats.write_text("u\n0.5\nx\n")
    with pytest.raises(ValueError, match="column 'u' mixes types"):
        Dataset.from_csv(floats)
    words = tmp_path / "words.csv"  # strings only, and missing cells: no mixing
    words.write_text("w,n\nlo,1\nhi,NA\nlo,2\n")
    with pytest.warns(UserWarning, match="column 'w' is constant"):
        assert Dataset.from_csv(words, dropna=True).states == (("lo",), (1, 2))
    monkeypatch.chdir(tmp_path)
    code, _, err = run([str(path), "--out", "report", *SMALL])
    assert code == 2 and "column 'a' mixes types" in err


def test_csv_argument_errors_name_the_argument(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,2\n")
    for kwargs, error, message in [
        (dict(path=3), TypeError, "path must be"),
        (dict(missing="NA"), TypeError, "missing must be"),
        (dict(missing=[1]), TypeError, "missing must hold str"),
        (dict(encoding="no-such-codec"), ValueError, "encoding: unknown encoding"),
        (dict(encoding=8), TypeError, "encoding must be"),
        (dict(delimiter="ab"), TypeError, "delimiter"),
        (dict(kind=["discrete"]), TypeError, "kind must be"),
    ]:
        with pytest.raises(error, match=message):
            Dataset.from_csv(**{"path": path, **kwargs})
    latin = tmp_path / "latin.csv"
    latin.write_bytes("a\n\xe9t\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match="latin.csv' is not utf-8-sig text"):
        Dataset.from_csv(latin)
    with pytest.warns(UserWarning, match="constant"):
        assert Dataset.from_csv(latin, encoding="latin-1").states == (("\xe9t\xe9",),)


# -- 6: integers beyond int64 ----------------------------------------------------------


def test_integers_beyond_int64_stay_distinct_states(tmp_path):
    path = tmp_path / "big.csv"
    big = [99999999999999999999999, 199999999999999999999999, 99999999999999999999998,
           -(2**63) - 1, 2**63, 5]
    path.write_text("a,b\n" + "".join(f"{v},{i % 2}\n" for i, v in enumerate(big)))
    d = Dataset.from_csv(path)
    assert d.states[0] == tuple(sorted(big))
    assert all(type(s) is int for s in d.states[0])
    assert [d.states[0][c] for c in d.codes[:, 0]] == big
    g = Dataset.from_csv(path, kind="gaussian")
    assert g.values[:, 0].tolist() == [float(v) for v in big]
    # the same from a DataFrame: exact ints, and whole floats beyond int64 stay floats
    frame = Dataset.from_dataframe(pd.DataFrame({"a": pd.Series(big, dtype=object),
                                                 "f": [1e23, 2e23, 1e23, 3.0, 3.0, 1e19]}))
    assert frame.states[0] == tuple(sorted(big))
    assert frame.states[1] == (3.0, 1e19, 1e23, 2e23)
    assert [frame.states[1][c] for c in frame.codes[:, 1]] == [1e23, 2e23, 1e23, 3.0, 3.0, 1e19]
    huge = tmp_path / "huge.csv"
    huge.write_text("h\n" + "9" * 400 + "\n1\n")
    assert Dataset.from_csv(huge).states == ((1, int("9" * 400)),)
    with pytest.raises(ValueError, match="column 'h' has an integer too large for float64"):
        Dataset.from_csv(huge, kind="gaussian")


# -- 9: the report folder, all or nothing ------------------------------------------------


def test_a_folder_where_the_report_writes_a_file_is_refused_before_the_run(tmp_path,
                                                                           monkeypatch):
    out = tmp_path / "out"
    (out / "run.json").mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    refuse_learning(monkeypatch)
    code, _, err = run(["--network", "cancer", "--out", str(out), *SMALL])
    assert code == 2 and "run.json' is a folder" in err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "run.json"]
    assert not list((out / "run.json").iterdir())


@pytest.mark.parametrize("where", ["file/report", "file/deeper/report", "file"])
def test_an_out_that_cannot_be_written_is_refused_before_the_run(tmp_path, monkeypatch, where):
    (tmp_path / "file").write_text("not a folder")
    refuse_learning(monkeypatch)
    code, _, err = run(["--network", "cancer", "--out", str(tmp_path / where), *SMALL])
    assert code == 2 and err.startswith("tandem bn learn: error: out") and "file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.fixture(scope="module")
def learned():
    data = bn.load_network("cancer").sample(100, tandem.Philox(1))
    return report.learn(data, max_parents=1, chains=2, iterations=50, progress=False)


def snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_failed_move_puts_the_earlier_report_back(tmp_path, monkeypatch, learned):
    out = tmp_path / "out"
    report.write_report(learned, out)
    (out / "notes.txt").write_text("mine")
    (out / "run.json").write_text("{}")  # tell the earlier report from the new one
    before = snapshot(out)
    real, calls = os.replace, []

    def failing(src, dst):
        if os.path.dirname(dst) == str(out):
            calls.append(dst)
            if len(calls) == 3:  # the third new file into out
                raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(report.os, "replace", failing)
    with pytest.raises(OSError, match="No space"):
        report.write_report(learned, out)
    assert snapshot(out) == before
    assert not list(tmp_path.rglob(".tandem-report-*"))
    monkeypatch.setattr(report.os, "replace", real)
    report.write_report(learned, out)
    assert (out / "notes.txt").read_text() == "mine" and (out / "run.json").read_text() != "{}"


def test_one_chain_makes_a_report_without_the_chain_figure(tmp_path):
    code, _, err = run(["--network", "cancer", "--out", str(tmp_path / "one"), "--chains", "1",
                        *SMALL[:2], *SMALL[4:]])
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == sorted(
        ["edges.csv", "edges.png", "run.json", "traces.png", *report.GRAPH_FILES])


def test_a_new_report_folder_has_ordinary_permissions(tmp_path, learned):
    out = report.write_report(learned, tmp_path / "a" / "b")
    (tmp_path / "plain").mkdir()
    assert (out.stat().st_mode & 0o777) == ((tmp_path / "plain").stat().st_mode & 0o777)
    assert sorted(p.name for p in out.iterdir()) == sorted(report.REPORT_FILES)


def test_figures_of_an_earlier_report_do_not_outlive_it(tmp_path, monkeypatch, learned):
    out = report.write_report(learned, tmp_path / "out")
    monkeypatch.setattr(report, "_figures", lambda learned, folder: "none: no matplotlib")
    report.write_report(learned, out)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["edges.csv", "run.json", *report.GRAPH_FILES])


def test_a_signal_while_staging_leaves_nothing_and_reaches_the_old_handler(tmp_path,
                                                                           monkeypatch,
                                                                           learned):
    received = []

    class Stop(Exception):
        pass

    def old_handler(signum, frame):
        received.append(signum)
        raise Stop

    def staged_then_killed(learned, path):
        with open(path, "w") as f:
            f.write("parent,child,probability\n")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the signal arrives first
        raise AssertionError("SIGTERM did not interrupt")

    previous = signal.signal(signal.SIGTERM, old_handler)
    try:
        monkeypatch.setattr(report, "_edges_csv", staged_then_killed)
        with pytest.raises(Stop):
            report.write_report(learned, tmp_path / "new" / "out")
        assert received == [signal.SIGTERM]
        assert signal.getsignal(signal.SIGTERM) is old_handler
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert list(tmp_path.iterdir()) == []  # no report, no staging, no parent folders


def test_staging_left_by_a_killed_process_is_swept(tmp_path, learned):
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    dead = int(child.stdout)
    stale = tmp_path / f"{report._STAGING}{report._host()}-{dead}-0000"
    mine = tmp_path / f"{report._STAGING}{report._host()}-{os.getpid()}-0000"
    other_host = tmp_path / f"{report._STAGING}ffffffff-{dead}-0000"
    for folder in (stale, mine, other_host):
        folder.mkdir()
        (folder / "edges.csv").write_text("half")
    report.write_report(learned, tmp_path / "out")
    assert not stale.exists() and mine.exists() and other_host.exists()


# -- 10: the cell bound of a family -----------------------------------------------------


def test_a_wide_arity_column_is_not_counted_as_its_own_parent():
    rng = np.random.default_rng(0)
    codes = np.column_stack([rng.integers(0, 10**5, 40), rng.integers(0, 2, 40),
                             rng.integers(0, 3, 40)])
    data = Dataset.from_codes(codes, [10**5, 2, 3])
    # a family: a child and at most k others, so the product of the k + 1 largest arities
    assert scratch_sizes(Scorer(data, "bdeu", {}), 1)[0] == 10**5 * 3
    assert scratch_sizes(Scorer(data, "bdeu", {}), 2)[0] == 10**5 * 3 * 2
    table = bn.score_table(data, max_parents=1, memory_limit=10**14, progress=False)
    for i in range(3):
        for r in range(table.n_sets):
            assert table.scores[i, r] == bn.local_score(data, i, table.parent_set(i, r))
    assert table_module.estimate_bytes(data, max_parents=1) < 2**26


# -- 11: time and memory estimated before the run, progress beyond a few seconds --------


@pytest.fixture(scope="module")
def wide_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    codes = np.random.default_rng(1).integers(0, 2, size=(40, 300))
    write_csv(path, [f"c{j}" for j in range(300)], codes.tolist())
    return path


def test_wide_data_over_the_time_limit_is_refused_naming_the_options(tmp_path, monkeypatch,
                                                                      wide_csv):
    monkeypatch.setattr(table_module, "total_memory", lambda: 2**52)
    start = time.perf_counter()
    code, _, err = run([str(wide_csv), "--out", str(tmp_path / "report"), "--time-limit", "20"])
    assert time.perf_counter() - start < 60  # the estimate, not the 1.3e9 scores
    assert code == 2 and "--max-parents 3 over 299 candidate parents" in err
    assert "more than the time limit of 20 s" in err
    assert "--max-parents 2 would fit" in err and "--candidates" in err
    assert "raise --time-limit" in err and "max_parents=" not in err
    assert not (tmp_path / "report").exists()


def test_wide_data_over_the_memory_limit_names_the_options(tmp_path, monkeypatch, wide_csv):
    monkeypatch.setattr(table_module, "total_memory", lambda: 8 * 2**30)
    refuse = tmp_path / "report"
    code, _, err = run([str(wide_csv), "--out", str(refuse)])
    assert code == 2 and "more than the memory limit of 4 GiB" in err
    assert "--max-parents 2 would fit" in err and "--candidates" in err
    assert "memory_limit" not in err and not refuse.exists()


def test_time_refusal_in_the_library_names_what_fits():
    codes = np.random.default_rng(2).integers(0, 2, size=(30, 120))
    data = Dataset.from_codes(codes, [2] * 120)
    with pytest.raises(table_module.ScoreTableTimeError) as caught:
        bn.score_table(data, max_parents=3, time_limit=0.5, progress=False)
    budget = caught.value.budget
    assert budget.resource == "time" and budget.need > 0.5 and budget.max_parents == 3
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert "max_parents=3 over 119 candidate parents" in message and "time_limit" in message
    settings = {name: value for name, value, _ in budget.alternatives}
    assert settings["max_parents"] in (1, 2) and 1 <= settings["candidates"] < 119
    for name, value, need in budget.alternatives:
        assert need <= 0.5 and f"{name}={value} would fit" in message
    with pytest.raises(ValueError, match="time_limit must be positive"):
        bn.score_table(data, time_limit=0, progress=False)
    with pytest.raises(TypeError, match="time_limit must be a number"):
        bn.score_table(data, time_limit="1", progress=False)


def test_the_time_estimate_is_of_the_right_size():
    data = bn.load_network("alarm").sample(1000, tandem.Philox(5))
    plan = table_module.plan_table(data, max_parents=3)
    assert plan.measured and plan.n_sets == 1 + 36 + 630 + 7140
    start = time.perf_counter()
    table = plan.compute(progress=False)
    took = time.perf_counter() - start
    # A loose bound: the machine's speed moves between the sample and the run.
    assert plan.seconds / 20 < took < 20 * plan.seconds
    assert np.array_equal(table.scores, bn.score_table(data, max_parents=3,
                                                       progress=False).scores)
    small = table_module.plan_table(bn.load_network("cancer").sample(50, tandem.Philox(1)),
                                    max_parents=2)
    assert not small.measured and small.seconds < table_module.UNTIMED_SECONDS


def test_the_memory_limit_counts_what_order_mcmc_builds(monkeypatch):
    data = bn.load_network("asia").sample(200, tandem.Philox(2))
    table = bn.score_table(data, max_parents=3, progress=False)
    prepared = _Prepared(table)
    arrays = [prepared.candidates, prepared.subsets, prepared.weights, prepared.top]
    extra = mcmc_bytes(8, 7, 3, chains=4, iterations=20_000)
    assert sum(a.nbytes for a in arrays) <= extra
    alone = table_module.estimate_bytes(data, max_parents=3)
    monkeypatch.setattr(table_module, "total_memory", lambda: 2 * (alone + extra // 2))
    with pytest.raises(table_module.ScoreTableMemoryError, match="max_parents=3"):
        report.learn(data, max_parents=3, chains=4, iterations=20_000, progress=False)


def test_a_long_table_logs_its_estimate_and_shows_the_bars(monkeypatch, capsys):
    monkeypatch.setattr(report, "PROGRESS_AFTER", 0.0)
    lines = []
    data = bn.load_network("asia").sample(200, tandem.Philox(2))
    report.learn(data, max_parents=2, chains=1, iterations=50, log=lines.append)
    assert len(lines) == 1 and lines[0].startswith("score table: 8 nodes x 29 parent sets, "
                                                   "about ")
    err = capsys.readouterr().err  # not a terminal: shown anyway
    assert "score table (bdeu, k=2)" in err and "order MCMC" in err


# -- 14: OrderMCMCResult equality ------------------------------------------------------


def test_results_compare_by_value():
    table = synthetic_table(5, 2, 1)
    a = order_mcmc(table, tandem.Philox(1), chains=2, iterations=60, progress=False)
    b = order_mcmc(table, tandem.Philox(1), chains=2, iterations=60, progress=False)
    c = order_mcmc(table, tandem.Philox(2), chains=2, iterations=60, progress=False)
    assert a == b and not a != b and a != c and not a == c
    assert a != "a result" and a != None  # noqa: E711
    # no kept orders: NaN edge probabilities, equal all the same
    none = [order_mcmc(table, tandem.Philox(1), iterations=10, burn_in=20, progress=False)
            for _ in range(2)]
    assert np.isnan(none[0].edge_probabilities).all() and none[0] == none[1]
    with pytest.raises(TypeError):
        hash(a)


# -- the Dataset constructors under hostile arguments ----------------------------------
#
# Each property test builds a valid input and spoils it in zero to two ways
# drawn from a list; the constructor must then raise a ValueError, TypeError
# or OverflowError whose message names the argument (or the column, the row,
# the line, the file), or return a correct result.

hostile = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")


def names_the_problem(error, words):
    message = str(error)
    return isinstance(error, (ValueError, TypeError, OverflowError)) and any(
        w in message for w in words)


def spoilt(draw, spoilers):
    """Zero to two of ``spoilers`` (name -> strategy of a bad value), as a dict."""
    chosen = draw(st.lists(st.sampled_from(sorted(spoilers)), max_size=2, unique=True))
    return {name: draw(spoilers[name]) for name in chosen}


CODE_SPOILERS = {
    "cell": st.sampled_from([-1, 9, 2**40, 2**70]),
    "dtype": st.sampled_from([np.float64, np.bool_, object, "U2", np.complex128]),
    "codes": st.sampled_from(["ab", [[0, 1], [1]], [[[0]]], [], 3, None]),
    "arity": st.sampled_from([0, -1, 2**31, 2**40, True, 2.0, None, "2", np.int8(3)]),
    "arities": st.sampled_from(["ab", 2, None, {0: 2, 1: 2}, {2, 3}, (), [2] * 5]),
    "names": st.sampled_from(["ab", ["a"], ["a", "a", "a"], ["", "b", "c"], [1, 2, 3],
                              ("x", "y", "z", "w")]),
}


@st.composite
def codes_arguments(draw):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    arities = draw(st.lists(st.integers(1, 5), min_size=cols, max_size=cols))
    seed = draw(st.lists(st.integers(0, 100), min_size=rows * cols, max_size=rows * cols))
    codes = np.array(seed, dtype=np.int64).reshape(rows, cols) % np.array(arities)
    codes = codes.astype(draw(st.sampled_from([np.int8, np.uint8, np.int32, np.int64,
                                               np.uint64])))
    names = draw(st.sampled_from([None, ["a", "b", "c"][:cols]]))
    bad = spoilt(draw, CODE_SPOILERS)
    if "cell" in bad:
        codes = codes.astype(object)
        codes[draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))] = bad["cell"]
    if "dtype" in bad:
        codes = codes.astype(bad["dtype"])
    if "arity" in bad:
        arities[draw(st.integers(0, cols - 1))] = bad["arity"]
    return (bad.get("codes", codes), bad.get("arities", arities), bad.get("names", names))


@hostile
@given(codes_arguments())
def test_from_codes_hostile(arguments):
    codes, arities, names = arguments
    try:
        d = Dataset.from_codes(codes, arities, names)
    except (ValueError, TypeError, OverflowError) as error:
        assert names_the_problem(error, ("codes", "arities", "names", "column")), error
        return
    codes = np.asarray(codes)
    assert d.values.tolist() == codes.astype(np.int64).tolist()
    assert d.arities == tuple(int(a) for a in arities)
    assert d.states == tuple(tuple(range(a)) for a in d.arities)
    assert d.names == (tuple(names) if names is not None
                       else tuple(f"X{j}" for j in range(codes.shape[1])))


GAUSSIAN_SPOILERS = {
    "cell": st.sampled_from([np.nan, np.inf, -np.inf, 1e300, "x", None, 2**70, True, 1j]),
    "dtype": st.sampled_from([np.float32, np.float16, np.int64, np.bool_, object, "U3",
                              np.complex128]),
    "array": st.sampled_from([[[0.5, 1.0], [1.5]], [1.0, 2.0], [], [[]], "ab", 3.0, None,
                              [[[1.0]]]]),
    "names": st.sampled_from(["ab", ["a"], ["a", "a", "a"], ["", "b", "c"], [1, 2, 3]]),
}


@st.composite
def gaussian_arguments(draw):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    values = draw(st.lists(st.floats(-1e6, 1e6), min_size=rows * cols, max_size=rows * cols))
    array = np.array(values).reshape(rows, cols)
    names = draw(st.sampled_from([None, ["a", "b", "c"][:cols]]))
    bad = spoilt(draw, GAUSSIAN_SPOILERS)
    if "cell" in bad:
        array = array.astype(object)
        array[draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))] = bad["cell"]
        if draw(st.booleans()):
            array = array.tolist()  # NumPy infers the dtype
    if "dtype" in bad:
        try:
            array = np.asarray(array).astype(bad["dtype"])
        except (ValueError, TypeError, OverflowError):
            pass  # a cell that this dtype cannot hold: spoilt enough
    return bad.get("array", array), bad.get("names", names)


@hostile
@given(gaussian_arguments())
def test_gaussian_hostile(arguments):
    array, names = arguments
    try:
        d = Dataset.gaussian(array, names)
    except (ValueError, TypeError, OverflowError) as error:
        assert names_the_problem(error, ("array", "names", "column")), error
        return
    expected = np.asarray(array).astype(np.float64)
    assert d.kind == "gaussian" and np.array_equal(d.values, expected)
    assert np.all(np.isfinite(d.values)) and d.values.dtype == np.float64


def cell_value(text):
    """What a CSV cell means: an int, else a float, else the string."""
    for convert in (int, float):
        try:
            return convert(text)
        except (ValueError, OverflowError):
            pass
    return text


def typed_columns(rows):
    """The columns of ``rows`` (lists of stripped cells) as from_csv types them."""
    typed = []
    for column in zip(*rows):
        values = [cell_value(c) for c in column]
        if any(isinstance(v, float) for v in values) and all(
                not isinstance(v, str) for v in values):
            values = [float(v) for v in values]
        typed.append(values)
    return typed


def check_states(d, columns):
    """``columns[j]``: column j's values in the rows kept; each decodes to its value, and
    distinct values keep distinct codes."""
    for j, column in enumerate(columns):
        if d.kind == "gaussian":
            assert d.values[:, j].tolist() == [float(v) for v in column]
            continue
        decoded = [d.states[j][c] for c in d.codes[:, j]]
        assert decoded == column  # == as Python compares it: 1 == 1.0
        assert all(not isinstance(v, float) or math.isfinite(v) for v in decoded)
        assert len(set(d.codes[:, j].tolist())) == len({(type(v) is str, v) for v in column})


COLUMN_CELLS = {
    "int": st.sampled_from(["0", "1", "2", "-3", " 4 ", "007", "99999999999999999999999",
                            "-199999999999999999999"]),
    "float": st.sampled_from(["0.5", "1.5", "-2.25", "1e3", "2.0", "1e30", ".5"]),
    "str": st.sampled_from(["lo", "hi", "x y", '"q"', "a,b", "\ufeffz", "caf\xe9"]),
}
CSV_SPOILERS = {
    "cell": st.sampled_from(["x", "1", "0.5", "NA", "", "nan", "inf", "\n", "9" * 400,
                             "x" * 140_000]),
    "header": st.sampled_from([["a", "a"], ["", "b"], [], ["a", "b", "c", "d"]]),
    "kind": st.sampled_from(["other", 3, ["discrete"]]),
    "dropna": st.sampled_from([1, "yes", None]),
    "bytes": st.sampled_from([b"\xff\xfe", b"\xef\xbb\xbf", b"\x00", b"a,b\n1\n",
                              b'"open,quote\n']),
}


@st.composite
def csv_arguments(draw):
    types = draw(st.lists(st.sampled_from(sorted(COLUMN_CELLS)), min_size=1, max_size=3))
    header = ["a", "b", "c"][:len(types)]
    rows = [[draw(COLUMN_CELLS[t]) for t in types] for _ in range(draw(st.integers(1, 5)))]
    kind = draw(st.sampled_from([None, "discrete", "gaussian"]))
    dropna = draw(st.booleans())
    bad = spoilt(draw, CSV_SPOILERS)
    if "cell" in bad:
        rows[draw(st.integers(0, len(rows) - 1))][draw(st.integers(0, len(types) - 1))] = \
            bad["cell"]
    return (bad.get("header", header), rows, bad.get("kind", kind),
            bad.get("dropna", dropna), bad.get("bytes", b""))


@hostile
@given(csv_arguments())
def test_from_csv_hostile(tmp_path_factory, arguments):
    header, rows, kind, dropna, prefix = arguments
    path = tmp_path_factory.mktemp("csv") / "data.csv"
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(header)
    writer.writerows(rows)
    path.write_bytes(prefix + text.getvalue().encode("utf-8"))
    try:
        d = Dataset.from_csv(path, kind=kind, dropna=dropna)
    except (ValueError, TypeError, OverflowError) as error:
        assert names_the_problem(error, ("column", "line", "kind", "dropna", "names",
                                         "data.csv")), error
        return
    # the file as the csv module reads it, a byte order mark dropped, cells stripped
    lines = csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline=""))
    read = [[c.strip() for c in row] for row in lines]
    assert d.names == tuple(read[0])
    read = [row for row in read[1:] if row and not (len(row) == 1 and not row[0])]
    kept = [row for row in read if not any(c in MISSING_TOKENS for c in row)]
    assert d.n_rows == len(kept) and d.n_dropped == len(read) - len(kept)
    check_states(d, typed_columns(kept))
    assert kind is None or d.kind == kind


FRAME_COLUMNS = {
    "int": st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    "bigint": st.lists(st.sampled_from([1, 2**63, -(2**64), 10**30]), min_size=4, max_size=4),
    "whole": st.lists(st.sampled_from([1.0, 2.0, -0.0, 1e19, 1e300]), min_size=4, max_size=4),
    "real": st.lists(st.floats(-100, 100), min_size=4, max_size=4),
    "str": st.lists(st.sampled_from(["lo", "hi", ""]), min_size=4, max_size=4),
    "bool": st.lists(st.booleans(), min_size=4, max_size=4),
    "category": st.lists(st.sampled_from(["p", "q"]), min_size=4, max_size=4),
}
FRAME_SPOILERS = {
    "cell": st.sampled_from([None, np.nan, np.inf, "x", 7, 0.5, True, 1j, (1, 2), 2**70]),
    "kind": st.sampled_from(["other", 3, ["discrete"]]),
    "dropna": st.sampled_from([1, "yes", None]),
    "df": st.sampled_from([None, [[1, 2]], np.zeros((2, 2)), "df"]),
    "shape": st.sampled_from(["no rows", "no columns", "duplicate names"]),
}


@st.composite
def frame_arguments(draw):
    types = draw(st.lists(st.sampled_from(sorted(FRAME_COLUMNS)), min_size=1, max_size=3))
    rows = draw(st.integers(1, 4))
    data = {f"c{j}": draw(FRAME_COLUMNS[t])[:rows] for j, t in enumerate(types)}
    kind = draw(st.sampled_from([None, "discrete", "gaussian"]))
    dropna = draw(st.booleans())
    bad = spoilt(draw, FRAME_SPOILERS)
    if "cell" in bad:
        column = data[draw(st.sampled_from(sorted(data)))]
        column[draw(st.integers(0, rows - 1))] = bad["cell"]
    frame = pd.DataFrame({name: pd.Categorical(values) if types[j] == "category"
                          and "cell" not in bad else pd.Series(values, dtype=object)
                          if draw(st.booleans()) else pd.Series(values)
                          for j, (name, values) in enumerate(data.items())})
    shape = bad.get("shape")
    if shape == "no rows":
        frame = frame.iloc[:0]
    elif shape == "no columns":
        frame = frame.iloc[:, :0]
    elif shape == "duplicate names":
        frame.columns = ["c"] * frame.shape[1]
    return bad.get("df", frame), bad.get("kind", kind), bad.get("dropna", dropna)


@hostile
@given(frame_arguments())
def test_from_dataframe_hostile(arguments):
    frame, kind, dropna = arguments
    try:
        d = Dataset.from_dataframe(frame, kind=kind, dropna=dropna)
    except (ValueError, TypeError, OverflowError) as error:
        assert names_the_problem(error, ("column", "row", "kind", "dropna", "df")), error
        return
    assert d.names == tuple(frame.columns)
    stay = ~frame.isna().any(axis=1).to_numpy()
    assert d.n_rows == int(stay.sum()) and d.n_dropped == int((~stay).sum())
    columns = [frame.iloc[:, j][stay].tolist() for j in range(frame.shape[1])]
    check_states(d, columns)
    assert kind is None or d.kind == kind


def test_the_default_memory_limit_is_a_share_of_the_total_not_of_what_is_free(monkeypatch):
    assert table_module.default_memory_limit() == int(
        table_module.MEMORY_FRACTION * table_module.total_memory())
    assert table_module.total_memory() >= table_module.available_memory() > 0
    monkeypatch.setattr(table_module, "available_memory", lambda: 1)  # a busy machine
    assert table_module.default_memory_limit() > 2**20


def test_order_mcmc_estimates_its_memory_before_it_starts(monkeypatch):
    from tandem.bn import mcmc

    data = bn.load_network("asia").sample(200, tandem.Philox(2))
    table = bn.score_table(data, max_parents=3, progress=False)
    need = mcmc_bytes(8, 7, 3, chains=4, iterations=1000)
    with pytest.raises(MemoryError, match="memory_limit"):
        order_mcmc(table, tandem.Philox(1), iterations=1000, memory_limit=need - 1,
                   progress=False)
    order_mcmc(table, tandem.Philox(1), iterations=1000, memory_limit=need, progress=False)
    monkeypatch.setattr(mcmc, "default_memory_limit", lambda: table.scores.nbytes + need - 1)
    with pytest.raises(MemoryError, match="half the machine's memory"):
        order_mcmc(table, tandem.Philox(1), iterations=1000, progress=False)
