"""Streams: immutable, hashable (generator, key, lane, position) values.

A stream names a sequence of 32-bit words, ``docs/spec.md`` gives the
layout.  Methods never change a stream: derivations return new streams and
fills return ``(values, next_stream)``.

Guaranteed across versions: the key of every seed, the keys that ``sub`` and
``split`` derive, the purpose hash, and the words every stream names.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import numbers
from collections.abc import Sequence
from typing import Optional, Union

import numpy as np

from .alias import AliasTable
from ._types import Array, ArrayLike, DTypeLike, Device, Seed, Size
from . import law_methods
from . import laws as _laws
from .core import generators as _generators
from .core import derivation as _der

_ISeedSequence = np.random.bit_generator.ISeedSequence

#: One past the last word of a lane.
POSITION_LIMIT = 2**64
_U64_LIMIT = 2**64


def _range_text(limit):
    """``[0, 2**k)`` for a power-of-two ``limit``, ``[0, 2**k]`` for one past it."""
    if limit & (limit - 1) == 0:
        return f"[0, 2**{limit.bit_length() - 1})"
    return f"[0, 2**{(limit - 1).bit_length() - 1}]"


def _unwrapped_seed(seed):
    """``seed``, or the integer of a 0-d integer array; a ``ValueError`` for a
    negative integer."""
    if isinstance(seed, np.ndarray) and seed.ndim == 0 and seed.dtype.kind in "iu":
        seed = seed.item()
    if _is_integer(seed) and seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return seed


def _is_integer(seed) -> bool:
    return isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_))


def _seed_key(seed, key_words):
    """The key words of ``seed`` (see ``docs/spec.md``, Seeds)."""
    seed = _unwrapped_seed(seed)
    if _is_integer(seed) and seed < 2 ** (32 * key_words):
        seed = _as_uint(seed, "seed", 2 ** (32 * key_words))
        return tuple((seed >> (32 * i)) & 0xFFFFFFFF for i in range(key_words))
    if _is_integer(seed):  # beyond the key: as NumPy, any size
        seed = np.random.SeedSequence(int(seed))
    elif seed is None:
        seed = np.random.SeedSequence()
    elif not isinstance(seed, _ISeedSequence):
        seed = _seed_sequence(seed)
    words = seed.generate_state(key_words, np.uint32)
    return tuple(int(w) for w in words)


def _seed_sequence(seed):
    """``numpy.random.SeedSequence(seed)`` for a sequence of non-negative integers."""
    if isinstance(seed, (str, bytes, bool, np.bool_, numbers.Number)) or (
            np.ndim(seed) != 1 or len(seed) == 0):
        raise TypeError("seed must be an integer, a non-empty sequence of integers, a "
                        f"numpy SeedSequence or None, got {type(seed).__name__}")
    for entry in seed:
        if isinstance(entry, (bool, np.bool_)) or not isinstance(entry, numbers.Integral):
            raise TypeError(f"seed: a sequence of integers, got an element of type "
                            f"{type(entry).__name__}")
        if entry < 0:
            raise ValueError(f"seed: the integers must be non-negative, got {entry}")
    return np.random.SeedSequence([int(entry) for entry in seed])


def _as_uint(value, name, limit):
    if type(value) is int and 0 <= value < limit:  # the common case, without ABC checks
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if not 0 <= value < limit:
        raise ValueError(f"{name} must be in {_range_text(limit)}, got {value}")
    return value


@functools.lru_cache(maxsize=4096)
def _string_word(purpose):
    digest = hashlib.blake2b(purpose.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def purpose_word(purpose: Union[int, str]):
    """The (64-bit word, domain) that ``sub(purpose)`` feeds to the derivation.

    An integer in ``[0, 2**64)`` is its own word, in the integer domain. A
    string is the first 8 bytes, little-endian, of BLAKE2b (digest size 8) of
    its UTF-8 encoding, in the string domain, so no string collides with an
    integer by construction.  Strings that start with ``"tandem."`` are
    reserved for the library's own purposes.

    Parameters
    ----------
    purpose : int or str
        An integer in ``[0, 2**64)`` or a string.

    Returns
    -------
    word : int
        The 64-bit word.
    domain : int
        The domain of integers or that of strings.

    Examples
    --------
    >>> import tandem
    >>> tandem.purpose_word(5)[0], tandem.purpose_word("noise")[1] != tandem.purpose_word(5)[1]
    (5, True)
    """
    if isinstance(purpose, str):
        try:
            return _string_word(purpose), int(_der.DOMAIN_PURPOSE_STR)
        except UnicodeEncodeError as error:
            raise ValueError(f"purpose must be a string that UTF-8 can encode, got "
                             f"{purpose!r:.60} ({error.reason} at index {error.start})") from None
    return _as_uint(purpose, "purpose", _U64_LIMIT), int(_der.DOMAIN_PURPOSE_INT)


def _words(key):
    return tuple(np.uint64(k) for k in key) + (np.uint64(0),) * (4 - len(key))


@functools.lru_cache(maxsize=4096)
def _derive_split(generator, key, lane):
    k = _der.split_key(generator, *_words(key), np.uint64(lane))
    return tuple(int(x) for x in k[: len(key)])


@functools.lru_cache(maxsize=4096)
def _derive_sub(generator, key, lane, word, domain):
    k = _der.sub_key(generator, *_words(key), np.uint64(lane), np.uint64(word), np.uint64(domain))
    return tuple(int(x) for x in k[: len(key)])


#: The fill functions the methods of :class:`Stream` call, by name.  They
#: live above this module (:mod:`tandem.distributions`, :mod:`tandem.sampling`),
#: which register them when ``tandem`` is imported, so nothing here imports
#: up the layers.
_fills = {}


def register_fills(**functions):
    """Make ``functions`` (name -> fill function) the ones the Stream methods call."""
    _fills.update(functions)


class Stream:
    """A counter-based stream: (generator, key, lane, position).

    Use :class:`Philox` or :class:`Threefry` to make one from a seed.

    Parameters
    ----------
    seed : int, sequence of int, numpy.random.SeedSequence or None
        An integer is the key itself (its little-endian 32-bit words); a
        sequence of non-negative integers is ``SeedSequence(seed)``; a
        ``SeedSequence`` gives the key words ``seed.generate_state(key_words,
        uint32)``; None (the default) draws fresh entropy from the operating
        system, as NumPy does, so two calls give different streams.
    key : tuple of int, optional
        The key words themselves, instead of a seed.
    lane : int
        The lane, default 0.
    position : int
        The position, default 0.

    Attributes
    ----------
    key : tuple of int
        The key words (2 for Philox, 4 for Threefry), each below ``2**32``.
    lane : int
        The 64-bit lane: a disjoint sub-sequence of the key's words.
    position : int
        The index of the next 32-bit word, in ``[0, 2**64]``.

    Examples
    --------
    >>> import tandem
    >>> s = tandem.Philox(7, lane=3)
    >>> x, s = s.random(2)
    >>> s.lane, s.position
    (3, 4)
    """

    __slots__ = ("_key", "_lane", "_position")
    generator: int = -1
    key_words: int = 0
    rounds: int = 0

    def __init__(self, seed: Seed = None, *, key: Optional[Sequence[int]] = None, lane: int = 0,
                 position: int = 0):
        if key is None:
            key = _seed_key(seed, self.key_words)
        else:
            if seed is not None:
                raise TypeError("give either seed or key, not both")
            key = tuple(_as_uint(k, "key word", 2**32) for k in key)
            if len(key) != self.key_words:
                raise ValueError(f"key must have {self.key_words} words, got {len(key)}")
        self._key = key
        self._lane = _as_uint(lane, "lane", _U64_LIMIT)
        self._position = _as_uint(position, "position", POSITION_LIMIT + 1)

    # -- value semantics ------------------------------------------------
    @property
    def key(self) -> tuple:
        """The key words (2 for Philox, 4 for Threefry), each below ``2**32``.

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(2**32 + 5).key
        (5, 1)
        """
        return self._key

    @property
    def lane(self) -> int:
        """The 64-bit lane: a disjoint sub-sequence of the key's words.

        Returns
        -------
        int

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).split(7).lane
        7
        """
        return self._lane

    @property
    def position(self) -> int:
        """The index of the next 32-bit word, in ``[0, 2**64]``.

        Returns
        -------
        int

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).words(3)[1].position
        3
        """
        return self._position

    @property
    def seed(self):
        """The integer whose little-endian 32-bit words are the key.

        Returns
        -------
        int

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(12345).seed
        12345
        """
        return sum(k << (32 * i) for i, k in enumerate(self._key))

    @classmethod
    def _from_checked(cls, key, lane, position):
        """A stream from values already checked, without checking them again."""
        stream = object.__new__(cls)
        stream._key, stream._lane, stream._position = key, lane, position
        return stream

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return NotImplemented
        return (type(self), self._key, self._lane, self._position) == (
            type(other), other._key, other._lane, other._position)

    def __hash__(self):
        return hash((type(self).__name__, self._key, self._lane, self._position))

    def __repr__(self):
        key = ", ".join(f"0x{k:08x}" for k in self._key)
        return f"{type(self).__name__}(key=({key}), lane={self._lane}, position={self._position})"

    def __reduce__(self):
        return (_rebuild, (type(self), self._key, self._lane, self._position))

    # -- derivation -------------------------------------------------------
    def sub(self, purpose: Union[int, str]):
        """A stream for ``purpose``: a new key from (key, lane, purpose), lane 0, position 0.

        Parameters
        ----------
        purpose : int or str
            An integer in ``[0, 2**64)`` or a string (hashed, see
            :func:`purpose_word`).

        Returns
        -------
        Stream
            Independent of this stream's position.

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).sub("noise") == tandem.Philox(1).at(9).sub("noise")
        True
        """
        word, domain = purpose_word(purpose)
        return self._from_checked(_derive_sub(self.generator, self._key, self._lane, word, domain),
                                  0, 0)

    def split(self, g: int):
        """Lane ``g`` of the split key of (key, lane), at position 0.

        All ``split`` streams of one stream share one key, derived once, so a
        per-item stream costs no key derivation; distinct ``g`` never overlap.

        Parameters
        ----------
        g : int
            The lane, in ``[0, 2**64)``.

        Returns
        -------
        Stream
            The same key and generator.

        Examples
        --------
        >>> import tandem
        >>> a, b = tandem.Philox(1).split(0), tandem.Philox(1).split(1)
        >>> a.key == b.key and a.lane != b.lane
        True
        """
        g = _as_uint(g, "g", _U64_LIMIT)
        return self._from_checked(_derive_split(self.generator, self._key, self._lane), g, 0)

    def skip(self, n: int):
        """The same stream ``n`` words further on.

        Parameters
        ----------
        n : int
            Words to move by; negative moves back.

        Returns
        -------
        Stream
            The same key and generator.

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).skip(5).skip(-2).position
        3
        """
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
            raise TypeError(f"n must be an integer, got {type(n).__name__}")
        return self.at(self._position + int(n))

    def at(self, position: int):
        """The same stream at word ``position``.

        Parameters
        ----------
        position : int
            In ``[0, 2**64]``.

        Returns
        -------
        Stream
            The same key and generator.

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).at(4).words(1)[0] == tandem.Philox(1).words(5)[0][4:]
        array([ True])
        """
        return self._from_checked(self._key, self._lane,
                                  _as_uint(position, "position", POSITION_LIMIT + 1))

    # -- the engine's view: 32-bit words, kernel key words ---------------
    #: The end of the lane in words: no fill's words reach past it.
    word_limit: int = POSITION_LIMIT

    @property
    def word_position(self) -> int:
        """The index of the next 32-bit word (here the position itself).

        Returns
        -------
        int

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).at(8).word_position
        8
        """
        return self._position

    def at_word(self, w: int) -> "Stream":
        """The same stream at word ``w`` (here :meth:`at`).

        Parameters
        ----------
        w : int
            The word, in ``[0, word_limit]``.

        Returns
        -------
        Stream
            The same key and generator.

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).at_word(3) == tandem.Philox(1).at(3)
        True
        """
        return self.at(w)

    @property
    def kernel_key(self) -> tuple:
        """The four key words that kernels take (a Philox key's last two are zero).

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(7).kernel_key
        (7, 0, 0, 0)
        """
        return self._key + (0,) * (4 - len(self._key))

    def continuation(self, purpose: Union[int, str]) -> "Stream":
        """The stream whose lane ``g`` continues a rejected draw at word ``g`` of a
        law with ``purpose``: ``sub(purpose).split(0)``.

        Parameters
        ----------
        purpose : int or str
            The law's purpose.

        Returns
        -------
        Stream
            The same key and generator.

        Examples
        --------
        >>> import tandem
        >>> tandem.Philox(1).continuation("x") == tandem.Philox(1).sub("x").split(0)
        True
        """
        return self.sub(purpose).split(0)

    # -- fills (tandem.distributions and tandem.sampling do the work) -------
    # Every fill takes ``out`` (a NumPy or CUDA array to write into),
    # ``threads`` (CPU threads, or threads per CUDA block) and ``device``
    # (None: where ``out`` is, else the CPU; "cuda" allocates CuPy arrays).
    def words(self, n: int, *, out: Array = None, threads: Optional[int] = None,
              device: Device = None):
        """``n`` raw 32-bit words from the position: ``(uint32 array, next stream)``."""
        return _fills["bits"](self, n, dtype=np.uint32, out=out, threads=threads,
                              device=device)

    def bits(self, size: Size = None, *, dtype: DTypeLike = np.uint32, out: Array = None,
             threads: Optional[int] = None, device: Device = None):
        """Raw bits: uint32 (one word each), uint64 (one 64-bit draw each) or
        bool (the top bit of one word each).  Returns ``(values, next stream)``."""
        return _fills["bits"](self, size, dtype=dtype, out=out, threads=threads,
                              device=device)

    def random(self, size: Size = None, *, dtype: DTypeLike = np.float64, interval: str = "[0,1)",
               out: Array = None, threads: Optional[int] = None, device: Device = None):
        """Uniform reals in ``[0, 1)`` or ``(0, 1]``: ``(values, next stream)``.

        f64 takes the top 53 bits of one 64-bit draw, f32 the top 24 bits of
        one word.
        """
        return _fills["random"](self, size, dtype=dtype, interval=interval, out=out,
                                threads=threads, device=device)

    def integers(self, low: ArrayLike, high: Optional[ArrayLike] = None, size: Size = None, *,
                 dtype: DTypeLike = np.int64, endpoint: bool = False, out: Array = None,
                 threads: Optional[int] = None, device: Device = None):
        """Unbiased integers in ``[low, high)`` (Lemire): ``(values, next stream)``.

        One word per element when ``high - low <= 2**32``, else one 64-bit
        draw; rejected draws continue on ``split(g)`` of
        ``sub("tandem.integers")``.
        """
        return _fills["integers"](self, low, high, size, dtype=dtype, endpoint=endpoint,
                                  out=out, threads=threads, device=device)

    def bernoulli(self, p: ArrayLike, size: Size = None, *, out: Array = None,
                  threads: Optional[int] = None, device: Device = None):
        """Bools that are True with probability ``p``: ``(values, next stream)``.

        One 64-bit draw ``d`` per element, True when ``d < floor(p * 2**64)``
        (always when ``p == 1``).
        """
        return _fills["bernoulli"](self, p, size, out=out, threads=threads, device=device)

    def normal(self, size: Size = None, *, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0,
               dtype: DTypeLike = np.float64, method: Optional[str] = None, out: Array = None,
               threads: Optional[int] = None, device: Device = None):
        """Normal variates with mean ``loc`` and standard deviation ``scale``:
        ``(values, next stream)``.

        f64: a 1024-layer ziggurat on one 64-bit draw per element; misses
        (0.43 %) continue on ``split(g)`` of ``sub("tandem.normal64")``.
        f32: Box-Muller on the aligned word pair of each element, one word per
        element, in f32 arithmetic (``tandem.core.fmath32``); with
        ``method="zig"``, a 256-layer ziggurat on one word per element, whose
        misses (1.49 %) continue on ``split(g)`` of ``sub("tandem.normal32")``.
        The value is ``fma(z, scale, loc)`` of the standard variate, in the
        output's precision (for f32 with ``loc`` and ``scale`` rounded to f32).
        """
        return _fills["normal"](self, size, loc=loc, scale=scale, dtype=dtype, method=method,
                                out=out, threads=threads, device=device)

    def exponential(self, size: Size = None, *, scale: ArrayLike = 1.0,
                    dtype: DTypeLike = np.float64, method: Optional[str] = "inv", out: Array = None,
                    threads: Optional[int] = None, device: Device = None):
        """Exponential variates with mean ``scale``: ``(values, next stream)``.

        ``method="inv"``: ``-log u``, with ``u`` in ``(0, 1]`` from one 64-bit
        draw (f64) or one word (f32, in f32) per element.  ``method="zig"``: a
        256-layer ziggurat on the same draw; misses (2.22 %) continue on
        ``split(g)`` of ``sub("tandem.exponential64")``
        (``"tandem.exponential32"``).  The value is the standard variate
        times ``scale``, in the output's precision (for f32 with ``scale``
        rounded to f32).
        """
        return _fills["exponential"](self, size, scale=scale, dtype=dtype, method=method,
                                     out=out, threads=threads, device=device)

    def choice(self, table: AliasTable, size: Size = None, *, out: Array = None,
               threads: Optional[int] = None, device: Device = None):
        """Indices drawn from a :class:`tandem.AliasTable`: ``(indices, next stream)``.

        One 64-bit draw per index; uint32 indices.
        """
        return _fills["choice"](self, table, size, out=out, threads=threads,
                                device=device)

    def sample(self, population: ArrayLike, weights: Optional[ArrayLike] = None, size: Size = None,
               *, replace: bool = True, out: Array = None, threads: Optional[int] = None,
               device: Device = None):
        """Members of ``population``, with or without replacement, uniformly or by
        ``weights``: ``(sample, next stream)``.

        Parameters
        ----------
        population : int or array_like
            ``range(n)`` for an int ``n``, or an array's entries along its
            first axis.
        weights : array_like of floats, optional
            Each member's weight (None: all alike).
        size : int or tuple of ints, optional
            The sample's shape (None: one member).
        replace : bool, optional
            With replacement: one draw an item.  Without: Fisher–Yates's
            first ``size`` entries from ``min(size, n - 1)`` draws, O(size)
            whatever ``n``; with ``weights``, one draw a member
            (Efraimidis–Spirakis).  :mod:`tandem.sampling` states the rules.
        out : numpy.ndarray or CUDA array, optional
            Where to write the sample.
        threads : int, optional
            CPU threads, or threads per CUDA block; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where the sample is made (None: where the arrays are, else the CPU).

        Returns
        -------
        (numpy.ndarray, Stream)
            The sample and the stream after its draws.

        Examples
        --------
        >>> import tandem
        >>> x, after = tandem.Philox(1).sample(10**12, size=3, replace=False)
        >>> len(set(x.tolist())), after == tandem.Philox(1).at(6)
        (3, True)
        """
        return _fills["sample"](self, population, weights, size, replace=replace, out=out,
                                threads=threads, device=device)

    def permutation(self, n: ArrayLike, *, threads: Optional[int] = None, device: Device = None):
        """A random permutation of ``range(n)``: ``(int64 array, next stream)``.

        Parameters
        ----------
        n : int
            The population, non-negative.
        threads : int, optional
            CPU threads for the draws; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where the result goes (the swaps run on the host).

        Returns
        -------
        (numpy.ndarray, Stream)
            Fisher–Yates from the front on ``n - 1`` 64-bit draws
            (``docs/spec.md``, Sampling), and the stream after them.

        Examples
        --------
        >>> import tandem
        >>> p, after = tandem.Philox(123456).permutation(8)
        >>> p.tolist()
        [1, 4, 2, 7, 3, 6, 5, 0]
        """
        return _fills["permutation"](self, n, threads=threads, device=device)

    def shuffle(self, x: ArrayLike, *, threads: Optional[int] = None):
        """Shuffle the array ``x`` in place along its first axis: ``(x, next stream)``.

        Parameters
        ----------
        x : numpy.ndarray or CUDA array
            Writeable, with at least one dimension.
        threads : int, optional
            CPU threads for the draws; never changes a bit.

        Returns
        -------
        (array, Stream)
            ``x``, now ``x[permutation(len(x))]``, and the stream after the draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> x, after = tandem.Philox(123456).shuffle(np.arange(8) * 10)
        >>> x.tolist()
        [10, 40, 20, 70, 30, 60, 50, 0]
        """
        return _fills["shuffle"](self, x, threads=threads)


#: The docstring of a fill of :class:`Stream`; the parameters every fill shares
#: close its Parameters.
_FILL_DOC = """{summary}

