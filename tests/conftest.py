import os
import sys

import pytest
from hypothesis import settings
from shadows import path_without_shadows

# Numba's CUDA simulator runs the CUDA backend's kernels on the CPU
# (tests/test_cuda_sim.py); TANDEM_GPU=1 keeps the real GPU (tests/gpu).
if os.environ.get("TANDEM_GPU") != "1":
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# Deterministic property tests: the same examples on every run.
settings.register_profile("tandem", derandomize=True, deadline=None, max_examples=40,
                          print_blob=True)
settings.load_profile("tandem")


@pytest.fixture(scope="module")
def client(request):
    """A Dask client of two worker processes on loopback, one thread each, for one
    test module; the module's own functions travel to the workers by value."""
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(request.module)
    with path_without_shadows():  # the workers start with this process's path
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           processes=True, host="127.0.0.1",
                                           dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster, timeout="60s") as c:
        yield c
    cluster.close()
    cloudpickle.unregister_pickle_by_value(request.module)
