"""How tandem's compiled kernels use the cores.

Fills, addressed fills and row kernels are serial ``nogil`` loops over a range
``lo:hi`` of their work; :func:`ranges` cuts the work into contiguous ranges
and runs them on a process-wide pool of Python threads.  Every value is a
function of its element alone, so it never depends on the cut or the thread
count, and no kernel has a parallel loop for the parfor passes to transform
(they compile faster, ``docs/performance.md``).  The pool is renewed in a
forked child, and any number of threads may call :func:`ranges` at once.

The kernels of :mod:`tandem.bn` and :mod:`tandem.smc` still use ``prange``,
under this rule for Numba's threading layer (measured in
``benchmarks/threading.py``, see ``docs/performance.md``):

* Unless the user chose a layer (``NUMBA_THREADING_LAYER``, or
  ``NUMBA_THREADING_LAYER_PRIORITY``, or ``numba.config`` before the first
  parallel call), the layer is ``tbb`` when the ``tbb`` package loads, else
  ``workqueue``; never GNU OpenMP by default, because a process that has
  used it cannot fork a child that uses it again (``multiprocessing``'s
  default start method on Linux before Python 3.14).
* ``workqueue`` aborts the process when two threads enter parallel regions
  at once, so under it tandem's kernels take one process-wide lock.  Under
  ``tbb`` and ``omp`` they run concurrently without one.  Values never
  depend on the layer, the lock or the thread count.

Nothing here imports Numba until a kernel is called.
"""

from __future__ import annotations

import concurrent.futures
import functools
import os
import threading
from typing import Callable, Optional

#: The order in which Numba tries layers when the user named none (``tbb``
#: loads only when the ``tbb`` package is installed).
LAYER_PRIORITY = ("tbb", "workqueue", "omp")
_PRIORITY_VARIABLE = "NUMBA_THREADING_LAYER_PRIORITY"

_lock = threading.Lock()
_needs_lock = True  # until Numba says which layer runs


_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def _renew_after_fork():
    global _lock, _pool, _pool_lock
    _lock = threading.Lock()  # a thread of the parent may have held it at the fork
    _pool_lock = threading.Lock()
    _pool = None  # the parent's workers do not exist in the child


os.register_at_fork(after_in_child=_renew_after_fork)


def default_threads() -> int:
    """The threads a kernel uses when its caller names none: Numba's
    ``get_num_threads()`` once Numba's threading layer runs (so that
    ``numba.set_num_threads`` applies), else ``NUMBA_NUM_THREADS``."""
    import numba
    from numba.np.ufunc import parallel as layer

    if getattr(layer, "_is_initialized", False):
        return numba.get_num_threads()
    return numba.config.NUMBA_NUM_THREADS


def _executor():
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(
                max(1, (os.cpu_count() or 1) - 1), thread_name_prefix="tandem")
        return _pool


def ranges(kernel: Callable, n: int, grain: int, threads: Optional[int], *args) -> None:
    """Run ``kernel(lo, hi, *args)`` over ``0:n`` cut into contiguous ranges.

    Parameters
    ----------
    kernel : callable
        A ``nogil`` compiled function that does the work of ``lo:hi`` (and
        nothing outside it), so that ranges may run at once.
    n : int
        The amount of work.
    grain : int
        Cuts fall on multiples of ``grain``, and work of at most one grain
        runs in the calling thread alone.
    threads : int or None
        The most threads to use; None: :func:`default_threads`.
    *args
        The kernel's other arguments.

    Examples
    --------
    >>> import numba, numpy as np
    >>> from tandem import parallel
    >>> @numba.njit(nogil=True)
    ... def squares(lo, hi, out):
    ...     for i in range(lo, hi):
    ...         out[i] = i * i
    >>> out = np.zeros(10, dtype=np.int64)
    >>> parallel.ranges(squares, 10, 4, 2, out)
    >>> out.tolist()
    [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
    """
    grains = -(-n // grain)
    pieces = min(grains, default_threads() if threads is None else threads)
    if pieces <= 1:
        kernel(0, n, *args)
        return
    step = -(-grains // pieces) * grain
    pool = _executor()
    futures = [pool.submit(kernel, lo, min(n, lo + step), *args) for lo in range(step, n, step)]
    try:
        kernel(0, step, *args)
    finally:
        for future in futures:
            future.result()


def _user_chose_layer():
    return ("NUMBA_THREADING_LAYER" in os.environ or _PRIORITY_VARIABLE in os.environ)


@functools.cache
def choose_layer():
    """Set Numba's layer priority to :data:`LAYER_PRIORITY` unless the user chose.

    Idempotent; called before tandem's first parallel kernel.  The
    environment variable is set as well, so that Numba's configuration
    reloads, and child processes started by ``spawn``, keep the rule.
    Returns whether tandem set the priority.
    """
    if _user_chose_layer():
        return False
    import numba

    if numba.config.THREADING_LAYER != "default":
        return False
    os.environ[_PRIORITY_VARIABLE] = " ".join(LAYER_PRIORITY)
    numba.config.THREADING_LAYER_PRIORITY = list(LAYER_PRIORITY)
    return True


def _layer_in_use():
    import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        return None


def guarded(kernel):
    """``kernel`` (a ``parallel=True`` Numba function), callable from any thread.

    The call takes tandem's process-wide lock while the layer is unknown or
    is ``workqueue``, which is not thread-safe.

    Parameters
    ----------
    kernel : callable
        A Numba dispatcher.

    Returns
    -------
    callable
        A function with the same arguments and result.

    Examples
    --------
    >>> import numba
    >>> from tandem import parallel
    >>> @numba.njit(parallel=True)
    ... def total(x):
    ...     s = 0.0
    ...     for i in numba.prange(x.size):
    ...         s += x[i]
    ...     return s
    >>> import numpy as np
    >>> float(parallel.guarded(total)(np.ones(4)))
    4.0
    """

    choose_layer()

    @functools.wraps(kernel)
    def call(*args):
        global _needs_lock
        if not _needs_lock:
            return kernel(*args)
        with _lock:
            result = kernel(*args)
            _needs_lock = _layer_in_use() in (None, "workqueue")
        return result

    return call
