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
