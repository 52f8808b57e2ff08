"""Issue 40's design probe: generators and laws as independent axes on the CPU.

    python benchmarks/axes_probe.py [--kinds normal64 gamma64 ...] [--log2n 24]

Today a kind's fill is a ``parallel=True`` kernel per kind and generator, the
bijection and the map inlined at Numba's IR level.  The probe splits them:

* a generator is one ``cfunc`` that writes the words of up to ``TILE`` blocks,
  lane-major (``words[r * TILE + j]`` is word ``r`` of block ``j``), so that the
  bijection vectorises; it is compiled once a generator;
* a kind is one serial ``nogil`` kernel over a range of blocks, for every
  generator: it calls the tile function through its address, maps the words
  (vectorised), and mends the misses element by element (the generic
  ``core.addressing.block_at``, a switch on the generator);
* threads: the blocks cut into one contiguous range a thread, each range one
  call of the kernel from a ``ThreadPoolExecutor`` (cut-invariant: any range
  gives the elements' own values).

It prints, for each kind, the seconds of its first fill with an empty compile
cache (a new process each, today's vectorised kernel against the probe's
kernel, the probe's tile functions compiled beforehand), and the fill's rate
at 1 and 2 threads (medians of 7 alternated runs), checking that the values
are today's bit for bit.  A prototype, not a backend: whole blocks only (a
start at a multiple of 4, a size of whole blocks).
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from llvmlite import ir
from numba import carray, cfunc, njit, types
from numba.extending import intrinsic

import tandem
from tandem import core, kinds, parametric
from tandem.backends import cpu, maps

core.register()
from tandem.core import addressing  # noqa: E402  (after register)
from tandem.core.addressing import join64  # noqa: E402

U64 = np.uint64
TILE = 64  # blocks a tile
#: Kinds probed, with the law and parameters that give their records.
KINDS = {"uniform64": None, "exponential64": None, "laplace64": None,
         "normal64": None, "normal32": None, "integers32": None,
         "gamma64": ("standard_gamma", 2.5)}
DTYPES = {"normal32": np.float32, "integers32": np.uint32}

_TILE_SIGNATURE = types.void(types.CPointer(types.uint64), types.uint64, types.uint64,
                             types.uint64, types.CPointer(types.uint64))


def _tile_function(block_at):
    """The generator's tile ``cfunc``: ``(key, lane, first, count, words)``."""
    @cfunc(_TILE_SIGNATURE, cache=True)
    def tile(key, lane, first, count, out):
        k = carray(key, 4)
        words = carray(out, (4, TILE))
        k0, k1, k2, k3 = k[0], k[1], k[2], k[3]
        for j in range(count):
            x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, first + U64(j))
            words[0, j] = x0
            words[1, j] = x1
            words[2, j] = x2
            words[3, j] = x3

    return tile


@intrinsic
def _call_tile(typingctx, address, key, lane, first, count, words):
    """Call the tile function at ``address`` (a C function of two pointers and three
    words) on the arrays ``key`` and ``words``."""
    signature = types.void(types.uint64, key, types.uint64, types.uint64, types.uint64, words)

    def codegen(context, builder, sig, args):
        address, key, lane, first, count, words = args
        word = ir.IntType(64)
        pointer = word.as_pointer()
        key_data = context.make_array(sig.args[1])(context, builder, key).data
        words_data = context.make_array(sig.args[5])(context, builder, words).data
        function = builder.inttoptr(address, ir.FunctionType(
            ir.VoidType(), [pointer, word, word, word, pointer]).as_pointer())
        builder.call(function, [builder.bitcast(key_data, pointer), lane, first, count,
                                builder.bitcast(words_data, pointer)])
        return context.get_dummy_value()

    return signature, codegen


def _kind_kernel(name):
    """The kind's serial kernel ``(out, first_block, b0, b1, tile, key, generator,
    lane, start, params, table, retry_key)``: blocks ``b0 .. b1`` of the fill."""
    kind = kinds.KINDS[name]
    width, per_block, nan_marks = kind.width, 4 // kind.width, kind.deferred
    may_miss = kind.deferred or kind.retry is not None

    def marked(value_map):
        return core.jitable_cpu(cpu._nan_marked(value_map, kind.table), inline=True)

    value_map, retry = maps.kernel_functions(kind, marked if kind.deferred else None)
    for fn in maps.made_here(kind, value_map, retry):
        core.jitable_cpu(fn, inline=True)
    retry = kind.retry and retry
    lean_draw = core.jitable_cpu(maps.block_draw(kind, None))

    def element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3):
        x0, x1, x2, x3 = addressing.block_at(generator, k0, k1, k2, k3, lane, w >> U64(2))
        value, accepted, lo, hi = lean_draw(x0, x1, x2, x3, w & U64(3), params, table)
        if retry is not None and not accepted:
            value = retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)
        return value

    element = core.jitable_cpu(maps.named(f"probe_element_{name}", element))

    # The stores stay in the loop: an inlined helper that takes ``out`` kept
    # LLVM from vectorising it (12 vector registers against 99).
    @njit(nogil=True, cache=True)
    def blocks(out, first_block, b0, b1, tile, key, generator, lane, start, params, table,
               retry_key):
        words = np.empty(4 * TILE, dtype=np.uint64)
        k0, k1, k2, k3 = key[0], key[1], key[2], key[3]
        r0, r1, r2, r3 = retry_key[0], retry_key[1], retry_key[2], retry_key[3]
        for t in range(b0, b1, TILE):
            count = min(TILE, b1 - t)
            _call_tile(tile, key, lane, first_block + U64(t), U64(count), words)
            all_accepted = True
            base = U64(per_block * t)
            for j in range(count):
                u = U64(j)
                e = base + U64(per_block) * u
                x0, x1 = words[u], words[U64(TILE) + u]
                x2, x3 = words[U64(2 * TILE) + u], words[U64(3 * TILE) + u]
                if width == 4:
                    v0, a0 = value_map(join64(x0, x1), join64(x2, x3), params, table)
                    out[e] = v0
                    all_accepted &= a0
                elif width == 2:
                    v0, a0 = value_map(x0, x1, params, table)
                    v1, a1 = value_map(x2, x3, params, table)
                    out[e] = v0
                    out[e + U64(1)] = v1
                    all_accepted &= a0 & a1
                else:
                    v0, v1, a0, a1 = value_map(x0, x1, params, table)
                    v2, v3, a2, a3 = value_map(x2, x3, params, table)
                    out[e] = v0
                    out[e + U64(1)] = v1
                    out[e + U64(2)] = v2
                    out[e + U64(3)] = v3
                    all_accepted &= a0 & a1 & a2 & a3
            if may_miss and not all_accepted:
                for e in range(per_block * t, per_block * (t + count)):
                    if nan_marks:
                        if not np.isnan(out[e]):
                            continue
                    w = start + U64(width * e)
                    out[e] = element(generator, k0, k1, k2, k3, lane, w, params, table,
                                     r0, r1, r2, r3)

    return blocks


