#!/usr/bin/env python3
"""Generate the ziggurats' tables: ``src/tandem/core/ziggurat_*.py``.

Usage::

    python tools/ziggurat_tables.py            # (re)write every module
    python tools/ziggurat_tables.py --check    # exit 1 if a module differs

Four ziggurats, each a record of :data:`ZIGGURATS`: the standard normal
with 1024 layers on a 53-bit mantissa in float64 (the normal f64 of the
contract, ``ziggurat_tables.py``), and, for contract 0.3, the standard
normal with 256 layers on a 23-bit mantissa in float32 and the standard
exponential with 256 layers in float64 (53 bits) and in float32 (24 bits).
The tables are computed with mpmath at ``DPS`` decimal digits and then
rounded once to the ziggurat's float type (or, for ``K``, decided exactly),
so the output is the same on every machine.  See each generated module for
the definitions.
"""

from __future__ import annotations

import argparse
import difflib
import pathlib
import sys
from dataclasses import dataclass
from typing import Callable

import mpmath
import numpy as np
from mpmath import mp, mpf

DPS = 60
CORE = pathlib.Path(__file__).resolve().parents[1] / "src/tandem/core"
# A float product closer than this (relatively) to an mpmath bound could be on
# the wrong side of the exact bound; K is then not trusted.
MARGIN = mpf(10) ** (10 - DPS)


def _normal_f(x):
    """The unnormalised half-normal density exp(-x**2 / 2)."""
    return mpmath.exp(-x * x / 2)


def _normal_f_inv(y):
    return mpmath.sqrt(-2 * mpmath.log(y))


def _normal_tail(r):
    return mpmath.sqrt(mp.pi / 2) * mpmath.erfc(r / mpmath.sqrt(2))


def _exponential_f(x):
    """The exponential density exp(-x); also its own tail integral."""
    return mpmath.exp(-x)


def _exponential_f_inv(y):
    return -mpmath.log(y)


@dataclass(frozen=True)
class Ziggurat:
    """One ziggurat: its density, its layer count and its float arithmetic.

    ``f`` is the unnormalised density on [0, inf) with f(0) = 1, ``f_inv``
    its inverse and ``tail(r)`` the integral of f over [r, inf).  A draw's
    mantissa has ``mantissa_bits`` bits, and ``dtype`` is the float type of
    the tables and of the fast path's one product ``m * W[i]``.
    ``r_bracket`` holds the tail start R, and only it.
    """

    module: str
    title: str
    density: str
    f: Callable
    f_inv: Callable
    tail: Callable
    layers: int
    mantissa_bits: int
    dtype: type
    r_bracket: tuple
    #: Also write ``K_FLOOR``, the bounds of the tandem specification's
    #: ziggurat (Tandem8x32, Appendix A), which takes the same ``W`` and ``F``.
    floor_bound: bool = False

    @property
    def mantissa(self):
        return 2**self.mantissa_bits


_NORMAL = dict(density="f(x) = exp(-x**2 / 2) (the unnormalised half-normal density)",
               f=_normal_f, f_inv=_normal_f_inv, tail=_normal_tail, r_bracket=(3.0, 4.5))
_EXPONENTIAL = dict(density="f(x) = exp(-x) (the exponential density)", f=_exponential_f,
                    f_inv=_exponential_f_inv, tail=_exponential_f, r_bracket=(6.0, 9.0))

#: Every ziggurat of the contract.  The tail start grows with the layer count:
#: 3.654 for Marsaglia and Tsang's 256-layer normal, 4.039 for 1024 layers,
#: 7.697 for their 256-layer exponential.
ZIGGURATS = (
    Ziggurat("ziggurat_tables", "the 1024-layer ziggurat for the standard normal (f64)",
             layers=1024, mantissa_bits=53, dtype=np.float64, floor_bound=True, **_NORMAL),
    Ziggurat("ziggurat_normal32", "the 256-layer ziggurat for the standard normal (f32)",
             layers=256, mantissa_bits=23, dtype=np.float32, **_NORMAL),
    Ziggurat("ziggurat_exponential64", "the 256-layer ziggurat for the standard exponential "
             "(f64)", layers=256, mantissa_bits=53, dtype=np.float64, **_EXPONENTIAL),
    Ziggurat("ziggurat_exponential32", "the 256-layer ziggurat for the standard exponential "
             "(f32)", layers=256, mantissa_bits=24, dtype=np.float32, **_EXPONENTIAL),
)


