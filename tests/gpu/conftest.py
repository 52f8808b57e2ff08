import os
import sys

import pytest

# The shared fill list lives in tests/test_invariance.py.
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))


def _gpu_missing():
    if os.environ.get("TANDEM_GPU") != "1":
        return "set TANDEM_GPU=1 to run on a real GPU (the simulator is on otherwise)"
    try:
        import cupy  # noqa: F401
        from numba import cuda
    except ImportError as error:
        return f"needs numba-cuda and CuPy: {error}"
    if not cuda.is_available():
        return "no CUDA GPU"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _gpu_missing()
    for item in items:
        if "tests/gpu" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.gpu)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
