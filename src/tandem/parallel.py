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


def _renew_lock():
    global _lock
    _lock = threading.Lock()  # a thread of the parent may have held it at the fork


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
