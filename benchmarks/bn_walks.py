"""Order MCMC's node-sum walks alone, GPU against CPU: the roof of the chains' speed-up.

    python benchmarks/bn_walks.py [--networks DIR] [--network hepar2] [--k 3]
                                  [--orders 4096] [--cpu-orders 256] [--repeats 5]

An iteration of order MCMC is node sums (:mod:`tandem.bn.order_sums`): fresh
ones, over every allowed parent set of a node at the scale of its largest
allowed weight, and the incremental rule's, over the sets that hold the
candidate that moved.  This times those walks with none of the chains'
rules around them, on random orders of one table (1,000 rows, BDeu):

* ``fresh``: every node of each order;
* ``holding``: each node but the first, with its predecessor swapped past it
  (the sets that hold the predecessor and otherwise the node's allowed
  candidates: the incremental rule of an adjacent swap), at the scale 2**51.

The CPU runs tandem's own walks (``node_sums.order_totals``; ``node_sums.allowed``
and ``node_sums.holding_sum``), Numba's threads over the orders, with every core
and then with one thread.  The GPU runs the walk of the chain kernel
(:mod:`tandem.bn.cuda_mcmc`): a block a node sum, its threads on consecutive
ranks, a set allowed where its slot mask (``cuda_mcmc.set_tables``) holds no
forbidden slot, the holding lists cut at the highest allowed slot.  Every
GPU sum is checked equal to the CPU's, limb for limb.  The chains' GPU/CPU
ratio cannot go past these walks' (the chains add serial rules, barriers and
moves to them).
"""

import argparse
import os
import platform
import sys
import time

import numba
import numpy as np
from numba import cuda

import tandem
from tandem import _twin, bn
from tandem.bn import cuda_mcmc, mcmc, order_sums
from tandem.bn import node_sums

sys.path.insert(0, os.path.dirname(__file__))
import bn_gpu  # noqa: E402  (its datasets)


@numba.njit(parallel=True, cache=True)
def cpu_holding(orders, kt, factor, out):
    """``out[o, p - 1]``: the normalised limbs of the sets of ``orders[o, p]`` that hold
    ``orders[o, p - 1]``, with that predecessor swapped past it."""
    n = orders.shape[1]
    m = kt.candidates.shape[1]
    k = kt.subsets.shape[1]
    for o in numba.prange(orders.shape[0]):
        pos = np.empty(n, dtype=np.int64)
        for q in range(n):
            pos[orders[o, q]] = q
        flags = np.empty(m)
        members = np.empty(m, dtype=np.int64)
        idx = np.empty(max(k, 1), dtype=np.int64)
        for p in range(1, n):
            v = orders[o, p]
            u = orders[o, p - 1]
            pos[v], pos[u] = p - 1, p
            count = node_sums.allowed(v, pos, kt.candidates, flags, members)
            h, l, _ = node_sums.holding_sum(kt.weights[v], kt.offsets, kt.binom, members, count,
                                        kt.slots[u, v], k, idx, factor)
            out[o, p - 1, 0], out[o, p - 1, 1] = order_sums.normalised(h, l)
            pos[v], pos[u] = p, p - 1


def cpu_fresh(orders, kt):
    """Each order's node sums ``(hi, lo, e)``, as the chains keep them."""
    sums = np.empty((orders.shape[0], orders.shape[1], 3), dtype=np.int64)
    scores = np.empty(orders.shape[1])
    for o in range(orders.shape[0]):
        node_sums.order_node_sums(orders[o], kt, scores, sums[o])
    return sums


