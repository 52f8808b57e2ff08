"""A Brownian walk in users' own CUDA kernels: tandem.core against cuRAND's device API.

Each thread walks one particle for ``steps`` steps of standard normal
increments and writes only its end point.  The tandem kernels are written
as a user would write them, with the functions of ``tandem.core.for_cuda()``:
particle ``p`` walks on ``walkers.split(p)``, so that its end point is
``walkers.split(p).normal(steps)`` summed in order, on any device.  There
is one pair of kernels for Philox streams (:func:`philox_kernels`, lane
``p`` of one split key) and one for Tandem8x32 streams
(:func:`tandem_kernels`, the child key ``split(p)`` stepped in place).  The
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


def philox_kernels(steps):
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


#: A Tandem8x32 walk kernel; ``{row}`` steps the eight chunks of a row and
#: adds their draws.  The 64 state words stay in named variables, so that
#: they live in registers (in a local array indexed by the lane they went to
#: local memory: 0.16-0.18x cuRAND's, docs/performance.md), and hold uint32
#: (in uint64 words they took twice the registers).
_TANDEM_WALK = """
def walk(out, k0, k1, k2, k3, log2_k{table}):
    p = cuda.grid(1)
    if p < out.size:
        c0, c1, c2, c3 = split_key(k0, k1, k2, k3, U64(p))
        n0, n1, n2, n3 = purpose_key(c0, c1, c2, c3, purpose_normal64)
        {states} = zeros
        mask = (one << log2_k) - one
        x = start
        t = 0
        for r in range(rows):
            row = U64(r)
            fresh = row & mask == 0
{row}
        out[p] = x
"""
#: A row as eight copies of one lane's block, each on its own state names.
_UNROLLED_LANE = """
            if fresh:
                {s} = chunk_start(c0, c1, c2, c3, ((row >> log2_k) << three) | U64({lane}))
            {s} = step({s})
            x = add(x, t, {w}, n0, n1, n2, n3, log2_k{table})
            t += per_block
"""
#: A row as one lane's block in a loop: the states rotate through lane 0's
#: names after each block (64 moves), so that the kernel holds one copy of
#: the draw's code.  The f64 walk needs it: unrolled, the ziggurat's miss path
#: eight times over took 154 registers and spilled (0.07x cuRAND's against
#: 0.36x rotating, docs/performance.md).
_ROTATING_ROW = """
            for lane in range(8):
                if fresh:
                    {s} = chunk_start(c0, c1, c2, c3, ((row >> log2_k) << three) | U64(lane))
                {s} = step({s})
                x = add(x, t, {w}, n0, n1, n2, n3, log2_k{table})
                t += per_block
                {states} = {rotated}
