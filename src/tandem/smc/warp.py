"""Warp shuffles and kernel decorators for the filters' CUDA kernels, on a GPU
and in Numba's CUDA simulator (which CI runs).

The simulator has no shuffles: there :func:`shuffle_xor` and
:func:`shuffle_up` trade through an array of the block behind one barrier,
so every thread of a block must call them; on a GPU :func:`lower_shuffles`
compiles each to one ``shfl`` instruction.
"""

from __future__ import annotations

import functools
import threading

import numpy as np
from numba import config, cuda

#: Threads of a warp.
WARP = 32
#: Every lane of a warp takes part (the shuffles' mask).
FULL_MASK = np.uint32(0xFFFFFFFF)


_MADE = threading.Lock()  # one block's arrays of trades, made once


def _trade(value):
    """``(lanes, p)``: every thread's ``value`` after one barrier, and this
    thread's index (the simulator's).

    The simulator runs a Python thread a CUDA thread and a fresh manager a
    block; the trades go through two arrays of the block's manager, taken in
    turn (each thread counts its trades), so a thread writes one only after
    every thread has read the trade before from it.  This reads the
    simulator's thread rather than the ``cuda`` module, which the simulator
    lends a module's functions only while a kernel of that module runs.
    """
    thread = threading.current_thread()
    manager = thread._manager
    trades = getattr(manager, "tandem_trades", None)
    if trades is None:
        with _MADE:
            if not hasattr(manager, "tandem_trades"):
                manager.tandem_trades = (np.zeros((2, 1024)), np.zeros(1024, dtype=np.int64))
            trades = manager.tandem_trades
    lanes, turns = trades
    p = thread.threadIdx.x
    turn = turns[p] % 2
    turns[p] += 1
    lanes[turn, p] = value
    thread.syncthreads()
    return lanes[turn], p


def shuffle_xor(mask, value, offset):
    """``value`` of the lane ``offset`` away by xor (``cuda.shfl_xor_sync``)."""
    lanes, p = _trade(value)
    return lanes[p ^ offset]


def shuffle_up(mask, value, delta):
    """``value`` of the lane ``delta`` below, or its own in the first
    ``delta`` lanes of a warp (``cuda.shfl_up_sync``)."""
    lanes, p = _trade(value)
    return lanes[p - delta] if p % WARP >= delta else value


@functools.lru_cache(maxsize=None)
def lower_shuffles():
    """Compile :func:`shuffle_xor` and :func:`shuffle_up` to shuffles on a GPU
    (once; nothing under the simulator)."""
    if config.ENABLE_CUDASIM:
        return
    from numba.cuda.extending import overload

    @overload(shuffle_xor, target="cuda")
    def _shuffle_xor(mask, value, offset):
        return lambda mask, value, offset: cuda.shfl_xor_sync(mask, value, offset)

    @overload(shuffle_up, target="cuda")
    def _shuffle_up(mask, value, delta):
        return lambda mask, value, delta: cuda.shfl_up_sync(mask, value, delta)


def kernel(**options):
    """``cuda.jit`` with ``options`` (which the simulator does not take)."""
    return cuda.jit if config.ENABLE_CUDASIM else cuda.jit(**options)


def device_function(fn):
    """``fn`` callable from kernels: ``register_jitable`` on a GPU, ``fn``
    itself under the simulator."""
    if config.ENABLE_CUDASIM:
        return fn
    from numba.cuda.extending import register_jitable

    return register_jitable(fn)
