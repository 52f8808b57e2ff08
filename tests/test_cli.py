import io
import subprocess
import sys

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

    from tandem import distributions, kinds, parametric, warmup

    from tandem.backends.cpu import LEAN_BELOW

    seen = set()

    def saw(how, record, out):
        seen.add((how, record.kind, record.generator, out.size < LEAN_BELOW))

    recorder = types.SimpleNamespace(
        fill=lambda record, out, threads: saw("fill", record, out),
        addressed=lambda record, index, out, threads: saw("at", record, out),
        addressed_each=lambda record, index, each, out, threads: saw("each", record, out))
    monkeypatch.setattr(distributions, "_backend", lambda name: recorder)
    monkeypatch.setattr(parametric, "_backend", lambda name: recorder)
    warmup.compile_all(progress=False)
    # a kind that scalar parameters never choose is warmed for array parameters
    each = {name for how, name, _, _ in seen if how == "each"}
    scalar = {name for how, name, _, _ in seen if how != "each"}
    assert scalar | each == set(kinds.KINDS)
    assert each == {law.kind for law in parametric.LAWS.values() if law.faster is not None}
    assert {s for s in seen if s[0] != "each"} == {
        (how, name, g, lean) for how in ("fill", "at") for name in scalar
        for g in (0, 1) for lean in (True, False)}


def test_compile_command_reports_its_time(monkeypatch):
    from tandem import warmup

    monkeypatch.setattr(warmup, "compile_all", lambda progress=True: 12.25)
    out = io.StringIO()
    assert cli.main(["compile"], out=out) == 0
    assert out.getvalue() == "compiled tandem's kernels in 12.2 s\n"
