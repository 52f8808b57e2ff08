#!/usr/bin/env python3
"""Stream tandem's raw 32-bit words to stdout for dieharder.

The words are written as little-endian uint32, forever (or until
``--words``), from one of four sources:

``philox``
    ``tandem.Philox(seed)``, words in order.
``threefry``
    ``tandem.Threefry(seed)``, words in order.
``sub``
    1024 streams ``root.sub(i)``, ``i`` in ``0..1023``, ``root =
    Philox(seed)``, interleaved word by word: output word ``j`` is word
    ``j // 1024`` of stream ``j % 1024``.
``split``
    1024 lanes ``root.split(g)``, ``g`` in ``0..1023``, interleaved the same way.

Usage::

    python tools/dieharder.py --source philox | dieharder -a -g 200
    python tools/dieharder.py --source split | dieharder -d 0 -g 200
    python tools/dieharder.py --source sub --words 1000000 > sub.bin

    # launch ``dieharder -a -g 200`` itself and save its output:
    python tools/dieharder.py --source threefry --run --out dh-threefry.txt
    # ... or another dieharder selection (words after ``--`` go to dieharder),
    # here with dieharder (and, through the outer nice, this script) niced:
    nice -n 10 python tools/dieharder.py --source philox --run -- -d 2 -g 200

Some dieharder tests need ``-n`` when run alone with ``-d``: ``-d 200``
(rgb_bitdist) refuses ntup 0, and ``-d 201`` (rgb_minimum_distance) runs
in dimension 0, which reported p = 0 (FAILED) for every input tried here,
dieharder's own AES_OFB included (use ``-n 2`` .. ``-n 5``).  See
``docs/quality.md`` for what was run and seen.

``-g 200`` is dieharder's ``stdin_input_raw`` generator (raw binary words on
standard input).  dieharder closes the pipe when it is done; the writer then
exits quietly.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys

import numpy as np

import tandem

SOURCES = ("philox", "threefry", "sub", "split")
DEFAULT_SEED = 20261129
LANES = 1024


def _sequential(stream, chunk, threads):
    """Chunks of ``chunk`` words of one stream, in order, forever."""
    while True:
        words, stream = stream.words(chunk, threads=threads)
        yield words


def _interleaved(streams, per_stream, threads):
    """Chunks of ``per_stream * len(streams)`` words: the streams word by word.

    Each chunk fills the next ``per_stream`` words of stream ``i`` into row
    ``i`` of a ``(len(streams), per_stream)`` array and yields its transpose,
    whose row-major order is word 0 of every stream, then word 1 of every
    stream, ...  Every stream moves on between chunks.
    """
    streams = list(streams)
    rows = np.empty((len(streams), per_stream), dtype=np.uint32)
    while True:
        for i, s in enumerate(streams):
            _, streams[i] = s.words(per_stream, out=rows[i], threads=threads)
        yield np.ascontiguousarray(rows.T)


def chunks(source, seed, chunk_words=1 << 24, threads=1):
    """An endless iterator of uint32 arrays for ``source`` (see the module doc)."""
    if source == "philox":
        return _sequential(tandem.Philox(seed), chunk_words, threads)
    if source == "threefry":
        return _sequential(tandem.Threefry(seed), chunk_words, threads)
    per_stream = max(1, chunk_words // LANES)
    root = tandem.Philox(seed)
    if source == "sub":
        return _interleaved((root.sub(i) for i in range(LANES)), per_stream, threads)
    if source == "split":
        return _interleaved((root.split(g) for g in range(LANES)), per_stream, threads)
    raise ValueError(f"unknown source {source!r}; expected one of {SOURCES}")


def write_words(out, source, seed, limit=None, chunk_words=1 << 24, threads=1):
    """Write ``source``'s words to the binary file ``out`` (all of them, or ``limit``).

    Returns normally when ``limit`` words are written, and also when the
    reader closes the pipe (``BrokenPipeError``).
    """
    if sys.byteorder != "little":
        raise SystemExit("this script writes native uint32; run it on a little-endian machine")
    written = 0
    try:
        for block in chunks(source, seed, chunk_words, threads):
            data = block.reshape(-1)
            if limit is not None:
                data = data[: limit - written]
            out.write(data.astype("<u4", copy=False).tobytes())
            written += data.size
            if limit is not None and written >= limit:
                break
        out.flush()
    except BrokenPipeError:
        # The reader is gone (dieharder exits when it has enough).  Point
        # stdout at /dev/null so the interpreter's final flush does not
        # raise again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
        except (OSError, ValueError, AttributeError):
            pass
    return written


def run_dieharder(args, dieharder_args):
    """Launch dieharder on a pipe from this source and save its output."""
    dh_args = dieharder_args or ["-a", "-g", "200"]
    cmd = list(args.nice) + [args.dieharder] + dh_args
    out_path = args.out or f"dieharder-{args.source}.txt"
    header = (f"# source={args.source} seed={args.seed}\n"
              f"# command: python tools/dieharder.py --source {args.source} "
              f"--seed {args.seed} | {shlex.join(cmd)}\n")
    with open(out_path, "w") as log:
        log.write(header)
        log.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log,
                                stderr=subprocess.STDOUT)
        try:
            write_words(proc.stdin, args.source, args.seed, args.words,
                        args.chunk, args.threads)
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
            rc = proc.wait()
    print(f"dieharder exited with {rc}; output in {out_path}", file=sys.stderr)
    return rc


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    dieharder_args = []
    if "--" in argv:
        k = argv.index("--")
        argv, dieharder_args = argv[:k], argv[k + 1:]
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", choices=SOURCES, required=True)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"root seed (default {DEFAULT_SEED})")
    p.add_argument("--words", type=int, default=None,
                   help="stop after this many words (default: never)")
    p.add_argument("--chunk", type=int, default=1 << 24,
                   help="words per chunk written (default 16777216; for sub/split, "
                        "chunk // 1024 words of each stream)")
    p.add_argument("--threads", type=int, default=1,
                   help="Numba threads for the fills (default 1: dieharder reads far "
                        "slower than one thread fills, and short parallel fills of the "
                        "1024 interleaved streams are slow)")
    p.add_argument("--run", action="store_true",
                   help="launch dieharder (default arguments: -a -g 200) on the pipe")
    p.add_argument("--out", default=None,
                   help="with --run: file for dieharder's output "
                        "(default dieharder-SOURCE.txt)")
    p.add_argument("--dieharder", default="dieharder", help="with --run: the executable")
    p.add_argument("--nice", type=int, default=None,
                   help="with --run: run dieharder under `nice -n N`")
    args = p.parse_args(argv)
    if args.words is not None and args.words < 0:
        p.error("--words must be >= 0")
    if args.chunk < 1:
        p.error("--chunk must be >= 1")
    if dieharder_args and not args.run:
        p.error("arguments after -- are for dieharder and need --run")

    if args.run:
        args.nice = [] if args.nice is None else ["nice", "-n", str(args.nice)]
        return run_dieharder(args, dieharder_args)
    write_words(sys.stdout.buffer, args.source, args.seed, args.words, args.chunk,
                args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
