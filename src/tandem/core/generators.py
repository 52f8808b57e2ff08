"""The generators, one record each: what a backend asks of a generator.

As JAX's ``PRNGImpl``: a backend that fills by blocks needs a generator's
block function and nothing else about it; key derivation (``sub``,
``split``) is the same construction over Philox's and Threefry's bijections
(:mod:`tandem.core.derivation`), and Tandem8x32's is its specification's
(:mod:`tandem.core.tandem8x32`).  Adding a generator is one block function,
one case of :func:`tandem.core.addressing.block_at` and one record here; no
law and no kernel names one.
"""

from typing import Callable, NamedTuple

from . import addressing, bijections, tandem8x32


class GeneratorImpl(NamedTuple):
    """One generator.

    Attributes
    ----------
    name : str
        Its name, as in Random123.
    index : int
        ``Stream.generator``, and its case of :func:`tandem.core.bijections.block`.
    key_words : int
        32-bit words of its key.
    rounds : int
        Rounds of its bijection.
    block_at : callable
        ``(k0, k1, k2, k3, lane, b) -> (x0, x1, x2, x3)``: block ``b`` of ``lane``,
        inlined into Numba's callers (:mod:`tandem.core.addressing`).
    """

    name: str
    index: int
    key_words: int
    rounds: int
    block_at: Callable


PHILOX = GeneratorImpl("philox4x32-10", bijections.PHILOX, 2, bijections.PHILOX_ROUNDS,
                       addressing.philox_block_at)
THREEFRY = GeneratorImpl("threefry4x32-20", bijections.THREEFRY, 4, bijections.THREEFRY_ROUNDS,
                         addressing.threefry_block_at)
#: Tandem8x32 of the tandem specification, for the laws it does not state
#: (its own draws are :mod:`tandem.core.tandem_draws`); the key words are
#: kernel key words (:func:`tandem.core.tandem8x32.lane_block_at`).
TANDEM = GeneratorImpl("tandem8x32", tandem8x32.TANDEM, 4, 8, tandem8x32.lane_block_at)
#: Every generator, indexed by ``Stream.generator``.
GENERATORS = (PHILOX, THREEFRY, TANDEM)
