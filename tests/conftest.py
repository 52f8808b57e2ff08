import os

from hypothesis import settings

# Numba's CUDA simulator runs the CUDA backend's kernels on the CPU
# (tests/test_cuda_sim.py); TANDEM_GPU=1 keeps the real GPU (tests/gpu).
if os.environ.get("TANDEM_GPU") != "1":
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# Deterministic property tests: the same examples on every run.
settings.register_profile("tandem", derandomize=True, deadline=None, max_examples=40,
                          print_blob=True)
settings.load_profile("tandem")
