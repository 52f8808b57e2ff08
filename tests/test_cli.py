import io
import subprocess
import sys

import numpy as np

from tandem import cli


def test_demo_passes_its_checks():
    buf = io.StringIO()
    assert cli.demo(out=buf) == 0
    text = buf.getvalue()
    assert "15/15 passed" in text and "all checks passed" in text


def test_python_m_tandem_help():
    result = subprocess.run([sys.executable, "-m", "tandem", "--help"], capture_output=True,
                            text=True, check=True)
    assert "demo" in result.stdout


def test_import_is_light():
    code = "import sys, tandem; print('numba' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


def test_compile_fills_every_kind_with_both_bijections(monkeypatch):
    """``tandem compile`` reaches every kind of the registry, with Philox and
    Threefry, by fill and by ``*_at``, lean and vectorised (through a backend that records the
    fills instead of compiling them: CI compiles them in the other tests)."""
    import types

    from tandem import engine, kinds, laws, warmup

    from tandem.backends.cpu import LEAN_BELOW

    seen = set()

    def saw(how, record, out):
        seen.add((how, record.kind, record.generator, out.size < LEAN_BELOW))

    recorder = types.SimpleNamespace(
        fill=lambda record, out, threads: saw("fill", record, out),
        addressed=lambda record, index, out, threads: saw("at", record, out),
        addressed_each=lambda record, index, each, out, threads: saw("each", record, out),
        two_parts=lambda name, out, a, b, p, q, threads: seen.add(("two parts", name)),
        two_part_fill=lambda first, second, name, out, p, q, threads: seen.add(
            ("two parts", name)),
        poisson_mixture_fill=lambda mixing, poisson, out, mean_limit, ptrs_from, threads:
            seen.add(("two parts", f"mixture of {mixing.kind}")),
        johnk_fill=lambda record, out, threads: seen.add(("two parts", record.kind)))
    monkeypatch.setitem(engine.BACKENDS, "cpu", lambda: recorder)
    with np.errstate(invalid="ignore"):  # the recorder leaves the counts unwritten
        warmup.compile_all(progress=False)
    assert {s[1] for s in seen if s[0] == "two parts"} == {
        "student_t", "fisher_f", "wald", "gamma_ratio", "mixture of gamma_large64",
        "mixture of gamma_small64", "beta_johnk64"}
    seen = {s for s in seen if s[0] != "two parts"}
    # a kind that scalar parameters never choose is warmed for array parameters;
    # the laws' own kinds with regimes are the rules the fills' kinds are held to
    each = {name for how, name, _, _ in seen if how == "each"}
    scalar = {name for how, name, _, _ in seen if how != "each"}
    with_regimes = [law for law in laws.LAWS.values() if law.regimes is not None]
    assert scalar | each | {law.kind for law in with_regimes} == set(kinds.KINDS)
    assert each == {name for law in with_regimes for name, _ in law.regimes(*np.ones((3, 1)))}
    assert {s for s in seen if s[0] != "each"} == {
        (how, name, g, lean) for how in ("fill", "at") for name in scalar
        for g in (0, 1) for lean in (True, False)}


def test_compile_command_reports_its_time(monkeypatch):
    from tandem import warmup

    monkeypatch.setattr(warmup, "compile_all", lambda progress=True: 12.25)
    out = io.StringIO()
    assert cli.main(["compile"], out=out) == 0
    assert out.getvalue() == "compiled tandem's kernels in 12.2 s\n"
