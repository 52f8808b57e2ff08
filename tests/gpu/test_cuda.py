"""The CUDA backend on a real GPU: every bit equals the CPU's; cuRAND's streams.

    TANDEM_GPU=1 pytest tests/gpu

Skipped without ``TANDEM_GPU=1``, numba-cuda, CuPy and a GPU.  The last run
is recorded in ``docs/gpu-tests.md``.
"""

import numpy as np
import pytest

import tandem
from tandem import distributions as D
from test_invariance import FILLS, IDS, THREEFRY_TOO, addressed, fill

cp = pytest.importorskip("cupy")

CASES = [pytest.param(kind, *f, id=f"{kind.__name__}-{i}")
         for f, i in zip(FILLS, IDS) for kind in (tandem.Philox, tandem.Threefry)
         if kind is tandem.Philox or i in THREEFRY_TOO]
N = 2**20 + 5


def dtype_of(name, kwargs):
    if name == "choice":
        return np.uint32
    if name == "bernoulli":
        return np.bool_
    return kwargs.get("dtype", np.int64 if name == "integers" else np.float64)


@pytest.mark.parametrize("kind,name,args,kwargs", CASES)
@pytest.mark.parametrize("start,offset", [(0, 0), (1, 0), (2, 1), (3, 3), (2**64 - 8 * N, 0)])
def test_fill_equals_cpu(kind, name, args, kwargs, start, offset):
    """Whole fills from every word offset into aligned and misaligned ``out``."""
    stream = kind(2024).at(start)
    expected, end = fill(name, args, kwargs, stream, N)
    buffer = cp.zeros(N + offset, dtype=dtype_of(name, kwargs))
    got, got_end = getattr(D, name)(stream, *args, **kwargs, out=buffer[offset:])
    np.testing.assert_array_equal(got.get(), expected)
    assert got_end == end
    assert not buffer[:offset].any()


@pytest.mark.parametrize("kind,name,args,kwargs", CASES)
def test_addressed_equals_cpu(kind, name, args, kwargs):
    stream = kind(7).at(3)
    index = np.random.default_rng(1).integers(0, 2**40, 4096)
    expected = addressed(name, args, kwargs, stream, index)
    got = getattr(D, name + "_at")(stream, cp.asarray(index), *args, **kwargs)
    np.testing.assert_array_equal(got.get(), expected)


@pytest.mark.parametrize("name,dtype", [("normal", np.float64), ("normal", np.float32),
                                        ("exponential", np.float64),
                                        ("exponential", np.float32)])
def test_ziggurat_misses_on_the_gpu(name, dtype):
    """2**23 draws hold 36000 (normal f64) to 186000 (exponentials) ziggurat
    misses: tail, wedge, redraw."""
    stream = tandem.Philox(123456)
    expected = getattr(stream, name)(2**23, dtype=dtype, method="zig")[0]
    got = getattr(stream, name)(2**23, dtype=dtype, method="zig", device="cuda")[0].get()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("threads", [32, 96, 512])
def test_threads_per_block(threads):
    stream = tandem.Philox(3).at(1)
    for dtype in (np.float32, np.float64):
        expected = stream.normal(10**5, dtype=dtype)[0]
        got = stream.normal(10**5, dtype=dtype, device="cuda", threads=threads)[0]
        np.testing.assert_array_equal(got.get(), expected)


def test_out_from_torch_numba_and_jax():
    stream = tandem.Philox(11)
    expected = stream.random(1000, dtype=np.float32)[0]
    torch = pytest.importorskip("torch")
    t = torch.empty(1000, dtype=torch.float32, device="cuda")
    assert stream.random(out=t, dtype=np.float32)[0] is t
    np.testing.assert_array_equal(t.cpu().numpy(), expected)
    from numba import cuda

    d = cuda.device_array(1000, dtype=np.float32)
    stream.random(out=d, dtype=np.float32)
    np.testing.assert_array_equal(d.copy_to_host(), expected)
    jnp = pytest.importorskip("jax.numpy")
    j = jnp.zeros(1000, dtype=jnp.float32)
    new = stream.random(out=j, dtype=np.float32)[0]
    np.testing.assert_array_equal(np.asarray(new), expected)


def test_alias_table_from_device_weights():
    weights = np.random.default_rng(5).random(2**16)
    on_host, on_device = tandem.AliasTable(weights), tandem.AliasTable(cp.asarray(weights))
    np.testing.assert_array_equal(on_host.table, on_device.table)
    stream = tandem.Philox(8)
    got = stream.choice(on_device, 10**6, device="cuda")[0].get()
    np.testing.assert_array_equal(got, stream.choice(on_host, 10**6)[0])


CURAND = r'''
#include <curand_kernel.h>
extern "C" __global__ void words(unsigned long long seed, unsigned long long lane,
                                 unsigned long long offset, unsigned int* out, int n) {
    curandStatePhilox4_32_10_t state;
    curand_init(seed, lane, offset, &state);
    for (int i = 0; i < n; ++i) out[i] = curand(&state);
}'''


@pytest.mark.parametrize("seed,lane,offset", [
    (0, 0, 0), (123456, 7, 5), (2**64 - 1, 2**64 - 1, 2**64 - 41), (987654321987, 3, 2**40 + 3),
    (42, 2**33 + 1, 1), (2**63, 12345, 7)])
def test_curand_philox_is_the_same_stream(seed, lane, offset):
    """cuRAND's curand() after curand_init(seed, lane, offset) = Philox(seed, lane).at(offset)."""
    kernel = cp.RawKernel(CURAND, "words")
    theirs = cp.zeros(37, cp.uint32)
    kernel((1,), (1,), (cp.uint64(seed), cp.uint64(lane), cp.uint64(offset), theirs,
                        cp.int32(37)))
    ours = tandem.Philox(seed, lane=lane).at(offset).words(37)[0]
    np.testing.assert_array_equal(theirs.get(), ours)
    on_gpu = tandem.Philox(seed, lane=lane).at(offset).bits(37, device="cuda")[0]
    np.testing.assert_array_equal(on_gpu.get(), ours)


def test_sampling_on_the_gpu_equals_cpu():
    stream = tandem.Philox(21).at(3)
    weights = np.random.default_rng(2).random(5000)
    weights[::7] = 0.0
    population = np.arange(5000) * 3
    for replace in (True, False):
        for w in (None, weights):
            expected = stream.sample(population, w, 1000, replace=replace)[0]
            got = stream.sample(cp.asarray(population), None if w is None else cp.asarray(w),
                                1000, replace=replace)[0]
            np.testing.assert_array_equal(got.get(), expected)
    np.testing.assert_array_equal(stream.permutation(10**5, device="cuda")[0].get(),
                                  stream.permutation(10**5)[0])
    x = np.arange(20000).reshape(10000, 2)
    on_gpu = stream.shuffle(cp.asarray(x))[0]
    np.testing.assert_array_equal(on_gpu.get(), stream.shuffle(x.copy())[0])
