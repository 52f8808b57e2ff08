"""Tandem8x32's CUDA kernels, run by Numba's CUDA simulator, against the CPU's.

``tests/conftest.py`` turns the simulator on (``NUMBA_ENABLE_CUDASIM=1``)
unless ``TANDEM_GPU=1``.  The simulator runs each thread in Python, so the
fills are small and ``K = 8``; they start on and off 16-byte boundaries, so
that both the vector stores and the element stores run.  The real GPU runs
the conformance suite itself (``tests/gpu/test_tandem8x32_gpu.py``).
"""

import numpy as np
import pytest

import tandem
from tandem.backends import tandem_cpu, tandem_cuda
from tandem.core import tandem8x32 as t8
from tandem.core import tandem_draws as draws

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered")

KEY = (0x421D21EB, 0x32D31777, 0x62E7564B, 0xDF2BDF82)
LOG2_K = 3


def _params(purpose, *extra):
    key = t8.purpose_key(*(np.uint64(k) for k in KEY), np.uint64(purpose))
    return np.array([*(int(k) for k in key), *extra], np.uint64)


_TABLE = tandem.ChoiceTable([2, 0.1, 0, 1, 5e-324, 0.7, 3.8, 0.001, 0.3])
LAWS = {
    "words": (np.uint32, None, None),
    "words64": (np.uint64, None, None),
    "uniform32": (np.float32, None, None),
    "uniform64": (np.float64, None, None),
    "exponential32": (np.float32, None, None),
    "exponential64": (np.float64, None, None),
    "normal64": (np.float64, _params(draws.PURPOSE_NORMAL64), draws.ZIGGURAT_TABLE),
    # range 2**31 + 1 rejects almost half of the draws
    "below32": (np.uint32, _params(draws.PURPOSE_BELOW32, 2**31 + 1, (2**32 - 2**31 - 1)
                                   % (2**31 + 1)), None),
    "below64": (np.uint64, _params(draws.PURPOSE_BELOW64, 2**63 + 1, (2**64 - 2**63 - 1)
                                   % (2**63 + 1)), None),
    "choice": (np.uint32, np.array([_TABLE.m, _TABLE.capacity], np.uint64),
               np.concatenate([_TABLE.cut, _TABLE.alias.astype(np.uint64)])),
    "normal32": (np.float32, None, None),
}


@pytest.mark.parametrize("law", list(LAWS))
@pytest.mark.parametrize("w0, n", [(0, 70), (6, 33), (148, 40), (255, 9)])
def test_kernel_equals_cpu(law, w0, n):
    dtype, params, table = LAWS[law]
    if law.endswith("64") and w0 % 2 or law == "choice" and w0 % 2:
        w0 += 1  # 64-bit draws start at an even word
    want = tandem_cpu.fill(law, KEY, LOG2_K, w0, np.zeros(n, dtype), params, table)
    got = tandem_cuda.fill(law, KEY, LOG2_K, w0, np.full(n, 7, dtype), params, table, threads=32)
    assert got.tobytes() == want.tobytes()


def test_a_miss_and_rejections_are_covered():
    # CROSS_NORMAL[3] of the conformance fixtures: start 4673, a miss at element 20.
    dtype, params, table = LAWS["normal64"]
    g = tandem.Tandem.from_key(KEY, 4673, 8)
    fast = [draws.normal64_fast(np.uint64(int(d)), table)[1] for d in g.bits(40,
                                                                            dtype=np.uint64)[0]]
    assert not all(fast)
    got = tandem_cuda.fill("normal64", KEY, LOG2_K, 148, np.zeros(40), params, table, threads=32)
    assert got.tobytes() == g.normal(40)[0].tobytes()