"""


def tandem_kernels(steps):
    """``(walk32, walk64)``: Numba CUDA kernels over Tandem8x32 children.

    Both take ``(out, k0, k1, k2, k3, log2_k)``, the key of ``walkers`` and
    ``log2(K)`` (:func:`tandem_launch_args`), and ``walk64`` the ziggurat's
    table (``tandem.core.tandem_draws.ZIGGURAT_TABLE``, on the device) after
    them.  Thread ``p`` derives the key of ``split(p)`` and steps the eight
    chunks of its stream's rows in place (SPEC.md section 4): row ``r`` holds
    the blocks of chunks ``8 (r // K) .. 8 (r // K) + 7`` after ``r % K + 1``
    steps each, in that order.  ``walk32`` sums the Box-Muller pairs of the
    words in order (its rows unrolled, :data:`_UNROLLED_LANE`), ``walk64``
    the ziggurat normals of the 64-bit draws, with a miss continuing on
    ``split(g)`` of the child's ``purpose(P_N64)``, ``g`` the draw's index
    (its rows a loop, :data:`_ROTATING_ROW`).
    """
    cc = tandem.core.for_cuda()
    draws = cc.tandem_draws
    split_key, purpose_key = cc.tandem8x32.split_key, cc.tandem8x32.purpose_key
    chunk_start, step = _narrow32(cc.tandem8x32)
    thirty_two = U64(32)

    @cuda.jit(device=True)
    def add32(x, t, w0, w1, w2, w3, n0, n1, n2, n3, log2_k):
        """``x`` plus the four normals of a block's words, those before ``steps``."""
        z0, z1 = draws.box_muller32(U64(w0), U64(w1))
        z2, z3 = draws.box_muller32(U64(w2), U64(w3))
        if t < steps:
            x += z0
        if t + 1 < steps:
            x += z1
        if t + 2 < steps:
            x += z2
        if t + 3 < steps:
            x += z3
        return x

    @cuda.jit(device=True)
    def normal64(d, g, n0, n1, n2, n3, log2_k, table):
        z, accepted = draws.normal64_fast(d, table)
        if not accepted:
            m0, m1, m2, m3 = split_key(n0, n1, n2, n3, U64(g))
            z = draws.normal64_miss(m0, m1, m2, m3, log2_k, d, table)
        return z

    @cuda.jit(device=True)
    def add64(x, t, w0, w1, w2, w3, n0, n1, n2, n3, log2_k, table):
        """``x`` plus the normals of a block's two 64-bit draws, those before ``steps``."""
        if t < steps:
            x += normal64(U64(w0) | (U64(w1) << thirty_two), t, n0, n1, n2, n3, log2_k, table)
        if t + 1 < steps:
            x += normal64(U64(w2) | (U64(w3) << thirty_two), t + 1, n0, n1, n2, n3, log2_k,
                          table)
        return x

    def kernel(add, per_block, start, table, unrolled):
        names = [f"s{lane}_{i}" for lane in range(8) for i in range(8)]
        if unrolled:
            row = "".join(_UNROLLED_LANE.format(
                s=", ".join(names[8 * lane:8 * lane + 8]), lane=lane, table=table,
                w=", ".join(names[8 * lane:8 * lane + 4])) for lane in range(8))
        else:
            row = _ROTATING_ROW.format(s=", ".join(names[:8]), w=", ".join(names[:4]),
                                       table=table, states=", ".join(names),
                                       rotated=", ".join(names[8:] + names[:8]))
        source = _TANDEM_WALK.format(table=table, states=", ".join(names), row=row)
        scope = {"cuda": cuda, "split_key": split_key, "purpose_key": purpose_key,
                 "chunk_start": chunk_start, "step": step, "U64": U64, "add": add,
                 "start": start, "per_block": per_block, "rows": -(-steps // (8 * per_block)),
                 "purpose_normal64": U64(draws.PURPOSE_NORMAL64), "one": U64(1),
                 "three": U64(3), "zeros": (np.uint32(0),) * 64}
        exec(compile(source, f"<tandem walk, {per_block} a block>", "exec"), scope)
        return cuda.jit(scope["walk"])

    return (kernel(add32, 4, np.float32(0.0), "", unrolled=True),
            kernel(add64, 2, 0.0, ", table", unrolled=False))


def _narrow32(t8):
    """``(chunk_start, step)`` of ``tandem8x32`` (a ``for_cuda()`` namespace) on
    uint32 chunk states: the core's uint64 words, truncated, so that the
    compiler keeps each state word in one 32-bit register."""
    start, wide_step = t8.chunk_start, t8.step
    u32 = np.uint32

    @cuda.jit(device=True)
    def chunk_start(c0, c1, c2, c3, chunk):
        s = start(c0, c1, c2, c3, chunk)
        return (u32(s[0]), u32(s[1]), u32(s[2]), u32(s[3]),
                u32(s[4]), u32(s[5]), u32(s[6]), u32(s[7]))

    @cuda.jit(device=True)
    def step(s0, s1, s2, s3, s4, s5, s6, s7):
        s = wide_step(U64(s0), U64(s1), U64(s2), U64(s3), U64(s4), U64(s5), U64(s6), U64(s7))
        return (u32(s[0]), u32(s[1]), u32(s[2]), u32(s[3]),
                u32(s[4]), u32(s[5]), u32(s[6]), u32(s[7]))

    return chunk_start, step


def tandem_launch_args(walkers):
    """``(k0, k1, k2, k3, log2_k)`` of the Tandem stream ``walkers`` at position 0."""
    if walkers.position != 0:
        raise ValueError("the walk kernels read the children from position 0")
    return (*(U64(k) for k in walkers.key), U64(int(walkers.K).bit_length() - 1))


def launch_args(walkers):
    """The key words and purpose of the Philox stream ``walkers``: particle ``p``
    walks on ``walkers.split(p)``."""
    k0, k1 = (U64(k) for k in walkers.split(0).key)
    word, domain = tandem.purpose_word("tandem.normal64")
    return k0, k1, U64(word), U64(domain)


def expected_end(walkers, p, steps, dtype):
    """Particle ``p``'s end point from the CPU fill, summed in order."""
    z = walkers.split(p).normal(steps, dtype=dtype)[0]
    return np.cumsum(z, dtype=dtype)[-1]