def layer_area(z, r):
    """V: the base strip [0, r] x [0, f(r)] plus the tail beyond r."""
    return r * z.f(r) + z.tail(r)


def edges(z, r):
    """(x_0 .. x_{N-1}, top) for tail start ``r``: top = f(x_{N-1}) + V / x_{N-1}.

    The chain stops early, with top > 1, when a layer already reaches y = 1.
    """
    v = layer_area(z, r)
    xs = [v / z.f(r), r]
    while len(xs) < z.layers:
        top = z.f(xs[-1]) + v / xs[-1]
        if top >= 1:
            return xs, top
        xs.append(z.f_inv(top))
    return xs, z.f(xs[-1]) + v / xs[-1]


def tail_start(z):
    """R: the root of top(R) = 1, by bisection (top decreases as R grows)."""
    lo, hi = (mpf(b) for b in z.r_bracket)
    assert edges(z, lo)[1] > 1 > edges(z, hi)[1]
    while hi - lo > lo * mpf(10) ** -DPS:
        mid = (lo + hi) / 2
        xs, top = edges(z, mid)
        if len(xs) < z.layers or top > 1:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def product(z, m, w):
    """The fast path's ``m * w``, one correctly rounded product in ``z.dtype``."""
    return float(z.dtype(m) * z.dtype(w))


def fast_path_bound(z, w, bound):
    """K: the least m with fl(m * w) >= bound, i.e. every m < K is below it."""
    m = int(mpmath.floor(bound / mpf(w)))
    while m > 0 and mpf(product(z, m - 1, w)) >= bound:
        m -= 1
    while mpf(product(z, m, w)) < bound:
        m += 1
    for y in (product(z, m - 1, w), product(z, m, w)):
        assert m == 0 or abs(mpf(y) - bound) > MARGIN * bound, "bound too close to call"
    return m


def rounded(z, value):
    """The ``z.dtype`` nearest to the mpf ``value``, as a Python float."""
    return float(z.dtype(float(value))) if z.dtype is np.float64 else _nearest32(value)


def _nearest32(value):
    """The float32 nearest to ``value``, rounded once (not through float64)."""
    below = float(np.float32(float(value)))
    candidates = (below, float(np.nextafter(np.float32(below), np.float32(np.inf))),
                  float(np.nextafter(np.float32(below), np.float32(-np.inf))))
    return min(candidates, key=lambda c: (abs(mpf(c) - value), c))


def tables(z):
    """The tables of ``z`` and mpmath's check values, as a dict."""
    mp.dps = DPS
    r = tail_start(z)
    xs, top = edges(z, r)
    v = layer_area(z, r)
    n = z.layers
    assert len(xs) == n
    x = xs + [mpf(0)]
    areas = [x[0] * z.f(r)] + [x[i] * (z.f(x[i + 1]) - z.f(x[i])) for i in range(1, n)]
    area_error = max(abs(a / v - 1) for a in areas)
    assert area_error < mpf(10) ** -40, area_error
    w = [rounded(z, xi / z.mantissa) for xi in xs]
    k = [fast_path_bound(z, w[i], x[i + 1]) for i in range(n)]
    misses = sum(z.mantissa - ki for ki in k)
    floor_bound = [int(mpmath.floor(z.mantissa * x[i + 1] / x[i])) for i in range(n)]
    return {"K_FLOOR": floor_bound,
        "R": float(r), "V": float(v), "X": [rounded(z, xi) for xi in x],
        "F": [rounded(z, z.f(xi)) for xi in x], "W": w, "K": k,
        "MISS_RATE": misses / (z.mantissa * n),  # int / int: correctly rounded
        "residual": top - 1, "area_error": area_error,
    }


def _rows(values, per_line):
    return "".join(
        "    " + " ".join(f"{v!r}," for v in values[j:j + per_line]) + "\n"
        for j in range(0, len(values), per_line))


