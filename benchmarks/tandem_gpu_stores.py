"""Issue 41's probe: which store pattern lets a Tandem8x32 fill reach memset on a GPU.

    python benchmarks/tandem_gpu_stores.py [--log2n 28] [--rounds 7]

A Tandem8x32 fill runs one thread a chunk: one F, then K steps, block ``j``
of chunk ``8 g + lane`` landing in row ``g K + j``.  The eight threads of a
chunk group write one 128-byte row a step, so a warp's store covers four
lines ``128 K`` bytes apart, and every thread in flight writes the same
row offset of its group.  The probe times, in one run, raw 32-bit fills of
``2**log2n`` words (K = 32) written by:

* ``library``: :func:`tandem.backends.tandem_cuda.fill` as it stands;
* ``direct``: one thread a chunk, a 16-byte store a step, no per-element
  bounds (whole groups only);
* ``staged S`` (4, 8): one thread a chunk, ``S`` steps of a block's 32 groups staged
  in shared memory, then written back as 512 contiguous bytes a warp;
* ``direct pattern, no steps``: ``direct``'s stores of constants (the store
  pattern alone);
* ``memset``: a 16-byte store a thread, contiguous (the write roof);
* ``steps, no stores``: ``direct``'s steps, one word a thread written.

Each variant's values are checked against ``library``'s before timing.
Rounds alternate the variants; the table gives medians of ``--rounds``.
"""

import argparse
import statistics

import numpy as np
from numba import cuda, uint32

import tandem
from tandem import _twin
from tandem.backends.cuda import SIMULATED, store_group

U64 = np.uint64
_t8 = _twin.module("core.tandem8x32")
THREADS = 256  # 32 chunk groups a CUDA block


@cuda.jit
def direct(out, k0, k1, k2, k3, log2_k, groups):
    t = cuda.grid(1)
    group, lane = U64(t >> 3), U64(t & 7)
    if group >= groups:
        return
    o0, o1, o2, o3, h0, h1, h2, h3 = _t8.chunk_start(k0, k1, k2, k3, (group << U64(3)) | lane)
    base = (group << (log2_k + U64(5))) | (lane << U64(2))
    for j in range(1 << log2_k):
        o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
        store_group(out, base + (U64(j) << U64(5)), (o0, o1, o2, o3))


@cuda.jit
def pattern_only(out, k0, k1, k2, k3, log2_k, groups):
    t = cuda.grid(1)
    group, lane = U64(t >> 3), U64(t & 7)
    if group >= groups:
        return
    base = (group << (log2_k + U64(5))) | (lane << U64(2))
    for j in range(1 << log2_k):
        v = U64(j) ^ k0
        store_group(out, base + (U64(j) << U64(5)), (v, v, v, v))


@cuda.jit
def steps_only(out, k0, k1, k2, k3, log2_k, groups):
    t = cuda.grid(1)
    group, lane = U64(t >> 3), U64(t & 7)
    if group >= groups:
        return
    o0, o1, o2, o3, h0, h1, h2, h3 = _t8.chunk_start(k0, k1, k2, k3, (group << U64(3)) | lane)
    x = U64(0)
    for j in range(1 << log2_k):
        o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
        x ^= o0 ^ o1 ^ o2 ^ o3
    out[t] = x


