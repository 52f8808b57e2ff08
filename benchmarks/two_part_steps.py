"""Where a law of two parts spends its time on the CPU: each step of
``tandem.parametric.standard_t`` timed alone, against NumPy's standard_t.

    python benchmarks/two_part_steps.py [--log2n 22] [--repeats 5]

Prints ns an element (best of ``repeats``, one thread) for the whole law,
the parts' index arrays, each part (an addressed fill, a block an element),
the value's pass, and for comparison the parts' own fills, the raw 64-bit
fill and NumPy's laws on SFC64.
"""

import argparse
import time

import numpy as np

import tandem
from tandem import parametric
from tandem.backends import cpu


def best(run, n, repeats):
    """The fastest of ``repeats`` calls of ``run``, in ns an element."""
    run()
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        run()
        times.append(time.perf_counter() - begin)
    return min(times) / n * 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=22)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--df", type=float, default=5.0)
    args = parser.parse_args()
    n, df = 2**args.log2n, args.df
    s = tandem.Philox(1)
    # Element i's parts: the normal at word 8 i (element 4 i of a 2-word kind)
    # and chisquare at word 8 i + 4 (element 2 i + 1 of a 4-word kind).
    normal_index = np.arange(0, 4 * n, 4, dtype=np.uint64)
    chisquare_index = np.arange(1, 2 * n + 1, 2, dtype=np.uint64)
    z = parametric.at(s, "normal", normal_index, 0.0, 1.0, threads=1)
    c = parametric.at(s, "chisquare", chisquare_index, df, threads=1)
    out, p, q = np.empty(n), np.full(1, df), np.zeros(1)
    g = np.random.Generator(np.random.SFC64(1))
    steps = {
        f"tandem standard_t({df:g}), whole": lambda: parametric.standard_t(s, df, n, threads=1),
        "the parts' two index arrays (arange)": lambda: (np.arange(0, 8 * n, 8, dtype=np.uint64),
                                                         np.arange(4, 8 * n, 8, dtype=np.uint64)),
        "the normal part (at, a block an element)": lambda: parametric.at(
            s, "normal", normal_index, 0.0, 1.0, threads=1),
        f"the chisquare({df:g}) part (at)": lambda: parametric.at(
            s, "chisquare", chisquare_index, df, threads=1),
        "the value (core.two_parts.student_t)": lambda: cpu.two_parts("student_t", out, z, c, p,
                                                                      q, threads=1),
        "tandem normal fill": lambda: s.normal(n, threads=1),
        f"tandem chisquare({df:g}) fill": lambda: parametric.fill(s, "chisquare", df, size=n,
                                                                  threads=1),
        "tandem raw uint64 fill (a block: two elements)": lambda: s.bits(n, dtype=np.uint64,
                                                                         threads=1),
        f"NumPy standard_t({df:g}), SFC64": lambda: g.standard_t(df, n),
        "NumPy standard_normal, SFC64": lambda: g.standard_normal(n),
        f"NumPy chisquare({df:g}), SFC64": lambda: g.chisquare(df, n),
    }
    cpu.two_parts("student_t", out, z, c, p, q, threads=1)
    assert np.array_equal(out, parametric.standard_t(s, df, n)[0])  # the steps make the law
    print(f"tandem {tandem.__version__}, numpy {np.__version__}, n = 2**{args.log2n}, "
          f"1 thread, best of {args.repeats}\n")
    print("| step | ns an element |\n| --- | --- |")
    for name, run in steps.items():
        print(f"| {name} | {best(run, n, args.repeats):.2f} |")


if __name__ == "__main__":
    main()
