#!/usr/bin/env python3
"""Stream tandem's raw 32-bit words to stdout, or into a test battery.

The words are written as little-endian uint32, forever (or until
``--words``), from one of these sources (``SEED`` is ``--seed``):

``philox``, ``threefry``, ``tandem``
    ``tandem.Philox(SEED)``, ``tandem.Threefry(SEED)`` or
    ``tandem.Tandem(SEED)``, words in order.
``sub``, ``split``
    1024 streams ``Philox(SEED).sub(i)`` or lanes ``Philox(SEED).split(g)``,
    ``i, g`` in ``0..1023``, interleaved word by word: output word ``j`` is
    word ``j // 1024`` of stream ``j % 1024``.
``tandem-split``, ``tandem-purpose``, ``tandem-seeds``
    1024 Tandem streams interleaved the same way: the children
    ``Tandem(SEED).split(i)``, the purposes ``Tandem(SEED).sub(i)``, or the
    consecutive seeds ``Tandem(SEED + i)``.

``--battery`` launches a battery on the pipe and saves its output:
``dieharder`` (``-a -g 200`` unless arguments follow ``--``), ``practrand``
(PractRand's ``RNG_test stdin32``, ``-tlmax 64GB`` unless arguments follow
``--``), or TestU01's ``smallcrush``, ``crush`` and ``bigcrush`` through
``tools/testu01_stdin.c``, compiled here against the TestU01 installed under
``--testu01``.  None of the batteries is a dependency of tandem: build them
where you run this (``docs/quality.md`` says how they were built).

Usage::

    python tools/raw_words.py --source philox | dieharder -a -g 200
    python tools/raw_words.py --source sub --words 1000000 > sub.bin
    python tools/raw_words.py --source tandem-split --battery practrand \
        --practrand ~/PractRand/RNG_test -- -tlmax 32GB -multithreaded
    python tools/raw_words.py --source tandem-seeds --battery crush \
        --testu01 ~/testu01 --out crush-seeds.txt
    # another dieharder selection (words after ``--`` go to the battery),
    # with the battery and, through the outer nice, this script niced:
    nice -n 10 python tools/raw_words.py --source philox --battery dieharder \
        --nice 10 -- -d 2 -g 200

Some dieharder tests need ``-n`` when run alone with ``-d``: ``-d 200``
(rgb_bitdist) refuses ntup 0, and ``-d 201`` (rgb_minimum_distance) runs
in dimension 0, which reported p = 0 (FAILED) for every input tried here,
dieharder's own AES_OFB included (use ``-n 2`` .. ``-n 5``).

A battery closes the pipe when it is done; the writer then exits quietly.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

import tandem

DEFAULT_SEED = 20261129
LANES = 1024
SEQUENTIAL = {"philox": tandem.Philox, "threefry": tandem.Threefry,
              "tandem": tandem.Tandem}
INTERLEAVED = {
    "sub": lambda seed: (tandem.Philox(seed).sub(i) for i in range(LANES)),
    "split": lambda seed: (tandem.Philox(seed).split(g) for g in range(LANES)),
    "tandem-split": lambda seed: (tandem.Tandem(seed).split(i) for i in range(LANES)),
    "tandem-purpose": lambda seed: (tandem.Tandem(seed).sub(i) for i in range(LANES)),
    "tandem-seeds": lambda seed: (tandem.Tandem(seed + i) for i in range(LANES)),
}
SOURCES = (*SEQUENTIAL, *INTERLEAVED)
BATTERIES = ("dieharder", "practrand", "smallcrush", "crush", "bigcrush")


def _sequential(stream, chunk, threads):
    """Chunks of ``chunk`` words of one stream, in order, forever."""
    while True:
        words, stream = stream.words(chunk, threads=threads)
        yield words


def _interleaved(streams, per_stream, threads):
    """Chunks of ``per_stream * len(streams)`` words: the streams word by word.

    Each chunk puts the next ``per_stream`` words of stream ``i`` into row
    ``i`` of a ``(len(streams), per_stream)`` array and yields its transpose,
    whose row-major order is word 0 of every stream, then word 1 of every
    stream, ...  Every stream moves on between chunks.
    """
    streams = list(streams)
    rows = np.empty((len(streams), per_stream), dtype=np.uint32)
    while True:
        for i, s in enumerate(streams):
            rows[i], streams[i] = s.words(per_stream, threads=threads)
        yield np.ascontiguousarray(rows.T)


def chunks(source, seed, chunk_words=1 << 24, threads=1):
    """An endless iterator of uint32 arrays for ``source`` (see the module doc)."""
    if source in SEQUENTIAL:
        return _sequential(SEQUENTIAL[source](seed), chunk_words, threads)
    if source in INTERLEAVED:
        per_stream = max(1, chunk_words // LANES)
        return _interleaved(INTERLEAVED[source](seed), per_stream, threads)
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
        # The reader is gone (a battery exits when it has enough).  Point
        # stdout at /dev/null so the interpreter's final flush does not
        # raise again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
        except (OSError, ValueError, AttributeError):
            pass
    return written


def _testu01_driver(prefix, build):
    """Compile ``tools/testu01_stdin.c`` against TestU01 under ``prefix`` into ``build``."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testu01_stdin.c")
    driver = os.path.join(build, "testu01_stdin")
    subprocess.run(["cc", "-O2", "-o", driver, source,
                    "-I", os.path.join(prefix, "include"),
                    "-L", os.path.join(prefix, "lib"),
                    "-ltestu01", "-lprobdist", "-lmylib", "-lm"], check=True)
    return driver