{rule}Parameters
----------
{parameters}out : numpy.ndarray or CUDA array, optional
    Where to write the values (C-contiguous, of the fill's dtype and ``size``).
threads : int, optional
    CPU threads, or threads per CUDA block; never changes a bit.
device : {{None, "cpu", "cuda"}}, optional
    Where the values are made (None: where ``out`` is, else the CPU).

Returns
-------
({returns}, Stream)
    The values (``docs/spec.md``, Draws) and the stream after their draws.

Examples
--------
>>> import tandem
>>> x, after = tandem.Philox(1).{call}
>>> {check}
"""
_SIZE = "size : int or tuple of ints, optional\n    The output's shape (None: one value).\n"
_DTYPE = "dtype : dtype, optional\n    {}\n"
#: Each fill's parameters before ``out``, its values' type, and an example
#: call with a check of its result.
_FILLS = {
    "words": ("n : int\n    How many words.\n", "numpy.ndarray of uint32",
              "words(4)", "x.dtype.name, after.position\n('uint32', 4)"),
    "bits": (_SIZE + _DTYPE.format("uint32, uint64 or bool."), "numpy.ndarray",
             "bits(2, dtype='uint64')", "x.dtype.name, after.position\n('uint64', 4)"),
    "random": (_SIZE + _DTYPE.format("float64 or float32.")
               + "interval : {'[0,1)', '(0,1]'}, optional\n    Which end is open.\n",
               "float or numpy.ndarray", "random(3)", "bool(((0 <= x) & (x < 1)).all())\nTrue"),
    "integers": ("low, high : int\n    The bounds (``high`` None: ``[0, low)``).\n" + _SIZE
                 + _DTYPE.format("An integer type.")
                 + "endpoint : bool, optional\n    Whether ``high`` is included.\n",
                 "int or numpy.ndarray", "integers(0, 10, 4)",
                 "bool(((0 <= x) & (x < 10)).all())\nTrue"),
    "bernoulli": ("p : float\n    The probability of True, in ``[0, 1]``.\n" + _SIZE,
                  "bool or numpy.ndarray", "bernoulli(0.5, 4)", "x.dtype.name\n'bool'"),
    "normal": (_SIZE + "loc, scale : float\n    Mean and standard deviation.\n"
               + _DTYPE.format("float64 or float32.")
               + "method : {None, 'zig'}, optional\n    f32's ziggurat.\n",
               "float or numpy.ndarray", "normal(3, loc=1.0)", "x.shape\n(3,)"),
    "exponential": (_SIZE + "scale : float\n    The mean.\n" + _DTYPE.format("float64 or float32.")
                    + "method : {'inv', 'zig'}, optional\n    Inversion or a ziggurat.\n",
                    "float or numpy.ndarray", "exponential(3)", "bool((x > 0).all())\nTrue"),
    "choice": ("table : tandem.AliasTable\n    The weights' table.\n" + _SIZE,
               "int or numpy.ndarray of uint32", "choice(tandem.AliasTable([1, 0, 3]), 4)",
               "set(x.tolist()) <= {0, 2}\nTrue"),
}
for _name, (_parameters, _returns, _call, _check) in _FILLS.items():
    _method = getattr(Stream, _name)
    _summary, _, _rule = inspect.cleandoc(_method.__doc__).partition("\n\n")
    _summary = " ".join(_summary.split())
    _method.__doc__ = _FILL_DOC.format(summary=_summary, rule=_rule + "\n\n" if _rule else "",
                                       parameters=_parameters, returns=_returns, call=_call,
                                       check=_check)


_LAW_DOC = """{doc}: ``(values, next stream)``.

Parameters
----------
{parameters}size : int or tuple of int, optional
    The output's shape, to which the parameters broadcast (None: their
    broadcast shape, one value for scalars).
