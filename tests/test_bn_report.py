"""``tandem bn learn`` and its report folder (tandem.bn.report)."""

import csv
import io
import json

import numpy as np
import pytest

import tandem
from tandem import bn, cli
from tandem.bn import report

SMALL = ["--iterations", "400", "--chains", "2", "--max-parents", "2"]


def run(argv):
    """``tandem bn learn ARGV``: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["bn", "learn", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def read_edges(folder):
    with open(folder / "edges.csv", newline="") as f:
        return list(csv.reader(f))


def test_network_report(tmp_path):
    folder = tmp_path / "cancer"
    code, out, err = run(["--network", "cancer", "--samples", "300", "--out", str(folder), *SMALL])
    assert code == 0, err
    rows = read_edges(folder)
    assert rows[0] == ["parent", "child", "probability", "se", "ess", "rhat"]
    names = bn.load_network("cancer").names
    pairs = {(p, c) for p, c, *_ in rows[1:]}
    assert pairs == {(p, c) for p in names for c in names if p != c}
    assert all(0.0 <= float(q) <= 1.0 and not float(se) < 0.0 for _, _, q, se, _, _ in rows[1:])
    sampled = [row for row in rows[1:] if 0.0 < float(row[2]) < 1.0]
    assert sampled and all(float(rhat) > 0 for *_, rhat in sampled)
    record = json.loads((folder / "run.json").read_text())
    edges = record["edges"]
    assert edges["largest_rhat"] >= 0.9
    # 2 chains x 400 iterations (20 kept orders a chain) are far too few: the
    # run says so, and how many to run
    assert "too few for standard errors" in edges["advice"]
    assert "run about 6000 iterations per chain (5600 more)" in edges["advice"]  # 256 kept
    assert f"warning: {edges['advice']}" in err
    assert f"R-hat of the order score {record['rhat_order_score']:.3f}" in out
    assert record["data"]["rows"] == 300 and record["settings"]["chains"] == 2
    assert sorted(record["best_order"]) == sorted(names)
    # cancer has 5 nodes: the MAP DAG is exact, and scores at least the best order's DAG
    assert record["map_dag_exact"] and record["map_dag_score"] >= record["best_dag_score"]
    assert {"shd_cpdag_map_dag", "shd_cpdag_graph"} <= set(record["against_true_graph"])
    assert 0.0 <= record["against_true_graph"]["auroc_directed"] <= 1.0
    assert record["figures"] == ["traces.png", "edges.png", "chains.png"]
    for name in record["figures"]:
        assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "edge AUROC" in out


def test_same_seed_same_report_and_csv_input(tmp_path):
    network = bn.load_network("earthquake")
    data = network.sample(200, tandem.Philox(3))
    path = tmp_path / "quake.csv"
    data.to_dataframe().to_csv(path, index=False)
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        code, _, err = run([str(path), "--out", str(folder), "--seed", "5", *SMALL])
        assert code == 0, err
    assert read_edges(first) == read_edges(second)
    read_back = bn.Dataset.from_csv(path)
    assert json.loads((first / "run.json").read_text())["data"]["fingerprint"] == \
        read_back.fingerprint


@pytest.mark.parametrize("argv, message", [
    (["--network", "cancer", "data.csv"], "not both"),
    ([], "not neither"),
    (["--network", "no-such-network"], "no-such-network"),
    (["missing.csv"], "column 'b'"),
    (["strings.csv", "--score", "bge"], "column 'a'"),
    (["floats.csv"], "use 'bge'"),
])
def test_bad_input_names_the_problem_and_writes_nothing(tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "missing.csv").write_text("a,b\n1,2\n2,\n1,1\n")
    (tmp_path / "strings.csv").write_text("a,b\nx,1\ny,2\nx,1\n")
    (tmp_path / "floats.csv").write_text("a,b\n0.5,1.25\n1.5,-0.75\n2.25,0.5\n")
    code, _, err = run([*argv, "--out", str(tmp_path / "report"), *SMALL])
    assert code == 2
    assert err.startswith("tandem bn learn: error:") and message in err
    assert not (tmp_path / "report").exists()
    assert not list(tmp_path.glob(".tandem-report-*"))


def test_constant_column_is_a_warning(tmp_path):
    path = tmp_path / "constant.csv"
    path.write_text("x,k,y\n" + "".join(f"{i % 2},c,{i % 3}\n" for i in range(60)))
    code, _, err = run([str(path), "--out", str(tmp_path / "report"), *SMALL])
    assert code == 0
    assert "tandem bn learn: warning: column 'k' is constant (arity 1)" in err
    assert len(read_edges(tmp_path / "report")) == 1 + 3 * 2


def test_write_report_refuses_a_file(tmp_path):
    data = bn.load_network("cancer").sample(100, tandem.Philox(1))
    learned = bn.report.learn(data, max_parents=1, chains=1, iterations=50, progress=False)
    target = tmp_path / "file"
    target.write_text("")
    with pytest.raises(ValueError, match="folder"):
        bn.report.write_report(learned, target)
    assert np.isfinite(learned.summary()["best_dag_score"])


def test_missing_chooses_which_cells_are_missing(tmp_path):
    """child's DuctFlow has a state named None: by default a missing cell
    (dropped with --dropna), with --missing "" a state of its own."""
    path = tmp_path / "ducts.csv"
    rows = ["a,b"] + [f"{'None' if i % 3 == 0 else 'Lt'},{'x' if i % 2 else 'y'}"
                      for i in range(60)]
    path.write_text("\n".join(rows) + "\n")
    code, _, err = run([str(path), "--out", str(tmp_path / "default"), "--dropna", *SMALL])
    assert code == 0, err
    default = json.loads((tmp_path / "default" / "run.json").read_text())
    assert default["data"]["rows"] == 40 and default["data"]["dropped_rows"] == 20
    code, _, err = run([str(path), "--out", str(tmp_path / "kept"), "--missing", "", *SMALL])
    assert code == 0, err
    kept = json.loads((tmp_path / "kept" / "run.json").read_text())
    assert kept["data"]["rows"] == 60 and kept["data"]["dropped_rows"] == 0
    code, _, err = run([str(path), "--out", str(tmp_path / "lt"), "--missing", "Lt, None",
                        "--dropna", *SMALL])
    assert code == 2 and "error" in err  # every row of a is missing: nothing left


def test_candidates_from_the_pc_skeleton(tmp_path):
    folder = tmp_path / "pc"
    code, _, err = run(["--network", "asia", "--samples", "3000", "--candidates", "pc",
                        "--out", str(folder), *SMALL[:4]])
    assert code == 0, err
    record = json.loads((folder / "run.json").read_text())
    assert record["settings"]["candidates"] == "pc"
    data = bn.load_network("asia").sample(3000, tandem.Tandem(0).sub(report.PURPOSE_DATA))
    skeleton = bn.independence.pc_skeleton(data)
    names = data.names
    for child, excluded in record["table"]["excluded"].items():
        v = names.index(child)
        assert set(excluded) == {names[u] for u in range(len(names))
                                 if u != v and not skeleton[u, v]}
    with pytest.raises(SystemExit) as refused:  # argparse's refusal of an unknown value
        run(["--network", "asia", "--candidates", "pca", "--out", str(tmp_path / "bad")])
    assert refused.value.code == 2 and not (tmp_path / "bad").exists()


def test_parallel_tempering_from_the_command_line(tmp_path):
    folder = tmp_path / "tempered"
    code, _, err = run(["--network", "cancer", "--samples", "300", "--out", str(folder),
                        "--replicas", "3", "--hottest", "0.25", *SMALL])
    assert code == 0, err
    record = json.loads((folder / "run.json").read_text())
    assert record["settings"]["temperatures"] == [1.0, 0.5, 0.25]
    rates = np.array(record["swap_rates"])
    assert rates.shape == (2, 2) and np.all((rates >= 0) & (rates <= 1))
    code, _, err = run(["--network", "cancer", "--out", str(tmp_path / "hot"),
                        "--replicas", "3", "--hottest", "1.5", *SMALL])
    assert code == 2 and "hottest must lie in (0, 1]" in err
    assert not (tmp_path / "hot").exists()


def test_moves_from_the_command_line(tmp_path):
    folder = tmp_path / "gibbs"
    code, _, err = run(["--network", "cancer", "--samples", "300", "--out", str(folder),
                        "--moves", "adjacent, gibbs_position=3", *SMALL])
    assert code == 0, err
    record = json.loads((folder / "run.json").read_text())
    assert record["settings"]["moves"] == {"adjacent": 1.0, "gibbs_position": 3.0}
    assert record["acceptance_rates"]["relocate"] == [None, None]  # never proposed
    assert all(0 < rate <= 1 for rate in record["acceptance_rates"]["gibbs_position"])
    code, _, err = run(["--network", "cancer", "--out", str(tmp_path / "bad"),
                        "--moves", "shuffle", *SMALL])
    assert code == 2 and "unknown move(s) ['shuffle']" in err


def test_device_reaches_the_table_and_the_chains(tmp_path, monkeypatch):
    """``--device cuda`` is passed to the score table's plan and to order MCMC
    (run here on the CPU, which gives the same values) and is recorded."""
    asked = []

    def recording(real):
        def call(*args, device="cpu", **kwargs):
            asked.append(device)
            return real(*args, device="cpu", **kwargs)
        return call

    monkeypatch.setattr(report, "plan_table", recording(report.plan_table))
    monkeypatch.setattr(report, "order_mcmc", recording(report.order_mcmc))
    code, _, err = run(["--network", "cancer", "--device", "cuda",
                        "--out", str(tmp_path / "report"), *SMALL])
    assert code == 0, err
    assert asked == ["cuda", "cuda"]
    settings = json.loads((tmp_path / "report" / "run.json").read_text())["settings"]
    assert settings["device"] == "cuda"


def test_device_cuda_without_a_gpu_names_the_problem_and_writes_nothing(tmp_path,
                                                                         monkeypatch):
    from numba import cuda

    monkeypatch.setattr(cuda, "is_available", lambda: False)  # a machine without a GPU
    code, _, err = run(["--network", "cancer", "--device", "cuda",
                        "--out", str(tmp_path / "report"), *SMALL])
    assert code == 2
    assert err.startswith("tandem bn learn: error:") and "device='cuda'" in err
    assert not (tmp_path / "report").exists()