def battery_command(args, extra, build):
    """The command line of ``args.battery``, reading words on stdin.

    A TestU01 driver is compiled into the folder ``build``.
    """
    if args.battery == "dieharder":
        return [args.dieharder] + (extra or ["-a", "-g", "200"])
    if args.battery == "practrand":
        return [args.practrand, "stdin32"] + (extra or ["-tlmax", "64GB"])
    if args.testu01 is None:
        raise SystemExit(f"--battery {args.battery} needs --testu01 PREFIX "
                         "(where TestU01 is installed)")
    return [_testu01_driver(args.testu01, build), args.battery, args.source] + extra


def run_battery(args, extra):
    """Launch the battery on a pipe from this source and save its output."""
    with tempfile.TemporaryDirectory(prefix="battery") as build:
        return _run(args, list(args.nice) + battery_command(args, extra, build))


def _run(args, cmd):
    """Feed ``cmd`` this source's words; its output goes to ``args.out`` when done."""
    out_path = args.out or f"{args.battery}-{args.source}.txt"
    header = (f"# source={args.source} seed={args.seed}\n"
              f"# command: python tools/raw_words.py --source {args.source} "
              f"--seed {args.seed} | {shlex.join(cmd)}\n")
    directory = os.path.dirname(os.path.abspath(out_path))
    with tempfile.NamedTemporaryFile("w", dir=directory, delete=False,
                                     prefix=".battery-", suffix=".txt") as log:
        log.write(header)
        log.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log,
                                stderr=subprocess.STDOUT)
        try:
            written = write_words(proc.stdin, args.source, args.seed, args.words,
                                  args.chunk, args.threads)
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
            rc = proc.wait()
        log.write(f"# words written: {written}; exit status {rc}\n")
    os.replace(log.name, out_path)
    print(f"{args.battery} exited with {rc}; output in {out_path}", file=sys.stderr)
    return rc


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", choices=SOURCES, required=True)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"root seed (default {DEFAULT_SEED})")
    p.add_argument("--words", type=int, default=None,
                   help="stop after this many words (default: never)")
    p.add_argument("--chunk", type=int, default=1 << 24,
                   help="words per chunk written (default 16777216; for the interleaved "
                        "sources, chunk // 1024 words of each stream)")
    p.add_argument("--threads", type=int, default=1,
                   help="Numba threads for the fills (default 1: the batteries read "
                        "slower than one thread fills, and short parallel fills of the "
                        "1024 interleaved streams are slow)")
    p.add_argument("--battery", choices=BATTERIES, default=None,
                   help="launch this battery on the pipe and save its output")
    p.add_argument("--out", default=None,
                   help="with --battery: file for its output (default BATTERY-SOURCE.txt)")
    p.add_argument("--dieharder", default="dieharder", help="dieharder's executable")
    p.add_argument("--practrand", default="RNG_test", help="PractRand's RNG_test")
    p.add_argument("--testu01", default=None,
                   help="the prefix TestU01 was installed to (include/, lib/)")
    p.add_argument("--nice", type=int, default=None,
                   help="with --battery: run it under `nice -n N`")
    args = p.parse_args(argv)
    if args.words is not None and args.words < 0:
        p.error("--words must be >= 0")
    if args.chunk < 1:
        p.error("--chunk must be >= 1")
    if extra and not args.battery:
        p.error("arguments after -- are for the battery and need --battery")

    if args.battery:
        args.nice = [] if args.nice is None else ["nice", "-n", str(args.nice)]
        return run_battery(args, extra)
    write_words(sys.stdout.buffer, args.source, args.seed, args.words, args.chunk,
                args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
