"""Numba's threading layer for tandem's parallel kernels, and one safe way to call them.

The rule (measured in ``benchmarks/threading.py``, see ``docs/performance.md``):

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

Serial ``nogil`` kernels over the pieces of a cut run on tandem's pool of
threads instead (:func:`in_pieces`: the fills, the CPU batch of filters): no
layer and no lock, and nothing to launch for a small call.

Nothing here imports Numba until a kernel is called.
"""

from __future__ import annotations

import functools
import os
import threading

#: The order in which Numba tries layers when the user named none (``tbb``
#: loads only when the ``tbb`` package is installed).
LAYER_PRIORITY = ("tbb", "workqueue", "omp")
_PRIORITY_VARIABLE = "NUMBA_THREADING_LAYER_PRIORITY"

_lock = threading.Lock()
_needs_lock = True  # until Numba says which layer runs
_pool_lock = threading.Lock()
_pool = None  # (process id, executor): a forked child makes its own


def _renew_lock():
    global _lock, _pool_lock
    _lock = threading.Lock()  # a thread of the parent may have held it at the fork
    _pool_lock = threading.Lock()


os.register_at_fork(after_in_child=_renew_lock)


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


def _executor():
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            import concurrent.futures

            import numba

            workers = numba.config.NUMBA_NUM_THREADS  # the most numba.set_num_threads allows
            _pool = (os.getpid(), concurrent.futures.ThreadPoolExecutor(workers))
        return _pool[1]


def in_pieces(work, pieces: int) -> None:
    """Call ``work(p)`` for each ``p`` in ``range(pieces)``: on this thread for
    one piece, else on tandem's pool of threads; return when all are done.

    ``work`` calls a serial ``nogil`` kernel on piece ``p`` of a cut that
    never changes a value, so no parallel region, threading layer or lock is
    involved.  Piece 0 runs on the calling thread.  The pool has
    ``numba.config.NUMBA_NUM_THREADS`` threads, and a process made by ``fork``
    makes its own.  ``work`` must not call ``in_pieces`` itself.

    Parameters
    ----------
    work : callable
        ``work(p)`` does piece ``p``.
    pieces : int
        How many pieces, at least 1.

    Raises
    ------
    Exception
        The first error a piece raised, after every piece has finished.

    Examples
    --------
    >>> from tandem import parallel
    >>> done = []
    >>> parallel.in_pieces(done.append, 3)
    >>> sorted(done)
    [0, 1, 2]
    """
    if pieces == 1:
        work(0)
        return
    futures = [_executor().submit(work, p) for p in range(1, pieces)]
    try:
        work(0)  # this thread takes a piece too, rather than wait idle
    finally:
        for future in futures:
            future.exception()  # wait for every piece before raising any error
    for future in futures:
        future.result()
