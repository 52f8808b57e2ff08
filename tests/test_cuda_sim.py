"""The CUDA backend's kernels, run by Numba's CUDA simulator, against the
reference backend (which other tests pin to the CPU backend, so no CPU kernel
compiles here).

``tests/conftest.py`` turns the simulator on (``NUMBA_ENABLE_CUDASIM=1``)
unless ``TANDEM_GPU=1``; the simulator runs every thread in Python, so the
sizes are small.  ``tests/gpu`` compares with the CPU on a real GPU.
"""

import dataclasses

import numpy as np
import pytest

import tandem
from tandem import distributions as D
from tandem.backends import cuda as cuda_backend

from test_invariance import FILLS, IDS, THREEFRY_TOO, fill

# The simulator evaluates core in plain NumPy scalars, where word_float's
# intended uint64 wrap-around warns.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered")

# Tandem8x32 runs its block function (one F and up to K steps a block) in the
# same kernels; the oracle reads its own transcription of the specification.
CASES = [pytest.param(kind, *f, id=f"{kind.__name__}-{i}")
         for f, i in zip(FILLS, IDS) for kind in (tandem.Philox, tandem.Threefry, tandem.Tandem)
         if kind is tandem.Philox or i in THREEFRY_TOO]


def on_cuda(name, args, kwargs, stream, n, out=None, threads=32):
    return getattr(D, name)(stream, *args, n, **kwargs, out=out, threads=threads,
                            backend="cuda")


@pytest.fixture(params=[False, True], ids=["one-group-a-thread", "persistent"])
def grid(request, monkeypatch):
    """Every kind on either grid (the simulated persistent grid is one block)."""
    registry = cuda_backend.kinds.KINDS
    for name, kind in list(registry.items()):
        persistent = request.param or kind.deferred  # a deferred fill needs its block lists
        monkeypatch.setitem(registry, name, dataclasses.replace(kind, persistent=persistent))


@pytest.mark.parametrize("kind,name,args,kwargs", CASES)
def test_every_fill_equals_cpu(kind, name, args, kwargs, grid):
    # start 5 shifts the groups by a word; 70 elements need a halo block
    # between CUDA blocks of 32 threads, a head and a tail.
    stream = kind(2024).at(5)
    expected, end = fill(name, args, kwargs, stream, 70, backend="reference")
    got, got_end = on_cuda(name, args, kwargs, stream, 70)
    np.testing.assert_array_equal(got, expected)
    assert got_end == end


@pytest.mark.parametrize("kind,name,args,kwargs", CASES)
def test_addressed_equals_cpu(kind, name, args, kwargs):
    stream = kind(7).at(3)
    index = np.array([0, 1, 2, 3, 64, 65, 1000, 5])
    expected = getattr(D, name + "_at")(stream, index, *args, **kwargs, backend="reference")
    got = getattr(D, name + "_at")(stream, index, *args, **kwargs, threads=32, backend="cuda")
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype,name,args", [
    (np.uint32, "bits", ()), (np.float64, "random", ()), (np.bool_, "bits", ()),
    (np.int8, "integers", (0, 100)), (np.int64, "integers", (0, 100)),
    (np.uint32, "choice", (tandem.AliasTable([1.0, 2.0, 3.0]),))])
@pytest.mark.parametrize("start", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("offset", [0, 1])
def test_any_start_and_alignment(dtype, name, args, start, offset):
    """Every word offset of the start and every misalignment of ``out``."""
    kwargs = {} if name == "choice" else {"dtype": dtype}
    stream = tandem.Philox(99).at(start)
    expected = fill(name, args, kwargs, stream, 41, backend="reference")[0]
    buffer = np.zeros(41 + offset, dtype=dtype)
    on_cuda(name, args, kwargs, stream, None, out=buffer[offset:])
    np.testing.assert_array_equal(buffer[offset:], expected)
    assert not buffer[:offset].any()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 9, 301])
@pytest.mark.parametrize("threads", [32, 64])
def test_lengths_and_block_sizes(n, threads):
    """Short fills, and 301 elements: the simulated grid is one block, which
    loops over the groups (and the shifted tiles) several times."""
    stream = tandem.Philox(5).at(1)
    for dtype in (np.float32, np.float64):
        expected = D.random(stream, n, dtype=dtype, backend="reference")[0]
        got = D.random(stream, n, dtype=dtype, threads=threads, backend="cuda")[0]
        np.testing.assert_array_equal(got, expected)


ZIGGURATS = [("normal", np.float64), ("normal", np.float32), ("exponential", np.float64),
             ("exponential", np.float32)]
ZIG = {"method": "zig"}


@pytest.mark.parametrize("name,dtype", ZIGGURATS)
def test_ziggurat_misses(name, dtype):
    """Element 29254 of Philox(123456).normal is a tail miss (docs/spec.md); the
    f32 and exponential ziggurats miss 1.5 to 2.2 % of 200 draws."""
    stream = tandem.Philox(123456).at(2 * 29250)
    expected = getattr(D, name)(stream, 200, dtype=dtype, **ZIG, backend="reference")[0]
    got = getattr(D, name)(stream, 200, dtype=dtype, **ZIG, threads=32, backend="cuda")[0]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name,dtype", ZIGGURATS)