@cuda.jit
def memset(out, k0, k1, k2, k3, log2_k, groups):
    t = cuda.grid(1)
    stride = cuda.gridsize(1)
    v = k0
    for i in range(t, out.size // 4, stride):
        store_group(out, 4 * i, (v, v, v, v))


def staged(steps):
    """One thread a chunk; ``steps`` steps of the block's 32 groups staged in
    shared memory (word ``q`` of thread ``t`` at ``s * 4 * THREADS + q * THREADS + t``,
    conflict-free), then written as 512 contiguous bytes a warp."""
    plane = THREADS
    size = steps * 4 * THREADS
    rounds = steps * THREADS * 4 // (4 * THREADS)  # 16-byte pieces a thread
    per_group = steps * 8  # 16-byte pieces of a group's staged rows

    @cuda.jit
    def kernel(out, k0, k1, k2, k3, log2_k, groups):
        sh = cuda.shared.array(size, uint32)
        tid = cuda.threadIdx.x
        t = cuda.blockIdx.x * THREADS + tid
        group, lane = U64(t >> 3), U64(t & 7)
        g0 = U64(cuda.blockIdx.x * (THREADS // 8))
        o0, o1, o2, o3, h0, h1, h2, h3 = _t8.chunk_start(k0, k1, k2, k3,
                                                          (group << U64(3)) | lane)
        for j0 in range(0, 1 << log2_k, steps):
            for s in range(steps):
                o0, o1, o2, o3, h0, h1, h2, h3 = _t8.step(o0, o1, o2, o3, h0, h1, h2, h3)
                at = s * 4 * plane + tid
                sh[at] = uint32(o0)
                sh[at + plane] = uint32(o1)
                sh[at + 2 * plane] = uint32(o2)
                sh[at + 3 * plane] = uint32(o3)
            cuda.syncthreads()
            for r in range(rounds):
                p = r * THREADS + tid
                g, q = p // per_group, p % per_group
                s, ln = q >> 3, q & 7
                src = s * 4 * plane + g * 8 + ln
                w = ((g0 + U64(g)) << (log2_k + U64(5))) + (U64(j0 + s) << U64(5)) + \
                    (U64(ln) << U64(2))
                if g0 + U64(g) < groups:
                    store_group(out, w, (sh[src], sh[src + plane], sh[src + 2 * plane],
                                         sh[src + 3 * plane]))
            cuda.syncthreads()

    return kernel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    from tandem.backends import tandem_cuda

    stream = tandem.Tandem(2024)
    key = tuple(U64(k) for k in stream.key)
    log2_k = U64(5)
    n = 1 << args.log2n
    def launcher(kernel, chunks=None):
        def launch(out):
            g = U64(out.size >> 10)
            blocks = (int(g) * 8 + THREADS - 1) // THREADS if chunks is None else chunks
            kernel[blocks, THREADS](out, *key, log2_k, g)
        return launch

    def library(out):
        if SIMULATED:  # the simulator's fills take NumPy arrays
            out.copy_to_device(tandem_cuda.fill("words", stream.key, 5, 0,
                                                np.empty(out.size, np.uint32)))
        else:
            tandem_cuda.fill("words", stream.key, 5, 0, out)

    variants = {
        "library": library,
        "direct": launcher(direct),
        "staged 4": launcher(staged(4)),
        "staged 8": launcher(staged(8)),
        "direct pattern, no steps": launcher(pattern_only),
        "memset": launcher(memset, 132 * 16),
        "steps, no stores": launcher(steps_only),
    }
    out = cuda.device_array(n, np.uint32)
    small = cuda.device_array(min(n, 1 << 24), np.uint32)
    reference = None
    for name in ("library", "direct", "staged 4", "staged 8"):
        small[:] = 0xDEADBEEF
        variants[name](small)
        values = small.copy_to_host()
        if reference is None:
            reference = values
            assert np.array_equal(values[:8], stream.words(8)[0]), "library != Tandem.words"
        print(f"{name}: values {'equal' if np.array_equal(values, reference) else 'DIFFER'}")
    for fn in variants.values():  # compile and warm
        fn(out)
    cuda.synchronize()
    times = {name: [] for name in variants}
    start, stop = cuda.event(), cuda.event()
    for _ in range(args.rounds):
        for name, fn in variants.items():
            start.record()
            for _ in range(args.calls):
                fn(out)
            stop.record()
            stop.synchronize()
            times[name].append(start.elapsed_time(stop) / args.calls)
    roof = max(statistics.median(times["memset"]), 1e-9)  # the simulator times 0
    name = "simulator" if SIMULATED else cuda.get_current_device().name
    device = name.decode() if isinstance(name, bytes) else name
    print(f"\n{device}: 2**{args.log2n} words, K = 32, "
          f"medians of {args.rounds} rounds of {args.calls} calls\n")
    print("| variant | ms | TB/s | of memset |\n| --- | --- | --- | --- |")
    for name, ts in times.items():
        ms = max(statistics.median(ts), 1e-9)
        print(f"| {name} | {ms:.3f} | {4 * n / ms / 1e9:.2f} | {roof / ms:.0%} |")


if __name__ == "__main__":
    main()