def gpu_kernels(words, k, threads):
    """The fresh and holding walks, a block of ``threads`` a node sum."""
    osums = _twin.module("bn.order_sums")
    osums.register_cuda()
    limb, limb_mask, min_exponent = osums.LIMB, osums.LIMB_MASK, osums.MIN_EXPONENT

    @cuda.jit(device=True)
    def inside(masks, r, forbidden):
        outside = np.int64(0)
        for q in range(words):
            outside |= masks[q, r] & forbidden[q]
        return outside == 0

    @cuda.jit(device=True)
    def added(hi, lo, w, factor):
        t = osums.term(w, factor)
        return hi + (t >> limb), lo + (t & limb_mask)

    @cuda.jit(device=True)
    def reduced(red, tid, hi, lo, largest):
        red[0, tid] = hi
        red[1, tid] = lo
        red[2, tid] = largest
        half = threads // 2
        while half > 0:
            cuda.syncthreads()
            if tid < half:
                red[0, tid] += red[0, tid + half]
                red[1, tid] += red[1, tid + half]
                red[2, tid] = max(red[2, tid], red[2, tid + half])
            half //= 2
        cuda.syncthreads()
        hi, lo, largest = red[0, 0], red[1, 0], red[2, 0]
        cuda.syncthreads()
        return hi, lo, largest

    @cuda.jit(device=True)
    def load(forbidden_rows, b, forbidden):
        for q in range(words):
            forbidden[q] = forbidden_rows[b, q]

    @cuda.jit
    def fresh(weights, masks, offsets, binom, forbidden_rows, limits, n, out):
        b = cuda.blockIdx.x
        tid = cuda.threadIdx.x
        red = cuda.shared.array((3, threads), np.int64)
        forbidden = cuda.local.array(words, np.int64)
        load(forbidden_rows, b, forbidden)
        row = weights[b % n]
        limit = limits[b]
        largest = np.int64(0)
        for s in range(k + 1):
            for r in range(offsets[s] + tid, offsets[s] + binom[limit, s], threads):
                if inside(masks, r, forbidden):
                    largest = max(largest, osums.weight_bits(row[r]))
        _, _, largest = reduced(red, tid, 0, 0, largest)
        e = osums.exponent(largest)
        if e < min_exponent:
            if tid == 0:
                out[b, 0] = -1
                out[b, 1] = -1
                out[b, 2] = osums.OWN_SCALE
            return
        factor = osums.scale(e)
        hi = np.int64(0)
        lo = np.int64(0)
        for s in range(k + 1):
            for r in range(offsets[s] + tid, offsets[s] + binom[limit, s], threads):
                if inside(masks, r, forbidden):
                    hi, lo = added(hi, lo, row[r], factor)
        hi, lo, _ = reduced(red, tid, hi, lo, 0)
        if tid == 0:
            out[b, 0], out[b, 1] = osums.normalised(hi, lo)
            out[b, 2] = e

    @cuda.jit
    def holding(weights, masks, holding_rows, holding_ends, forbidden_rows, limits, moved,
                nodes, factor, out):
        b = cuda.blockIdx.x
        tid = cuda.threadIdx.x
        red = cuda.shared.array((3, threads), np.int64)
        forbidden = cuda.local.array(words, np.int64)
        load(forbidden_rows, b, forbidden)
        row = weights[nodes[b]]
        w = moved[b]
        hi = np.int64(0)
        lo = np.int64(0)
        for i in range(tid, holding_ends[w, max(limits[b], w + 1)], threads):
            r = holding_rows[w, i]
            if inside(masks, r, forbidden):
                hi, lo = added(hi, lo, row[r], factor)
        hi, lo, _ = reduced(red, tid, hi, lo, 0)
        if tid == 0:
            out[b, 0], out[b, 1] = osums.normalised(hi, lo)

    return fresh, holding


def pack(allowed):
    """Boolean slots (..., m) as the complement masks of ``cuda_mcmc``: int64 words."""
    m = allowed.shape[-1]
    words = cuda_mcmc._words(m)
    bits = np.zeros(allowed.shape[:-1] + (words * 64,), dtype=bool)
    bits[..., :m] = ~allowed
    bits[..., m:] = True
    packed = np.packbits(bits.reshape(bits.shape[:-1] + (words, 64)), axis=-1,
                         bitorder="little")
    return np.ascontiguousarray(packed).view(np.int64)[..., 0]