out : numpy.ndarray or CUDA array, optional
    Where to write the values (a C-contiguous {dtype} array of ``size``).
threads : int, optional
    CPU threads, or threads per CUDA block; never changes a bit.
device : {{None, "cpu", "cuda"}}, optional
    Where the values are made (None: where ``out`` is, else the CPU).

Returns
-------
({returns}, Stream)
    :func:`tandem.parametric.fill`'s values (the law's rule,
    ``docs/spec.md``) and the stream after them.

Examples
--------
>>> import tandem
>>> x, after = tandem.Philox(1).{name}({example}size=3)
>>> x.shape
(3,)
"""


def _law_method(law):
    """``Stream.<law.name>``: the law's parameters with NumPy's defaults, then
    ``size`` and the fills' keywords, and one call of the registered law fill."""
    source = (f"def {law.name}(self, {law_methods.signature(law)}"
              f"{law_methods.FILL_KEYWORDS}) -> tuple[Array, Stream]:\n"
              f"    return _fills['law'](self, {law.name!r}, {law_methods.arguments(law)}"
              "size=size, out=out, threads=threads, device=device)\n")
    doc = _LAW_DOC.format(doc=law.doc, name=law.name, parameters=law_methods.parameters_doc(law),
                          returns=law_methods.returns_doc(law), example=law_methods.example(law),
                          dtype="int64" if law.counts else "float64")
    return law_methods.make(law.name, source, {"_fills": _fills, "Stream": Stream}, doc,
                            __name__,
                            f"Stream.{law.name}")


