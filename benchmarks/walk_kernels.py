"""A Brownian walk in users' own CUDA kernels: tandem.core against cuRAND's device API.

Each thread walks one particle for ``steps`` steps of standard normal
increments and writes only its end point.  The tandem kernels are written
as a user would write them, with the functions of ``tandem.core.for_cuda()``:
particle ``p`` draws from lane ``p`` of one split key, so that its walk is
``walkers.split(p).normal(steps)`` summed in order, on any device.  The
cuRAND kernels use ``curand_init(seed, p, 0)`` and ``curand_normal4`` (f32)
or ``curand_normal2_double`` (f64), cuRAND's fastest normals on Philox.

Used by ``benchmarks/gpu.py`` and, under Numba's CUDA simulator, by
``tests/test_cuda_sim.py``.
"""

import numpy as np
from numba import cuda  # a module global: the CUDA simulator swaps it inside kernels

import tandem

U64 = np.uint64

CURAND = r"""
#include <curand_kernel.h>
extern "C" __global__ void walk32(float* out, unsigned long long seed, int n, int steps) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, p, 0, &state);
    float x = 0.0f;
    for (int t = 0; t < steps; t += 4) {
        float4 z = curand_normal4(&state);
        x += z.x; x += z.y; x += z.z; x += z.w;
    }
    out[p] = x;
}
extern "C" __global__ void walk64(double* out, unsigned long long seed, int n, int steps) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, p, 0, &state);
    double x = 0.0;
    for (int t = 0; t < steps; t += 2) {
        double2 z = curand_normal2_double(&state);
        x += z.x; x += z.y;
    }
    out[p] = x;
}
"""


def tandem_kernels(steps):
    """``(walk32, walk64)``: Numba CUDA kernels over Philox lanes.

    ``walk32(out, k0, k1)`` sums f32 normals, four per block (two Box-Muller
    pairs); ``walk64(out, k0, k1, c_word, c_domain, table)`` sums f64
    normals, two per block, with the ziggurat's misses resolved in place on
    each lane's continuation key (derived once per thread).
    """
    cc = tandem.core.for_cuda()
    philox = U64(cc.PHILOX)
    zero = U64(0)

    @cuda.jit
    def walk32(out, k0, k1):
        p = cuda.grid(1)
        if p < out.size:
            lane = U64(p)
            x = np.float32(0.0)
            for b in range(steps // 4):
                w0, w1, w2, w3 = cc.philox_block_at(k0, k1, zero, zero, lane, U64(b))
                c0, s0 = cc.normal_pair(w0, w1)
                c1, s1 = cc.normal_pair(w2, w3)
                x += c0
                x += s0
                x += c1
                x += s1
            out[p] = x

    @cuda.jit
    def walk64(out, k0, k1, word, domain, table):
        p = cuda.grid(1)
        if p < out.size:
            lane = U64(p)
            c0, c1, c2, c3 = cc.retry_key(philox, k0, k1, zero, zero, lane, word, domain)
            x = 0.0
            for b in range(steps // 2):
                w0, w1, w2, w3 = cc.philox_block_at(k0, k1, zero, zero, lane, U64(b))
                z, accepted = cc.normal64_fast_table(w0, w1, table)
                if not accepted:
                    z = cc.normal64_miss_table(philox, c0, c1, c2, c3, U64(4 * b), w0, w1, table)
                x += z
                z, accepted = cc.normal64_fast_table(w2, w3, table)
                if not accepted:
                    z = cc.normal64_miss_table(philox, c0, c1, c2, c3, U64(4 * b + 2), w2, w3,
                                               table)
                x += z
            out[p] = x

    return walk32, walk64


def launch_args(walkers):
    """The key words and purpose of the stream ``walkers``: particle ``p``
    walks on ``walkers.split(p)``."""
    k0, k1 = (U64(k) for k in walkers.split(0).key)
    word, domain = tandem.purpose_word("tandem.normal64")
    return k0, k1, U64(word), U64(domain)


def expected_end(walkers, p, steps, dtype):
    """Particle ``p``'s end point from the CPU fill, summed in order."""
    z = walkers.split(p).normal(steps, dtype=dtype)[0]
    return np.cumsum(z, dtype=dtype)[-1]