def limit_of(allowed):
    """One more than the highest allowed slot (0 where none is)."""
    m = allowed.shape[-1]
    return np.where(allowed.any(-1), m - np.argmax(allowed[..., ::-1], axis=-1), 0)


def walks(kt, orders):
    """The blocks' inputs: fresh (forbidden, limits) for every (order, node); holding
    (forbidden, limits, moved slots, nodes) for every (order, position >= 1)."""
    n_orders, n = orders.shape
    candidates = kt.candidates
    pos = np.empty_like(orders)
    np.put_along_axis(pos, orders, np.arange(n)[None, :], axis=1)
    cand_pos = np.where(candidates >= 0, pos[:, np.maximum(candidates, 0)], n)  # (O, n, m)
    allowed = cand_pos < pos[:, :, None]
    fresh = (pack(allowed).reshape(n_orders * n, -1), limit_of(allowed).reshape(-1))
    v = orders[:, 1:]
    u = orders[:, :-1]
    moved = kt.slots[u, v]
    if np.any(moved < 0):
        raise ValueError("the walks need every node a candidate parent of every other")
    rows = np.arange(n_orders)[:, None]
    others = allowed[rows, v] & (cand_pos[rows, v] != pos[rows, u][..., None])
    limits = limit_of(others)
    permitted = others.copy()
    np.put_along_axis(permitted, moved[..., None], True, axis=-1)
    held = (pack(permitted).reshape(-1, fresh[0].shape[1]), limits.reshape(-1),
            moved.reshape(-1), v.reshape(-1))
    return fresh, held, allowed, others