def test_ziggurat_miss_list_overflow(monkeypatch, name, dtype):
    """With no room in the miss list the mending kernel scans for NaN marks."""
    monkeypatch.setattr(cuda_backend, "miss_capacity", lambda n, rate: 0)
    stream = tandem.Philox(123456).at(2 * 29250)
    expected = getattr(D, name)(stream, 200, dtype=dtype, **ZIG, backend="reference")[0]
    got = getattr(D, name)(stream, 200, dtype=dtype, **ZIG, threads=32, backend="cuda")[0]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("start", [0, 1])
@pytest.mark.parametrize("name,dtype", [("normal", np.float64), ("exponential", np.float32)])
@pytest.mark.parametrize("shared", [0, 8, 1024])
def test_misses_spill_and_drain_from_shared_memory(monkeypatch, request, shared, name, dtype,
                                                   start, grid):
    """The fill lists misses in shared memory, up to SHARED_MISSES a block,
    drains them to the global list between rounds once half full, and sends
    the rest straight to the global list: 0 and 8 make the 2048-element
    fill's misses drain and spill (it has about 9 normal64 and 45
    exponential32 misses); start 1 takes the shifted tiles."""
    monkeypatch.setattr(cuda_backend, "SHARED_MISSES", shared)
    cuda_backend._kernels.cache_clear()  # the kernels take SHARED_MISSES when made
    request.addfinalizer(cuda_backend._kernels.cache_clear)
    stream = tandem.Philox(123456).at(2 * 28000 + start)
    expected = getattr(D, name)(stream, 2048, dtype=dtype, **ZIG, backend="reference")[0]
    got = getattr(D, name)(stream, 2048, dtype=dtype, **ZIG, threads=64, backend="cuda")[0]
    np.testing.assert_array_equal(got, expected)


def test_bad_threads_per_block():
    with pytest.raises(ValueError, match="multiple of 32"):
        D.random(tandem.Philox(1), 10, threads=48, backend="cuda")


@pytest.mark.parametrize("address,start,width,itemsize,expected", [
    (0, 0, 1, 4, (0, 25, 0)),     # aligned: groups are stream blocks
    (0, 1, 1, 4, (0, 25, 1)),     # aligned out, start mid-block: shifted groups
    (4, 0, 1, 4, (3, 24, 3)),     # out one float past a boundary
    (8, 2, 2, 8, (1, 49, 0)),     # f64: the head realigns both
    (2, 0, 1, 4, (0, 25, 0)),     # unaligned address: follow the stream's blocks
    (0, 0, 1, 1, (0, 25, 0)),     # bool: 4-byte groups
])
def test_layout(address, start, width, itemsize, expected):
    assert cuda_backend.layout(100, start, width, itemsize, address) == expected


def test_the_walk_in_a_users_kernel_equals_the_cpu_fills():
    """benchmarks/walk_kernels.py: tandem.core in a user's @cuda.jit kernel gives
    the CPU's fills, summed in order, ziggurat misses included."""
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
    import walk_kernels

    steps, particles = 32, 32  # 1024 f64 draws: about 4 ziggurat misses
    walk32, walk64 = walk_kernels.philox_kernels(steps)
    walkers = tandem.Philox(2024).sub("walk")
    k0, k1, word, domain = walk_kernels.launch_args(walkers)
    out32, out64 = np.empty(particles, np.float32), np.empty(particles)
    walk32[1, particles](out32, k0, k1)
    table = np.array(tandem.core.normal.FAST_TABLE)  # the simulator copies arrays back
    walk64[1, particles](out64, k0, k1, word, domain, table)
    for p in range(particles):
        assert out32[p] == walk_kernels.expected_end(walkers, p, steps, np.float32)
        assert out64[p] == walk_kernels.expected_end(walkers, p, steps, np.float64)
    # The lanes' draws include ziggurat misses, so the continuation path ran.
    draws = np.concatenate([tandem.bits_at(walkers.split(p), np.arange(steps), dtype=np.uint64)
                            for p in range(particles)])
    layer, m = draws & np.uint64(1023), draws >> np.uint64(11)
    assert (m >= tandem.core.ziggurat_tables.K[layer]).any()


@pytest.mark.parametrize("steps, K", [(48, 32), (40, 2)])
def test_the_tandem_walk_in_a_users_kernel_equals_the_cpu_fills(steps, K):
    """benchmarks/walk_kernels.py's Tandem8x32 kernels: each particle's end point
    is its child's CPU fill summed in order, across a chunk boundary (K = 2),
    with a part row at the end and ziggurat misses resolved on the fallback."""
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
    import walk_kernels

    particles = 24
    walk32, walk64 = walk_kernels.tandem_kernels(steps)
    walkers = tandem.Tandem.from_key(tandem.Tandem(2024).sub("walk").key, K=K)
    args = walk_kernels.tandem_launch_args(walkers)
    out32, out64 = np.empty(particles, np.float32), np.empty(particles)
    walk32[1, particles](out32, *args)
    table = np.array(tandem.core.tandem_draws.ZIGGURAT_TABLE)
    walk64[1, particles](out64, *args, table)
    for p in range(particles):
        assert out32[p] == walk_kernels.expected_end(walkers, p, steps, np.float32)
        assert out64[p] == walk_kernels.expected_end(walkers, p, steps, np.float64)
    draws = np.concatenate([walkers.split(p).bits(steps, dtype=np.uint64)[0]
                            for p in range(particles)])
    layer, m = draws & np.uint64(1023), draws >> np.uint64(11)
    assert (m >= tandem.core.ziggurat_tables.K_FLOOR[layer]).any(), "no miss was drawn"
