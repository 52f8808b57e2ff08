"""The steps of the walks over a node's allowed parent sets in rank order.

Plain Python on scalars, called by :mod:`tandem.bn.mcmc` on the CPU and by
:mod:`tandem.bn.cuda_table` on a GPU (through a copy registered with
numba-cuda alone).  :mod:`tandem.bn.cuda_mcmc` walks the same ranks in the
same order by slot masks instead.

A set of candidate slots ``x_0 < x_1 < ...`` has the colex rank
``sum_i C(x_i, i + 1)`` within its size; ``binom[c, j]`` is ``C(c, j)``.
"""

from .. import core


def next_upper(idx, u, count):
    """Colex successor of the ``u`` indices ``idx`` into range(count); False after the last."""
    j = 0
    while j < u - 1 and idx[j] + 1 == idx[j + 1]:
        j += 1
    if j == u - 1 and idx[j] + 1 >= count:
        return False
    idx[j] += 1
    for i in range(j):
        idx[i] = i
    return True


def colex_unrank(index, u, count, binom, idx):
    """The ``index``-th ``u``-subset of ``range(count)`` in colex order, into ``idx[:u]``:
    each member the largest ``c`` with ``C(c, j + 1)`` at most what is left, by a
    binary search in a column of ``binom``."""
    rem = index
    hi = count - 1
    for j in range(u - 1, -1, -1):
        lo = j  # C(j, j + 1) = 0
        top = hi
        while lo < top:
            mid = (lo + top + 1) // 2
            if binom[mid, j + 1] <= rem:
                lo = mid
            else:
                top = mid - 1
        idx[j] = lo
        rem -= binom[lo, j + 1]
        hi = lo - 1


def holding_bases(members, idx, u, w, first, binom):
    """The rank bases of the sets ``{a, w} + H``, ``H`` the ``u >= 1`` upper slots
    ``members[idx[:u]]``, ``a`` a slot below ``H``, ``first`` the offset of their size:
    ``(low, high)``, so that the rank is ``low + a`` for ``a < w`` and ``high +
    binom[a, 2]`` for ``w < a``."""
    low = first
    high = first + w
    below = 0  # the slots of H under w
    for j in range(u):
        x = members[idx[j]]
        high += binom[x, j + 3]
        if x < w:
            low += binom[x, j + 2]
            below += 1
        else:
            low += binom[x, j + 3]
    return low + binom[w, below + 2], high


_FUNCTIONS = (next_upper, colex_unrank, holding_bases)


# register(): callable from Numba's CPU code; register_cuda(), on the copy that
# tandem._twin.module("bn.set_walks") loads: from numba.cuda.jit code
register, register_cuda = core.registrars(_FUNCTIONS)
