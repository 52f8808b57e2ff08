"""Tandem8x32's CUDA kernels, run by Numba's CUDA simulator, against the CPU's.

``tests/conftest.py`` turns the simulator on (``NUMBA_ENABLE_CUDASIM=1``)
unless ``TANDEM_GPU=1``.  The simulator runs each thread in Python, so the
fills are small and ``K = 8``; they start on and off 16-byte boundaries, so
that both the vector stores and the element stores run.  The real GPU runs
the conformance suite itself (``tests/gpu/test_tandem8x32_gpu.py``).
"""

import numpy as np
import pytest
from numba import cuda  # a module global: the simulator swaps it inside kernels

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


@pytest.mark.parametrize("law", list(LAWS))
@pytest.mark.parametrize("w0, n, offset, threads", [
    (1, 1100, 0, 64), (2, 1300, 0, 64), (3, 800, 0, 64), (0, 900, 1, 64), (6, 1000, 3, 64),
    (0, 700, 0, 64),
    (1, 3500, 0, 32), (7, 3300, 0, 32), (2, 3100, 1, 32), (28, 3000, 0, 32), (32, 3200, 5, 32),
    (0, 3400, 0, 32)])
def test_whole_chunks_store_lines_however_the_fill_lies(law, w0, n, offset, threads):
    """Fills of several chunk groups (K = 8: 256 words a group), so that whole
    chunks take the test-free path: from starts on and off a block, into
    ``out`` on and off its 16-byte lines (``offset`` elements into an array).

    With 32 threads a CUDA block holds four chunk groups (1024 words), and
    the fills of 3000 and more cover whole blocks, which take the staged
    path, their lines starting anywhere in a row: at its start (``w0`` 0), a
    value into it, a block (``w0`` 32 into ``out`` 5 elements off its
    lines), or all but the last block (``w0`` 28)."""
    dtype, params, table = LAWS[law]
    if law.endswith("64") and w0 % 2 or law == "choice" and w0 % 2:
        w0 += 1  # 64-bit draws start at an even word
    want = tandem_cpu.fill(law, KEY, LOG2_K, w0, np.zeros(n, dtype), params, table)
    out = np.full(n + offset, 7, dtype)[offset:]
    got = tandem_cuda.fill(law, KEY, LOG2_K, w0, out, params, table, threads=threads)
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


from test_tandem8x32 import _check, _fill, _fill_cases, _fixture, _gen, _TYPES  # noqa: E402


@pytest.fixture
def on_simulated_gpu(monkeypatch):
    """Every fill of tandem.Tandem through the CUDA kernels, in the simulator."""
    monkeypatch.setattr(tandem.tandem8x32, "_backend", lambda out: tandem_cuda)


@pytest.mark.parametrize("case", _fill_cases())
def test_fixture_cases(case, on_simulated_gpu):
    values, after = _fill(_gen(case), case, case["n"])
    _check(case, values)
    if "end" in case:
        assert after.position == case["end"]


@pytest.mark.parametrize("stream", [pytest.param(s, id=s["file"].split("/")[-1])
                                    for s in _fixture("hashes.json")["streams"]
                                    if s["bytes"] <= 16384])
def test_stream_hashes(stream, on_simulated_gpu):
    import hashlib

    method, dtype = _TYPES[stream["type"]]
    g = _gen(stream)
    values, _ = g.chars(stream["n"]) if method == "chars" else getattr(g, method)(
        stream["n"], dtype=dtype)
    assert hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest() == \
        stream["sha256"]


def test_tandem_in_a_users_kernel():
    """tandem.core.for_cuda() gives Tandem's blocks and the spec's draws."""
    cc = tandem.core.for_cuda()
    table = np.array(draws.ZIGGURAT_TABLE)
    params = _params(draws.PURPOSE_NORMAL64)

    @cuda.jit
    def kernel(out, k0, k1, k2, k3, log2_k):
        i = cuda.grid(1)
        if i < out.size:
            b = np.uint64(i // 2)
            x0, x1, x2, x3 = cc.tandem8x32.block_at(k0, k1, k2, k3, log2_k, b)
            d = x0 | (x1 << np.uint64(32)) if i % 2 == 0 else x2 | (x3 << np.uint64(32))
            out[i] = cc.tandem_draws.normal64_of_draw(d, params, table, np.uint64(i), log2_k)

    out = np.zeros(24)
    kernel[1, 32](out, *(np.uint64(k) for k in KEY), np.uint64(LOG2_K))
    assert out.tobytes() == tandem.Tandem.from_key(KEY, 0, 8).normal(24)[0].tobytes()
