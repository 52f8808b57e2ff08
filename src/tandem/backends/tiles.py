"""The generator axis of the CPU kernels: a generator's blocks, a tile at a time.

A fill kernel is compiled once a kind, for every generator: it asks the
generator for the words of a tile of blocks through the address of a small
compiled C function, and maps them.  Each generator has three such
functions, each compiled on first use and cached on disk by Numba:

* ``run(k0, k1, k2, k3, lane, first, count, words)``: the blocks ``first ..
  first + count - 1`` of ``lane``;
* ``gather(k0, k1, k2, k3, lane, blocks, count, words)``: the blocks
  ``blocks[0 .. count - 1]`` of ``lane``;
* ``across(k0, k1, k2, k3, lanes, block, count, words)``: the block ``block``
  of the lanes ``lanes[0 .. count - 1]``.

Each writes word ``r`` of the ``j``-th block to ``words[r * TILE_BLOCKS + j]``
(``count <= TILE_BLOCKS``): lane-major, so that LLVM vectorises the bijection
over the tile, and a map reads four contiguous rows.  A kernel calls them
through :func:`call`, an address being a run-time argument: the kernels and
their disk cache never depend on the generator.
"""

from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir
from numba import carray, cfunc, types
from numba.extending import intrinsic

from .. import core
from ..core.generators import GENERATORS
from ..core.tandem8x32 import TANDEM, lane_key
from . import tandem_cpu

core.register()

U64 = np.uint64
#: Blocks a tile (its words take 8 KiB of the L1 cache).  Each tile costs a
#: call and a loop's set-up: with 32 blocks the light fills (raw words,
#: uniform and normal f32) lost up to a third of their speed, with 512 they
#: lose none but raw uint64's 10-15 % (docs/performance.md).
TILE_BLOCKS = 512
#: The dtype of a tile's words: 32 bits, half the traffic of uint64 words.
WORD = np.uint32
_T = U64(TILE_BLOCKS)

_U64 = types.uint64
_U64S = types.CPointer(_U64)
_WORDS = types.CPointer(types.uint32)
_SIGNATURES = {"run": types.void(*(_U64,) * 7, _WORDS),
               "gather": types.void(*(_U64,) * 5, _U64S, _U64, _WORDS),
               "across": types.void(*(_U64,) * 4, _U64S, _U64, _U64, _WORDS)}


@functools.partial(core.jitable_cpu, inline=True)
def _put(words, j, x0, x1, x2, x3):
    """Write block ``j``'s words into the tile (the inverse of :func:`block`)."""
    words[j] = x0
    words[_T + j] = x1
    words[U64(2) * _T + j] = x2
    words[U64(3) * _T + j] = x3


def _run(block_at):
    def run(k0, k1, k2, k3, lane, first, count, out):
        words = carray(out, 4 * TILE_BLOCKS)
        for j in range(count):
            x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, first + j)
            _put(words, j, x0, x1, x2, x3)

    return run


def _gather(block_at):
    def gather(k0, k1, k2, k3, lane, at, count, out):
        blocks, words = carray(at, TILE_BLOCKS), carray(out, 4 * TILE_BLOCKS)
        for j in range(count):
            x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, blocks[j])
            _put(words, j, x0, x1, x2, x3)

    return gather


def _across(block_at):
    def across(k0, k1, k2, k3, at, block, count, out):
        lanes, words = carray(at, TILE_BLOCKS), carray(out, 4 * TILE_BLOCKS)
        for j in range(count):
            x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lanes[j], block)
            _put(words, j, x0, x1, x2, x3)

    return across


def _tandem_run(k0, k1, k2, k3, lane, first, count, out):
    """Tandem8x32's ``run``: rows eight lanes at a time, of the lane's key and
    ``K`` (:func:`tandem.core.tandem8x32.lane_key`)."""
    k0, k1, k2, k3, log2_k = lane_key(k0, k1, k2, k3, lane)
    tandem_cpu.tile_blocks(k0, k1, k2, k3, log2_k, first, count,
                           carray(out, 4 * TILE_BLOCKS), _T)


def _factory(generator, name):
    """The Python function of ``generator``'s tile function ``name``."""
    if generator == TANDEM and name == "run":
        return _tandem_run
    return _FACTORIES[name](GENERATORS[generator].block_at)


_FACTORIES = {"run": _run, "gather": _gather, "across": _across}
_COMPILED = {}  # keeps the compiled functions alive


@functools.lru_cache(maxsize=None)
def address(generator: int, name: str) -> np.uint64:
    """The address of ``generator``'s tile function ``name``, compiled on first use.

    Parameters
    ----------
    generator : int
        ``Stream.generator``: 0 for Philox4x32-10, 1 for Threefry4x32-20.
    name : {"run", "gather", "across"}
        Which of the functions of this module's docstring.

    Returns
    -------
    numpy.uint64
        The address, for :func:`call`.

    Examples
    --------
    >>> address(0, "run") != 0
    True
    """
    fn = cfunc(_SIGNATURES[name], cache=True)(_factory(generator, name))
    _COMPILED[generator, name] = fn
    return U64(fn.address)


@intrinsic
def call(typingctx, address, k0, k1, k2, k3, lane, first, count, words):
    """Call the tile function at ``address`` into ``words`` (``4 * TILE_BLOCKS`` of
    :data:`WORD`).

    ``lane`` and ``first`` are a uint64 each, or one of them a uint64 array
    (``across``'s lanes, ``gather``'s blocks); ``count`` of them.
    """
    def pointer_or_word(ty):
        return ty if isinstance(ty, types.Array) else types.uint64

    signature = types.void(*(types.uint64,) * 5, pointer_or_word(lane),
                           pointer_or_word(first), types.uint64, words)

    def codegen(context, builder, sig, args):
        values, kinds = [], []
        for value, ty in zip(args[1:], sig.args[1:]):
            if isinstance(ty, types.Array):
                value = context.make_array(ty)(context, builder, value).data
            values.append(value)
            kinds.append(value.type)
        function = builder.inttoptr(args[0], ir.FunctionType(ir.VoidType(), kinds).as_pointer())
        builder.call(function, values)
        return context.get_dummy_value()

    return signature, codegen


@functools.partial(core.jitable_cpu, inline=True)
def block(words, slot):
    """The four words of the tile's block ``slot``, as uint64."""
    s = U64(slot)
    return (U64(words[s]), U64(words[_T + s]), U64(words[U64(2) * _T + s]),
            U64(words[U64(3) * _T + s]))