_TILES = {}
_KERNELS = {}


def _tiles():
    if not _TILES:
        _TILES.update(enumerate(_tile_function(b) for b in (addressing.philox_block_at,
                                                            addressing.threefry_block_at)))
    return _TILES


def record_of(name, stream):
    law = KINDS[name]
    if law is not None:
        return parametric.scalar_record(stream, *law)
    return kinds.resolve(stream, kinds.KINDS[name])


def probe_fill(name, stream, out, threads=1, pool=None):
    """The fill of ``name`` into ``out`` by the probe's kernels."""
    record = record_of(name, stream)
    if record.start % 4 or (out.size * record.width) % 4:
        raise ValueError("the probe fills whole blocks only")
    kernel = _KERNELS.get(record.kind) or _KERNELS.setdefault(record.kind,
                                                              _kind_kernel(record.kind))
    args = (_tiles()[record.generator].address, np.array(record.key, dtype=np.uint64),
            U64(record.generator), U64(record.lane), U64(record.start),
            tuple(U64(p) for p in record.params),
            cpu._NO_TABLE if record.table is None else record.table,
            np.array(record.retry_key, dtype=np.uint64))
    first, n_blocks = U64(record.start // 4), out.size * record.width // 4
    if threads == 1:
        kernel(out, first, 0, n_blocks, *args)
        return
    per = -(-n_blocks // threads)
    per = -(-per // TILE) * TILE
    for job in [pool.submit(kernel, out, first, b0, min(n_blocks, b0 + per), *args)
                for b0 in range(0, n_blocks, per)]:
        job.result()


def today_fill(name, stream, out, threads=1):
    cpu.fill(record_of(name, stream), out, threads)


def first_fill_seconds(name, who):
    """Seconds of the first fill of 4,096 elements in a new process, empty cache."""
    code = (f"import sys, time, numpy as np; sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
            "import axes_probe as p, tandem\n"
            "p._tiles()  # compiles the tile cfuncs\n"
            f"out = np.empty(4096, p.DTYPES.get({name!r}, np.float64))\n"
            "t = time.perf_counter()\n"
            f"p.{who}_fill({name!r}, tandem.Philox(7), out)\n"
            "print(time.perf_counter() - t)")
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
    return float(done.stdout.split()[-1])


def rates(name, n, pool, repeats=7):
    """M elements/s ``{(who, threads): median}``, after checking the values agree."""
    dtype = DTYPES.get(name, np.float64)
    ours, theirs = np.empty(n, dtype), np.empty(n, dtype)
    stream = tandem.Philox(7)
    today_fill(name, stream, theirs)
    probe_fill(name, stream, ours)
    if not np.array_equal(ours, theirs):
        raise AssertionError(f"{name}: the probe's values differ from today's")
    times = {}
    for threads in (1, 2):
        for _ in range(repeats):
            for who, fill in (("today", today_fill), ("probe", probe_fill)):
                t = time.perf_counter()
                if who == "probe":
                    probe_fill(name, stream, ours, threads, pool)
                else:
                    fill(name, stream, theirs, threads)
                times.setdefault((who, threads), []).append(time.perf_counter() - t)
    return {key: n / np.median(t) / 1e6 for key, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--log2n", type=int, default=24)
    args = parser.parse_args()
    pool = concurrent.futures.ThreadPoolExecutor(2)
    print(f"{time.strftime('%Y-%m-%d')}, n = 2**{args.log2n}, tile {TILE} blocks\n")
    print("| kind | first fill, empty cache: today s | probe s | M/s today, 1 thread | "
          "probe | probe / today | M/s today, 2 threads | probe | probe / today |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.kinds:
        cold = {who: first_fill_seconds(name, who) for who in ("today", "probe")}
        r = rates(name, 1 << args.log2n, pool)
        print(f"| {name} | {cold['today']:.1f} | {cold['probe']:.1f} | "
              f"{r['today', 1]:.0f} | {r['probe', 1]:.0f} | "
              f"{r['probe', 1] / r['today', 1]:.2f} | {r['today', 2]:.0f} | "
              f"{r['probe', 2]:.0f} | {r['probe', 2] / r['today', 2]:.2f} |")


if __name__ == "__main__":
    main()