_MODULE = '''"""Tables of {title}.

Generated by ``tools/ziggurat_tables.py`` (mpmath, mp.dps = {dps}); do not edit.
``python tools/ziggurat_tables.py --check`` verifies this file.

Guaranteed across versions: every value here.  They are part of the stream
contract: a draw of this ziggurat is a function of them.

Definitions, with {density},
N = ``LAYERS`` and b = ``MANTISSA_BITS``, the bits of a draw's mantissa m:

- ``R`` is the tail start x_1 and ``V`` the common layer area,
  V = R f(R) + integral of f over [R, inf).  The edges are x_0 = V / f(R),
  x_1 = R, x_(i+1) = f^-1(f(x_i) + V / x_i) for i = 1 .. N-1, and R is the
  root of f(x_(N-1)) + V / x_(N-1) = 1, so that x_N = 0 (bisection at
  mp.dps = {dps}; the residual of that equation is {residual}).
- Layer i >= 1 is the rectangle [0, x_i] x [f(x_i), f(x_(i+1))]; layer 0,
  the base strip, is [0, x_0] x [0, f(R)]: [0, R] x [0, f(R)] plus the tail's
  area.  Every layer has area V (checked to 1e-40 relative in mpmath).
- ``X[i]``, ``F[i]`` (i = 0 .. N): the {float} nearest to x_i and to f(x_i);
  ``X[N] = 0``, ``F[N] = 1`` and ``F[0]``, f(x_0), is unused.
- ``W[i]`` (i = 0 .. N-1): the {float} nearest to x_i * 2**-b, which is
  ``X[i] * 2**-b`` exactly.
- ``K[i]`` (i = 0 .. N-1): the largest integer such that every m < K[i]
  has {float}(m * W[i]) < x_(i+1), compared exactly with the real x_(i+1)
  (x_1 = R for the base strip).  A draw's mantissa m < K[i] is then inside
  the layer's part that lies under the curve; ``K[N-1] = 0``, the top layer
  is all wedge.
- ``MISS_RATE``, sum over i of (2**b - K[i]) / (2**b N), is the chance
  that a draw leaves the fast path: {miss:.6g} (about
  {miss_percent:.2f} %).
"""

import numpy as np

LAYERS = {layers}
MANTISSA_BITS = {bits}
R = {r!r}
V = {v!r}
MISS_RATE = {miss!r}

X = np.array([
{x}]{dtype})
F = np.array([
{f}]{dtype})
W = np.array([
{w}]{dtype})
K = np.array([
{k}], dtype=np.uint64)
{floor}
for _table in (X, F, W, K{floor_name}):
    _table.flags.writeable = False
del _table
'''


_FLOOR = '''#: ``floor(2**b * x_(i+1) / x_i)`` (``K_FLOOR[N-1] = 0``): the fast-path bound of the
#: tandem specification's 1024-layer ziggurat (Tandem8x32, Appendix A, its
#: table ``K``), which shares ``W`` and ``F`` (its ``Y``) with this one.
K_FLOOR = np.array([
{k}], dtype=np.uint64)
'''


def render(z, t):
    """The module text for the tables ``t`` of ``z``."""
    return _MODULE.format(
        title=z.title, dps=DPS, density=z.density, residual=mpmath.nstr(t["residual"], 3),
        float=np.dtype(z.dtype).name, miss=t["MISS_RATE"], miss_percent=100 * t["MISS_RATE"],
        layers=z.layers, bits=z.mantissa_bits, r=t["R"], v=t["V"],
        x=_rows(t["X"], 3), f=_rows(t["F"], 3), w=_rows(t["W"], 3), k=_rows(t["K"], 4),
        dtype="" if z.dtype is np.float64 else ", dtype=np.float32",
        floor=_FLOOR.format(k=_rows(t["K_FLOOR"], 4)) if z.floor_bound else "",
        floor_name=", K_FLOOR" if z.floor_bound else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare the committed modules with a fresh generation")
    args = parser.parse_args(argv)
    status = 0
    for z in ZIGGURATS:
        t = tables(z)
        print(f"{z.module}: R = {t['R']!r}, V = {t['V']!r}, X[0] = {t['X'][0]!r}, "
              f"MISS_RATE = {t['MISS_RATE']!r}, residual = {mpmath.nstr(t['residual'], 3)}, "
              f"area error = {mpmath.nstr(t['area_error'], 3)}", file=sys.stderr)
        path = CORE / f"{z.module}.py"
        text = render(z, t)
        if not args.check:
            path.write_text(text)
            continue
        old = path.read_text() if path.exists() else ""
        if old == text:
            print(f"{path.name}: up to date", file=sys.stderr)
            continue
        sys.stderr.writelines(difflib.unified_diff(
            old.splitlines(True), text.splitlines(True), "committed", "generated", n=0))
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
