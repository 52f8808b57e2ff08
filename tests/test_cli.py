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


def test_compile_builds_every_kind(monkeypatch):
    from tandem import kinds
    from tandem.backends import cpu

    built = set()
    original = cpu._kernels

    def spy(name, generator):
        built.add((name, generator))
        return original(name, generator)

    monkeypatch.setattr(cpu, "_kernels", spy)
    out = io.StringIO()
    assert cli.main(["compile"], out=out) == 0
    assert out.getvalue().startswith("compiled tandem's kernels in ")
    assert built == {(name, g) for name in kinds.KINDS for g in (0, 1)}
