"""What tandem's serial ``nogil`` CPU kernels share: borrowed arrays and the cut.

A fill is cut-invariant, so it runs as one serial kernel per piece of an
even cut, the pieces on tandem's pool of threads
(:func:`tandem.parallel.in_pieces`), rather than as a ``parallel=True``
kernel: Numba's parfor passes cost a third of a first call's compile
(docs/performance.md), and a small call launches nothing.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .. import parallel


@intrinsic
def borrowed(typingctx, a):
    """The array ``a`` without its reference count: a view for a serial kernel's
    loops, whose caller holds ``a`` meanwhile.

    An array passed to a function inlined in a loop is counted in and out at
    every element, two atomic operations that Numba's pruning keeps when the
    function has a call on a rare path (a ziggurat's miss): the f64 normal
    ran 5x slower than in a ``prange`` body, whose arrays carry no count.
    Borrow only an argument of the kernel, never an array the kernel makes.
    """
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, sig, args):
        array = context.make_array(sig.args[0])(context, builder, value=args[0])
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        return array._getvalue()

    return a(a), codegen


def pieces_for(threads) -> int:
    """How many pieces a fill is cut into: ``threads``, by default Numba's
    thread count (``numba.set_num_threads``)."""
    import numba

    return numba.get_num_threads() if threads is None else max(1, int(threads))


def in_ranges(n: int, pieces: int, kernel) -> None:
    """``kernel(a, b)`` on the ranges of an even cut of ``range(n)`` into
    ``pieces``: on this thread for one piece, else on tandem's pool."""
    if pieces == 1:
        kernel(0, n)
        return
    parallel.in_pieces(lambda p: kernel(n * p // pieces, n * (p + 1) // pieces), pieces)