for _law in (*_laws.LAWS.values(), *_laws.TWO_PARTS.values()):
    if not hasattr(Stream, _law.name):  # normal is the fill's own, above
        setattr(Stream, _law.name, _law_method(_law))
del _law


class Philox(Stream):
    """A Philox4x32-10 stream: Random123's words, and cuRAND's.

    Same words as cuRAND's Philox4_32_10 device API with ``curand_init(seed,
    lane, position)``.

    Parameters
    ----------
    seed : int, sequence of int, numpy.random.SeedSequence or None
        An integer in ``[0, 2**64)`` is the key ``(lo32, hi32)``; other
        seeds as :class:`Stream` takes them.
    key : tuple of int, optional
        The two key words themselves, instead of a seed.
    lane : int
        The 64-bit lane, default 0.
    position : int
        The index of the next 32-bit word, default 0.

    Examples
    --------
    >>> import numpy as np, tandem
    >>> tandem.Philox(7).key
    (7, 0)
    >>> tandem.Philox(np.random.SeedSequence(7)) == tandem.Philox([7])
    True
    >>> tandem.Philox() == tandem.Philox()  # fresh entropy each time
    False
    """

    __slots__ = ()
    generator = _generators.PHILOX.index
    key_words = _generators.PHILOX.key_words
    rounds = _generators.PHILOX.rounds