def median_rate(times, count):
    return count / float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                           "shared", "data", "networks"))
    parser.add_argument("--network", default="hepar2")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--orders", type=int, default=4096, help="random orders, GPU")
    parser.add_argument("--cpu-orders", type=int, default=256, help="of those, the CPU's")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[32, 128],
                        help="GPU threads a block")
    args = parser.parse_args()
    cores = numba.get_num_threads()
    print(f"{time.strftime('%Y-%m-%d')}; GPU {bn_gpu.gpu_name()}; CPU "
          f"{platform.processor() or '?'} ({os.cpu_count()} cores, {cores} Numba threads); "
          f"tandem {tandem.__version__}, numba {numba.__version__}")
    data = bn_gpu.dataset(args.network, 1000, args.networks)
    table = bn.score_table(data, max_parents=args.k, progress=False)
    kt = mcmc._Prepared(table).kernel
    n, m = kt.candidates.shape
    rng = np.random.default_rng(1)
    orders = np.argsort(rng.random((args.orders, n)), axis=1).astype(np.int64)
    cpu_orders = orders[:args.cpu_orders]
    (f_forbidden, f_limits), held, allowed, others = walks(kt, orders)
    masks, holding_rows, holding_ends = cuda_mcmc.set_tables(kt.subsets, m)
    factor = order_sums.scale(0)

    # allowed sets a sum and ranks a GPU walk visits (the sets of slots below the limit)
    binom = kt.binom
    ranks_fresh = float(np.mean(binom[f_limits].sum(axis=-1)))
    sets_fresh = float(np.mean(binom[allowed.sum(-1)].sum(axis=-1)))
    ranks_held = float(np.mean(holding_ends[held[2], np.maximum(held[1], held[2] + 1)]))
    sets_held = float(np.mean(binom[others.sum(-1), :-1].sum(axis=-1)))

    device = [cuda.to_device(a) for a in (kt.weights, masks, kt.offsets, kt.binom, f_forbidden,
                                          f_limits, holding_rows, holding_ends, *held)]
    weights_d, masks_d, offsets_d, binom_d, ff_d, fl_d, hr_d, he_d, hf_d, hl_d, hm_d, hn_d = \
        device
    fresh_out = cuda.device_array((len(f_limits), 3), np.int64)
    held_out = cuda.device_array((len(held[1]), 2), np.int64)
    kernels = {t: gpu_kernels(masks.shape[0], kt.subsets.shape[1], t) for t in args.threads}

    def gpu_fresh(threads):
        kernels[threads][0][len(f_limits), threads](weights_d, masks_d, offsets_d, binom_d,
                                                    ff_d, fl_d, n, fresh_out)

    def gpu_holding(threads):
        kernels[threads][1][len(held[1]), threads](weights_d, masks_d, hr_d, he_d, hf_d, hl_d,
                                                   hm_d, hn_d, factor, held_out)

    held_cpu = np.empty((len(cpu_orders), n - 1, 2), np.int64)

    def timed(fn, *a):
        cuda.synchronize()
        t0 = time.perf_counter()
        fn(*a)
        cuda.synchronize()
        return time.perf_counter() - t0

    # compile, and check every GPU sum against the CPU's
    fresh_ref = cpu_fresh(cpu_orders, kt).reshape(-1, 3)
    node_sums.order_totals(cpu_orders, kt)
    cpu_holding(cpu_orders, kt, factor, held_cpu)
    equal = {}
    for t in args.threads:
        gpu_fresh(t)
        gpu_holding(t)
        got_f = fresh_out.copy_to_host()[:len(fresh_ref)]
        own = fresh_ref[:, 2] == order_sums.OWN_SCALE
        got_h = held_out.copy_to_host()[:held_cpu.size // 2]
        equal[t] = (bool(np.array_equal(got_f[own, 2], fresh_ref[own, 2])
                         and np.array_equal(got_f[~own], fresh_ref[~own]))
                    and bool(np.array_equal(got_h, held_cpu.reshape(-1, 2))))
    times = {}
    for _ in range(args.repeats):
        for threads in (cores, 1):
            numba.set_num_threads(threads)
            times.setdefault(("fresh", f"cpu{threads}"), []).append(
                timed(node_sums.order_totals, cpu_orders, kt))
            times.setdefault(("holding", f"cpu{threads}"), []).append(
                timed(cpu_holding, cpu_orders, kt, factor, held_cpu))
        numba.set_num_threads(cores)
        for t in args.threads:
            times.setdefault(("fresh", f"gpu{t}"), []).append(timed(gpu_fresh, t))
            times.setdefault(("holding", f"gpu{t}"), []).append(timed(gpu_holding, t))

    print(f"{args.network}, {n} nodes, k = {args.k}, {kt.subsets.shape[0]:,} sets a node, "
          f"1,000 rows, BDeu; {args.orders:,} random orders on the GPU, the first "
          f"{args.cpu_orders:,} on the CPU; medians of {args.repeats} runs, in turn")
    print()
    header = ("| walk | GPU threads a block | ranks a GPU walk | allowed sets a sum | "
              f"CPU ({cores} threads) sums/s | CPU (1 thread) sums/s | GPU sums/s | "
              f"GPU / CPU ({cores}) | GPU / CPU (1) | equal |")
    print(header)
    print("| " + " | ".join(["---"] * (header.count("|") - 1)) + " |")
    counts = {"fresh": (len(cpu_orders) * n, len(orders) * n, ranks_fresh, sets_fresh),
              "holding": (len(cpu_orders) * (n - 1), len(orders) * (n - 1), ranks_held,
                          sets_held)}
    for walk, (cpu_sums, gpu_sums, ranks, sets) in counts.items():
        many = median_rate(times[(walk, f"cpu{cores}")], cpu_sums)
        one = median_rate(times[(walk, "cpu1")], cpu_sums)
        for t in args.threads:
            gpu = median_rate(times[(walk, f"gpu{t}")], gpu_sums)
            print(f"| {walk} | {t} | {ranks:,.0f} | {sets:,.0f} | {many:.3g} | {one:.3g} | "
                  f"{gpu:.3g} | {gpu / many:.3g}x | {gpu / one:.3g}x | {equal[t]} |",
                  flush=True)


if __name__ == "__main__":
    main()
