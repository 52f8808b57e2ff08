"""Probe for the CUDA backend (issue 4): does ``tandem.core`` give the CPU's bits on a GPU?

    python tools/gpu_probe.py      # on a machine with numba-cuda and CuPy

What it showed on the project's H200 (numba-cuda 0.30.4, 2026-11-29):
Philox words, the ziggurat's fast path, Box-Muller f32, exponential f64/f32,
log64, exp64 and sincos2pi64 over 2**19-2**20 inputs all equal the CPU bit
for bit, with 136 ``fma.rn.f64`` in the PTX.  What that took, and what the
CUDA backend must do the same way:

* numba-cuda keeps its own typing registries: every core function must also
  be registered with ``numba.cuda.extending.register_jitable`` (numba's
  ``register_jitable`` alone fails to type, e.g. ``and_(omitted, omitted)``);
* ``fma`` needs ``@overload(fma, target="cuda")`` returning ``cuda.fma``;
* ``np.divide`` on scalars needs a CUDA overload (``a / b``), and
  ``np.sqrt`` is not a CUDA ufunc here (core uses ``math.sqrt``).

:func:`tandem.core.register_cuda` now does all of that.

Its last part, a CuPy RawKernel (``curand_init(seed, lane, offset)`` then
``curand()``), gave the same words as ``Philox(seed, lane=lane).at(offset)``
for (0, 0, 0), (123456, 7, 5), (2**64 - 1, 2**64 - 1, 2**64 - 9) and
(987654321987, 3, 2**40 + 3).
"""
import traceback
import numpy as np
from numba import cuda
import tandem
from tandem import core
core.register_cuda()
from tandem.core import fmath

from tandem.core.addressing import philox_block_at
from tandem.core.normal import normal64_fast, normal_pair, exponential64, exponential_word
from tandem.core.fmath import log64, exp64, sincos2pi64
U = np.uint64

@cuda.jit
def k_words(k0, k1, lane, out):
    b = cuda.grid(1)
    if b < out.shape[0]:
        x0, x1, x2, x3 = philox_block_at(U(k0), U(k1), U(0), U(0), U(lane), U(b))
        out[b, 0] = x0; out[b, 1] = x1; out[b, 2] = x2; out[b, 3] = x3

@cuda.jit
def k_values(words, n64, acc, n32, e64, e32, u, lg, ex, sn, cs):
    i = cuda.grid(1)
    if i < n64.shape[0]:
        lo = U(words[2 * i]); hi = U(words[2 * i + 1])
        v, a = normal64_fast(lo, hi)
        n64[i] = v; acc[i] = a
        e64[i] = exponential64(lo, hi)
        c, s = normal_pair(lo, hi)
        n32[2 * i] = np.float32(fmath.fma(c, 1.0, 0.0)); n32[2 * i + 1] = np.float32(fmath.fma(s, 1.0, 0.0))
        e32[2 * i] = np.float32(exponential_word(lo)); e32[2 * i + 1] = np.float32(exponential_word(hi))
        x = u[i]
        lg[i] = log64(x); ex[i] = exp64(-40.0 * x); s2, c2 = sincos2pi64(x); sn[i] = s2; cs[i] = c2

try:
    n = 1 << 20
    s = tandem.Philox(123456, lane=5)
    out = cuda.device_array((n // 4, 4), np.uint64)
    k_words[(n // 4 + 255) // 256, 256](123456, 0, 5, out)
    gpu_words = out.copy_to_host().reshape(-1)
    cpu_words = s.words(n)[0].astype(np.uint64)
    print("philox words equal:", np.array_equal(gpu_words, cpu_words))
    m = n // 2
    u = (np.arange(m, dtype=np.float64) + 1) / (m + 1)
    outs = [cuda.device_array(m), cuda.device_array(m, np.bool_), cuda.device_array(n, np.float32),
            cuda.device_array(m), cuda.device_array(n, np.float32)]
    mouts = [cuda.device_array(m) for _ in range(4)]
    k_values[(m + 255) // 256, 256](cuda.to_device(cpu_words), *outs, cuda.to_device(u), *mouts)
    n64, acc, n32, e64, e32 = [o.copy_to_host() for o in outs]
    lg, ex, sn, cs = [o.copy_to_host() for o in mouts]
    ref64 = s.normal(m)[0]; ref32 = s.normal(n, dtype=np.float32)[0]
    print("normal64 fast path equal where accepted:", np.array_equal(n64[acc], ref64[acc]), "misses", int((~acc).sum()))
    print("normal32 equal:", np.array_equal(n32, ref32), "diffs", int((n32 != ref32).sum()))
    print("exp64 equal:", np.array_equal(e64, s.exponential(m)[0]), "exp32 equal:", np.array_equal(e32, s.exponential(n, dtype=np.float32)[0]))
    import numba
    @numba.njit
    def cpu_math(u, lg, ex, sn, cs):
        for i in range(u.size):
            lg[i] = log64(u[i]); ex[i] = exp64(-40.0 * u[i]); a, b = sincos2pi64(u[i]); sn[i] = a; cs[i] = b
    c = [np.empty(m) for _ in range(4)]
    cpu_math(u, *c)
    for name, g, h in zip(["log64", "exp64", "sin", "cos"], [lg, ex, sn, cs], c):
        print(name, "equal:", np.array_equal(g, h), "diffs", int((g != h).sum()))
    ptx = k_values.inspect_asm(k_values.signatures[0])
    print("PTX fma.rn.f64:", ptx.count("fma.rn.f64"), "mul.rn.f64:", ptx.count("mul.rn.f64"), "mul.f64", ptx.count("mul.f64"), "div", ptx.count("div.rn.f64"))
except Exception:
    traceback.print_exc()

try:
    import cupy as cp

    source = r'''
    #include <curand_kernel.h>
    extern "C" __global__ void words(unsigned long long seed, unsigned long long lane,
                                     unsigned long long offset, unsigned int* out, int n) {
        curandStatePhilox4_32_10_t state;
        curand_init(seed, lane, offset, &state);
        for (int i = 0; i < n; ++i) out[i] = curand(&state);
    }'''
    kernel = cp.RawKernel(source, "words")
    for seed, lane, offset in [(0, 0, 0), (123456, 7, 5), (2**64 - 1, 2**64 - 1, 2**64 - 9),
                               (987654321987, 3, 2**40 + 3)]:
        theirs = cp.zeros(9, cp.uint32)
        kernel((1,), (1,), (cp.uint64(seed), cp.uint64(lane), cp.uint64(offset), theirs,
                            cp.int32(9)))
        ours = tandem.Philox(seed, lane=lane).at(offset).words(9)[0]
        print("curand", seed, lane, offset, "equal:", np.array_equal(theirs.get(), ours))
except Exception:
    traceback.print_exc()