class Threefry(Stream):
    """A Threefry4x32-20 stream: Random123's words.

    Parameters
    ----------
    seed : int, sequence of int, numpy.random.SeedSequence or None
        An integer in ``[0, 2**128)`` gives the key's four little-endian
        32-bit words; other seeds as :class:`Stream` takes them.
    key : tuple of int, optional
        The four key words themselves, instead of a seed.
    lane : int
        The 64-bit lane, default 0.
    position : int
        The index of the next 32-bit word, default 0.

    Examples
    --------
    >>> import tandem
    >>> tandem.Threefry(2**96 + 5).key
    (5, 0, 0, 1)
    """

    __slots__ = ()
    generator = _generators.THREEFRY.index
    key_words = _generators.THREEFRY.key_words
    rounds = _generators.THREEFRY.rounds


_KINDS = {cls.__name__: cls for cls in (Philox, Threefry)}


def _rebuild(kind, key, lane, position):
    """A stream of class ``kind`` (or of the class so named, as pickled by
    tandem 0.2), with every value checked as the constructor checks it."""
    cls = _KINDS.get(kind) if isinstance(kind, str) else kind
    if not (isinstance(cls, type) and issubclass(cls, Stream) and cls.key_words):
        raise TypeError(f"cannot unpickle a stream of class {kind!r}")
    stream = object.__new__(cls)
    Stream.__init__(stream, key=key, lane=lane, position=position)
    return stream
