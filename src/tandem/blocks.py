"""The bijections over arrays: ``tandem.philox4x32`` and ``tandem.threefry4x32``."""

import numpy as np

from ._types import ArrayLike, Backend


def _apply(name, counter, key, key_words, rounds, backend):
    counter = np.asarray(counter)
    key = np.asarray(key)
    for arg, words, what in ((counter, 4, "counter"), (key, key_words, "key")):
        if not (np.issubdtype(arg.dtype, np.unsignedinteger) or np.issubdtype(arg.dtype, np.signedinteger)):
            raise TypeError(f"{what} must hold integers, got dtype {arg.dtype}")
        if arg.ndim == 0 or arg.shape[-1] != words:
            raise ValueError(f"{what} must have shape (..., {words}), got {arg.shape}")
        if arg.size and (arg.min() < 0 or arg.max() > 0xFFFFFFFF):
            raise ValueError(f"{what} words must be in [0, 2**32)")
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 0:
        raise ValueError(f"rounds must be a non-negative integer, got {rounds!r}")
    shape = np.broadcast_shapes(counter.shape[:-1], key.shape[:-1])
    c = np.ascontiguousarray(np.broadcast_to(counter, shape + (4,)), dtype=np.uint32).reshape(-1, 4)
    k = np.ascontiguousarray(np.broadcast_to(key, shape + (key_words,)), dtype=np.uint32)
    k = k.reshape(-1, key_words)
    if backend == "reference":
        from . import oracle

        out = getattr(oracle, name)(c, k, int(rounds))
    else:
        from .backends import cpu

        out = np.empty_like(c)
        cpu.bijection_array(name, c, k, int(rounds), out)
    return out.reshape(shape + (4,))


def philox4x32(counter: ArrayLike, key: ArrayLike, rounds: int = 10, *, backend: Backend = "cpu"):
    """Philox4x32 of arrays, exactly as Random123 defines it.

    Parameters
    ----------
    counter : array_like of uint32, shape (..., 4)
        The counters.
    key : array_like of uint32, shape (..., 2)
        Broadcast against ``counter``'s leading dimensions.
    rounds : int
        10 is the standard (and tandem's) choice.
    backend : {"cpu", "cuda", "reference"}
        Where the rounds run; ``"reference"`` computes in Python integers.

    Returns
    -------
    numpy.ndarray of uint32, shape (..., 4)
        The block of each counter under its key.

    Examples
    --------
    Random123's known-answer vector (``kat_vectors``: philox4x32, 10 rounds, all ones):

    >>> import tandem
    >>> ones = 0xFFFFFFFF
    >>> [hex(int(w)) for w in tandem.philox4x32([ones] * 4, [ones] * 2)]
    ['0x408f276d', '0x41c83b0e', '0xa20bc7c6', '0x6d5451fd']
    """
    return _apply("philox4x32", counter, key, 2, rounds, backend)


def threefry4x32(counter: ArrayLike, key: ArrayLike, rounds: int = 20, *, backend: Backend = "cpu"):
    """Threefry4x32 of arrays, exactly as Random123 defines it.

    Parameters
    ----------
    counter : array_like of uint32, shape (..., 4)
        The counters.
    key : array_like of uint32, shape (..., 4)
        Broadcast against ``counter``'s leading dimensions.
    rounds : int
        20 is the standard (and tandem's) choice.
    backend : {"cpu", "cuda", "reference"}
        Where the rounds run; ``"reference"`` computes in Python integers.

    Returns
    -------
    numpy.ndarray of uint32, shape (..., 4)
        The block of each counter under its key.

    Examples
    --------
    Random123's known-answer vector (``kat_vectors``: threefry4x32, 20 rounds, all ones):

    >>> import tandem
    >>> ones = 0xFFFFFFFF
    >>> [hex(int(w)) for w in tandem.threefry4x32([ones] * 4, [ones] * 4)]
    ['0x2a881696', '0x57012287', '0xf6c7446e', '0xa16a6732']
    """
    return _apply("threefry4x32", counter, key, 4, rounds, backend)
