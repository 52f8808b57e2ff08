"""``tandem.Tandem``: the Tandem8x32 generator of the tandem specification.

A Tandem stream is the value ``(key, position, K)``: a four-word key, a bit
position and the chunk length, as the specification transports it
(``SPEC.md`` section 7).  Methods never change a stream: derivations return
new streams and draws return ``(values, next stream)``.  Every draw is the
text's: sections 5 and 6 for the raw draws and child keys, Appendix A for
bounded integers, normals and exponentials, Appendix C for weighted choice.

Guaranteed across versions: every value and position the specification
fixes, bit for bit with its conformance fixtures (``tests/data/tandem_spec``).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Optional, Union

import numpy as np

from .choice_table import ChoiceTable
from ._types import Array, ArrayLike, DTypeLike, Device, Seed, Size
from .core import generators as _generators
from .core import tandem8x32 as _t
from .core import tandem_draws as _draws
from .arrays import cupy
from .backends import affine
from .distributions import is_array, located
from .kinds import LOC, SCALE
from .stream import Stream, _as_uint, _is_integer, _seed_key, _unwrapped_seed, purpose_word

_U = np.uint64
_OWN = int(_t.OWN_LANE)
#: Constructors take positions below this (SPEC.md section 5).
START_LIMIT = 2**63
_END_LIMIT = 2**64

# The raw draws of section 5: dtype -> width in bits.
_WIDTHS = {np.dtype(np.bool_): 1, np.dtype(np.uint8): 8, np.dtype(np.int8): 8,
           np.dtype(np.uint16): 16, np.dtype(np.int16): 16, np.dtype(np.uint32): 32,
           np.dtype(np.int32): 32, np.dtype(np.uint64): 64, np.dtype(np.int64): 64}
_FLOATS = {np.dtype(np.float16): 16, np.dtype(np.float32): 32, np.dtype(np.float64): 64,
           np.dtype(np.complex64): 32, np.dtype(np.complex128): 64}


@functools.cache
def _cpu():
    from .backends import tandem_cpu  # imports Numba: not before the first fill

    return tandem_cpu


def _backend(out):
    """The backend that fills ``out``: the CPU's for a NumPy array, else CUDA's."""
    if isinstance(out, np.ndarray):
        return _cpu()
    from .backends import tandem_cuda

    return tandem_cuda


def _shape(size):
    """``(shape, n)`` of ``size``: None is a scalar (shape None, one element)."""
    if size is None:
        return None, 1
    if type(size) is int and size >= 0:  # the common call, without NumPy's dispatch
        return (size,), size
    shape = (operator.index(size),) if np.ndim(size) == 0 else tuple(
        operator.index(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError(f"size must be non-negative, got {size}")
    return shape, int(np.prod(shape, dtype=np.int64))


def _shaped(values, shape):
    return values[0] if shape is None else values.reshape(shape)


def _target(out, size, dtype, device=None):
    """``(flat output, shape, n)``: ``out`` itself, or a new array of ``size`` (a
    CuPy array for ``device="cuda"``)."""
    if device not in (None, "cpu", "cuda"):
        raise ValueError(f"device must be None, 'cpu' or 'cuda', got {device!r}")
    if out is None:
        shape, n = _shape(size)
        xp = cupy() if device == "cuda" else np
        return xp.empty(n, dtype), shape, n
    if getattr(out, "dtype", None) != dtype or not (
            isinstance(out, np.ndarray) or hasattr(out, "__cuda_array_interface__")):
        raise TypeError(f"out must be a NumPy or CUDA array of dtype {np.dtype(dtype)}")
    if not (out.flags.c_contiguous and (not isinstance(out, np.ndarray) or out.flags.writeable)):
        raise ValueError("out must be C-contiguous and writeable")
    if size is not None and _shape(size)[0] != out.shape:
        raise ValueError(f"size {size} does not match out's shape {out.shape}")
    return out.reshape(-1), out.shape, out.size


def _result(flat, shape, out):
    return out if out is not None else _shaped(flat, shape)


@functools.lru_cache(maxsize=4096)
def _purpose_key(k0, k1, k2, k3, u):
    """The core's ``purpose_key``, remembered: in plain Python it costs eight
    rounds of F, and every small sample asks for its continuation's key."""
    return _t.purpose_key(k0, k1, k2, k3, u)


class Tandem(Stream):
    """A Tandem8x32 stream: ``(key, position, K)``.

    Its own draws (raw bits, uniforms, bounded integers, normals,
    exponentials, weighted choice) are the specification's.  Every other law
    of tandem (``tandem.Generator``'s, :mod:`tandem.parametric`'s) reads it as
    a :class:`tandem.Stream` of 32-bit words: its lane is
    ``OWN_LANE`` (a Tandem stream has none; ``split`` makes children) and a
    rejected draw at word ``g`` continues on ``split(g)`` of the law's
    purpose (``docs/spec.md``, Tandem8x32).

    Parameters
    ----------
    seed : int, sequence of int, numpy.random.SeedSequence or None
        An integer in ``[0, 2**128)`` is whitened into the key as the
        specification states (section 6).  A larger integer, a sequence of
        non-negative integers, a ``SeedSequence`` or None (fresh entropy)
        gives the key words ``SeedSequence(seed).generate_state(4, uint32)``.
    K : int
        The chunk length: a power of two in ``[1, 65536]``, 32 by default
        (the canonical ``Tandem8x32-K32``).

    Attributes
    ----------
    key : tuple of int
        The four key words.
    position : int
        The bit position of the next draw.
    K : int
        The chunk length.

    Examples
    --------
    >>> import tandem
    >>> g = tandem.Tandem(42)
    >>> [hex(k) for k in g.key]
    ['0x421d21eb', '0x32d31777', '0x62e7564b', '0xdf2bdf82']
    >>> x, g = g.random()
    >>> float(x), g.position
    (0.9829130398628935, 64)
    """

    __slots__ = ("_log2_k",)
    generator = _generators.TANDEM.index
    key_words = _generators.TANDEM.key_words
    rounds = _generators.TANDEM.rounds
    #: The end of the stream in words (its bits stay below ``2**64``).
    word_limit = (_END_LIMIT - 1) // 32

    def __init__(self, seed: Seed = None, *, K: int = 32):
        seed = _unwrapped_seed(seed)
        if _is_integer(seed) and seed < 2**128:
            z = _as_uint(seed, "seed", 2**128)
            key = _t.seed_key(*(_U((z >> (32 * i)) & 0xFFFFFFFF) for i in range(4)))
            key = tuple(int(k) for k in key)
        else:
            key = _seed_key(seed, 4)
        self._key, self._lane, self._position, self._log2_k = key, _OWN, 0, _log2_chunk(K)

    @classmethod
    def from_key(cls, key: Optional[Sequence[int]], position: int = 0, K: int = 32) -> "Tandem":
        """The stream of a raw key, with no seed whitening.

        Parameters
        ----------
        key : sequence of int
            The four key words, each in ``[0, 2**32)``.
        position : int
            The bit position, in ``[0, 2**63)``.
        K : int
            The chunk length: a power of two in ``[1, 65536]``.

        Returns
        -------
        Tandem
            The stream ``(key, position, K)``, as the specification
            transports it (section 7).

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem.from_key((1, 2, 3, 4)).words(2)[0].tolist()
        [173788048, 1845401788]
        """
        key = tuple(_as_uint(k, "key word", 2**32) for k in key)
        if len(key) != 4:
            raise ValueError(f"key must have 4 words, got {len(key)}")
        return cls._of(key, _as_uint(position, "position", START_LIMIT), _log2_chunk(K))

    @classmethod
    def _of(cls, key, position, log2_k):
        stream = object.__new__(cls)
        stream._key, stream._lane, stream._position, stream._log2_k = key, _OWN, position, log2_k
        return stream

    # -- value semantics --------------------------------------------------
    @property
    def key(self) -> tuple:
        """The four key words, each in ``[0, 2**32)``.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem.from_key((1, 2, 3, 4)).key
        (1, 2, 3, 4)
        """
        return self._key

    @property
    def position(self) -> int:
        """The bit position of the next draw, in ``[0, 2**64)``.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem(1).words(3)[1].position
        96
        """
        return self._position

    @property
    def K(self) -> int:  # noqa: N802 (the specification's name)
        """The chunk length, a power of two in ``[1, 65536]``.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem(1).K, tandem.Tandem(1, K=8).K
        (32, 8)
        """
        return 1 << self._log2_k

    @property
    def variant(self) -> str:
        """The variant name that transports ``K``.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem(1).variant
        'Tandem8x32-K32'
        """
        return f"Tandem8x32-K{self.K}"

    def __eq__(self, other):
        if not isinstance(other, Tandem):
            return NotImplemented
        return (self._key, self._position, self._log2_k) == (
            other._key, other._position, other._log2_k)

    def __hash__(self):
        return hash(("Tandem", self._key, self._position, self._log2_k))

    def __repr__(self):
        key = ", ".join(f"0x{k:08x}" for k in self._key)
        return f"Tandem.from_key(({key}), position={self._position}, K={self.K})"

    def __reduce__(self):
        return (_rebuild, (self._key, self._position, self.K))

    def at(self, position: int) -> "Tandem":
        """The same key at another bit position.

        The cost does not depend on the distance.

        Parameters
        ----------
        position : int
            The bit position, in ``[0, 2**63)``.

        Returns
        -------
        Tandem
            The same key and chunk length at ``position``.

        Examples
        --------
        >>> import tandem
        >>> g = tandem.Tandem.from_key((1, 2, 3, 4))
        >>> g.at(64).words(2)[0].tolist() == g.words(4)[0][2:].tolist()
        True
        """
        return self._of(self._key, _as_uint(position, "position", START_LIMIT), self._log2_k)

    def _moved(self, position):
        return self._of(self._key, position, self._log2_k)

    def skip(self, n: int) -> "Tandem":
        """The same key ``n`` bits further on.

        Parameters
        ----------
        n : int
            Bits to move; negative moves back.  The result's position must
            lie in ``[0, 2**63)``.

        Returns
        -------
        Tandem
            The same key at ``position + n``.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem(1).skip(100).skip(-36).position
        64
        """
        return self.at(self._position + operator.index(n))

    # -- the engine's view (tandem.Stream) ----------------------------------
    @property
    def word_position(self) -> int:
        """The index of the next whole 32-bit word: the bit position rounded up.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem(1).at(33).word_position
        2
        """
        return -(-self._position // 32)

    def at_word(self, w: int) -> "Tandem":
        """The same key at the start of a 32-bit word.

        Parameters
        ----------
        w : int
            The word index; the position becomes ``32 w``.

        Returns
        -------
        Tandem
            The same key at bit ``32 w``.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem(1).at_word(3).position
        96
        """
        return self._moved(32 * w)

    @property
    def kernel_key(self) -> tuple:
        """The key words as the kernels take them: ``log2(K)`` above bit 32 of the first.

        See :func:`tandem.core.tandem8x32.lane_block_at`.

        Examples
        --------
        >>> import tandem
        >>> tandem.Tandem.from_key((1, 2, 3, 4), K=8).kernel_key == (1 | 3 << 32, 2, 3, 4)
        True
        """
        return (self._key[0] | self._log2_k << 32,) + self._key[1:]

    def continuation(self, purpose: Union[int, str]) -> "Tandem":
        """The stream whose ``split(g)`` continues a law's rejected draw at word ``g``.

        Parameters
        ----------
        purpose : int or str
            The law's purpose, as :meth:`sub` takes it.

        Returns
        -------
        Tandem
            ``sub(purpose)``.

        Examples
        --------
        >>> import tandem
        >>> g = tandem.Tandem(1)
        >>> g.continuation("tandem.sample") == g.sub("tandem.sample")
        True
        """
        return self.sub(purpose)

    # -- children (SPEC.md section 6) ------------------------------------
    def split(self, i: int) -> "Tandem":
        """Child ``i`` of the key alone, at the parent's position (section 6).

        Parameters
        ----------
        i : int
            The child's index, in ``[0, 2**64)``.

        Returns
        -------
        Tandem
            The child: a key of its own, the parent's position and ``K``.

        Examples
        --------
        >>> import tandem
        >>> hex(tandem.Tandem.from_key((1, 2, 3, 4)).split(0).key[0])
        '0xe256e9a1'
        """
        i = _as_uint(i, "i", 2**64)
        return self._child(_t.split_key(*self._words(), _U(i)), self._position)

    def sub(self, purpose: Union[int, str]) -> "Tandem":
        """The specification's ``purpose(u)``: the child for a purpose, at the parent's position.

        Parameters
        ----------
        purpose : int or str
            An integer in ``[0, 2**64)`` (the specification's ``u``) or a
            string, hashed to 64 bits as :func:`tandem.purpose_word` does.

        Returns
        -------
        Tandem
            The child: a key of its own, the parent's position and ``K``.

        Examples
        --------
        >>> import tandem
        >>> g = tandem.Tandem(1)
        >>> g.at(64).sub("noise").position, g.sub("noise").key == g.at(64).sub("noise").key
        (64, True)
        """
        u, _ = purpose_word(purpose)
        return self._child(_purpose_key(*self._words(), _U(u)), self._position)

    def fork(self, n: int):
        """Children of the current 128-bit block, and the parent moved past it.

        Parameters
        ----------
        n : int
            The number of children, in ``[0, 2**33]``.

        Returns
        -------
        children : list of Tandem
            ``n`` streams at position 0, each with a key of its own.
        next : Tandem
            The parent at the next block boundary, even for ``n = 0``.

        Examples
        --------
        >>> import tandem
        >>> children, g = tandem.Tandem(1).at(5).fork(2)
        >>> [c.position for c in children], g.position
        ([0, 0], 128)
        """
        n = _as_uint(n, "n", 2**33 + 1)
        b = self._position >> 7
        end = (b + 1) << 7
        if end >= _END_LIMIT:
            raise ValueError("fork: the parent's next block is past the end of the stream")
        words = self._words()
        children = [self._child(_t.fork_key(*words, _U(b), _U(i)), 0) for i in range(n)]
        return children, self._moved(end)

    def _words(self):
        return tuple(_U(k) for k in self._key)

    def _child(self, key, position):
        return self._of(tuple(int(k) for k in key), position, self._log2_k)

    # -- positions -------------------------------------------------------
    def _span(self, width, n, align=True):
        """``(p', end)`` of ``n`` draws of ``width`` bits; refuses an end at ``2**64``."""
        p = (self._position + width - 1) & ~(width - 1) if align else self._position
        end = p + width * n
        if end >= _END_LIMIT:
            raise ValueError(f"{n} draws of {width} bits from position {self._position} "
                             "pass the end of the stream (2**64 bits)")
        return p, end

    def _fill(self, law, first_word, out, params=None, table=None, threads=None):
        """Fill the flat ``out`` with ``law``'s elements from word ``first_word``."""
        return _backend(out).fill(law, self._key, self._log2_k, first_word, out, params, table,
                                  threads)

    def _stream_words(self, first_word, n, threads=None, out=None):
        out = np.empty(n, np.uint32) if out is None else out
        return self._fill("words", first_word, out, threads=threads)

    # -- raw draws (SPEC.md section 5) -------------------------------------
    def words(self, n: int, *, threads: Optional[int] = None):
        """Raw 32-bit words.

        Parameters
        ----------
        n : int
            The number of words.
        threads : int, optional
            CPU threads; never changes a bit.

        Returns
        -------
        values : numpy.ndarray of uint32
            The ``n`` words from the next whole word on.
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> words, g = tandem.Tandem.from_key((1, 2, 3, 4)).words(3)
        >>> words.tolist(), g.position
        ([173788048, 1845401788, 2517768586], 96)
        """
        return self.bits(n, dtype=np.uint32, threads=threads)

    def bits(self, size: Size = None, *, dtype: DTypeLike = np.uint32, out: Array = None,
             threads: Optional[int] = None, device: Device = None):
        """Raw draws of a width: ``(values, next stream)``.

        ``dtype`` is bool (1-bit draws), an 8- to 64-bit integer type, or
        ``"uint128"``/``"int128"`` (128-bit draws as ``(..., 2)`` uint64 or
        int64 arrays of their low and high halves).  Each draw is aligned to
        its width and read little-endian; signed types are two's complement.

        Parameters
        ----------
        size : int or tuple of int, optional
            The output's shape; None draws one value.
        dtype : dtype or {"uint128", "int128"}
            The draw's type and width.
        out : numpy.ndarray or cupy.ndarray, optional
            A C-contiguous array of ``dtype`` to fill (32- and 64-bit draws).
        threads : int, optional
            CPU threads; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where a new array is made: "cuda" makes a CuPy array.

        Returns
        -------
        values : numpy.ndarray, cupy.ndarray or scalar
            ``size``'s shape (with a last axis of 2 for 128-bit draws).
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> g = tandem.Tandem.from_key((1, 2, 3, 4))
        >>> g.bits(8, dtype=bool)[0].astype(int).tolist()
        [0, 0, 0, 0, 1, 0, 0, 1]
        """
        shape, n = _shape(size)
        if isinstance(dtype, str) and dtype in ("uint128", "int128"):
            p, end = self._span(128, n)
            words = self._stream_words(p >> 5, 4 * n, threads)
            values = words.view(np.uint64 if dtype == "uint128" else np.int64).reshape(n, 2)
            return (values[0] if shape is None else values.reshape(*shape, 2)), self._moved(end)
        dtype = np.dtype(dtype)
        if dtype not in _WIDTHS:
            raise TypeError(f"bits: unsupported dtype {dtype}")
        width = _WIDTHS[dtype]
        if out is not None or device == "cuda":
            if width < 32:
                raise TypeError("bits: out= and device='cuda' take 32- and 64-bit draws")
            flat, shape, n = _target(out, size, dtype, device)
            p, end = self._span(width, n)
            self._fill(f"words{'' if width == 32 else 64}", p >> 5, flat, threads=threads)
            return _result(flat, shape, out), self._moved(end)
        p, end = self._span(width, n)
        return _shaped(self._raw(p, width, n, threads).view(dtype), shape), self._moved(end)

    def _raw(self, p, width, n, threads=None):
        """The ``n`` draws of ``width`` bits from bit ``p`` (aligned), as unsigned."""
        if width == 1:
            first = p >> 5
            words = self._stream_words(first, ((p + n + 31) >> 5) - first, threads)
            bits = np.unpackbits(words.view(np.uint8), bitorder="little")
            return bits[p & 31:(p & 31) + n].view(np.bool_)
        if width >= 32:
            words = self._stream_words(p >> 5, n * (width >> 5), threads)
            return words.view(np.dtype(f"u{width // 8}"))
        first = p >> 5
        words = self._stream_words(first, ((p + width * n + 31) >> 5) - first, threads)
        offset = (p & 31) >> 3
        return words.view(np.uint8)[offset:offset + n * (width >> 3)].view(
            np.dtype(f"u{width // 8}"))

    def random(self, size: Size = None, *, dtype: DTypeLike = np.float64, out: Array = None,
               threads: Optional[int] = None, device: Device = None):
        """Uniform reals in ``[0, 1)``: ``(values, next stream)``.

        float64: ``(raw >> 11) 2**-53`` of a 64-bit draw; float32: ``(raw >> 8)
        2**-24`` of a 32-bit draw; float16: ``(raw >> 5) 2**-11`` of a 16-bit
        draw.  complex128 and complex64 take the real part, then the imaginary
        part, from consecutive draws.

        Parameters
        ----------
        size : int or tuple of int, optional
            The output's shape; None draws one value.
        dtype : dtype
            float64, float32, float16, complex128 or complex64.
        out : numpy.ndarray or cupy.ndarray, optional
            A C-contiguous array of ``dtype`` to fill.
        threads : int, optional
            CPU threads; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where a new array is made: "cuda" makes a CuPy array.

        Returns
        -------
        values : numpy.ndarray, cupy.ndarray or float
            Values in ``[0, 1)``, ``size``'s shape.
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> x, g = tandem.Tandem.from_key((1, 2, 3, 4)).random(17)
        >>> float(x[0]), float(x[16]), g.position
        (0.4296660861094629, 0.2921520424112306, 1088)
        """
        dtype = np.dtype(dtype)
        if dtype not in _FLOATS:
            raise TypeError(f"random: unsupported dtype {dtype}")
        flat, shape, n = _target(out, size, dtype, device)
        width = _FLOATS[dtype]
        count = 2 * n if dtype.kind == "c" else n
        p, end = self._span(width, count)
        real = np.float64 if width == 64 else np.float32 if width == 32 else np.float16
        values = flat.view(real)
        if width == 16:
            if not isinstance(values, np.ndarray):
                raise TypeError("random: float16 fills run on the CPU")
            raw = self._raw(p, 16, count, threads)
            values[...] = (raw >> np.uint16(5)).astype(np.float16) * np.float16(2.0**-11)
        elif count:
            self._fill(f"uniform{width}", p >> 5, values, threads=threads)
        return _result(flat, shape, out), self._moved(end)

    def chars(self, size: Size = None, *, threads: Optional[int] = None):
        """Unicode scalar values: ``(str array of dtype "<U1", next stream)``.

        ``u = floor(raw 1112064 / 2**64)`` of a 64-bit draw, plus ``0x800`` from
        ``0xd800`` on, so that no surrogate appears.

        Parameters
        ----------
        size : int or tuple of int, optional
            The output's shape; None draws one value.
        threads : int, optional
            CPU threads; never changes a bit.

        Returns
        -------
        values : numpy.ndarray of dtype <U1, or str
            One character an element.
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> chars, g = tandem.Tandem(1).chars(5)
        >>> chars.shape, g.position
        ((5,), 320)
        """
        shape, n = _shape(size)
        p, end = self._span(64, n)
        raw = self._raw(p, 64, n, threads)
        hi, lo = raw >> np.uint64(32), raw & np.uint64(0xFFFFFFFF)
        u = (hi * np.uint64(1112064) + ((lo * np.uint64(1112064)) >> np.uint64(32))) \
            >> np.uint64(32)
        u = np.where(u < 0xD800, u, u + np.uint64(0x800)).astype(np.uint32)
        return _shaped(u.view("<U1"), shape), self._moved(end)

    # -- Appendix A: bounded integers ----------------------------------------
    def below(self, bound: int, size: Size = None, *, width: Optional[int] = None,
              threads: Optional[int] = None, device: Device = None):
        """Integers uniform on ``[0, bound)`` by Lemire's method: ``(values, next stream)``.

        ``width`` is the draw width, 32 or 64; by default 32 when
        ``bound <= 2**32``, else 64.  ``bound = 0`` gives zeros, one draw each.
        A fill (``size`` not None) takes draw ``i`` for element ``i`` and moves
        by exactly ``size`` draws; a rejected draw retries on ``split(g)`` of
        ``purpose(P_w)`` of the key, ``g`` the draw's index in the stream.  A
        scalar (``size=None``) rejects onto the next draws of the stream.  An
        empty fill leaves the position as it is.

        Parameters
        ----------
        bound : int
            The bound, in ``[0, 2**64]``.
        size : int or tuple of int, optional
            The output's shape; None draws one value.
        width : {None, 32, 64}
            The draw width.
        threads : int, optional
            CPU threads; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where a new array is made: "cuda" makes a CuPy array.

        Returns
        -------
        values : numpy.ndarray of uint32 or uint64, or scalar
            Values in ``[0, bound)``.
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> int(tandem.Tandem(42).at(1).below(1000)[0]) < 1000
        True
        """
        bound = _as_uint(bound, "bound", 2**64 + 1)
        if width is None:
            width = 32 if bound <= 2**32 else 64
        if width not in (32, 64) or bound > 2**width:
            raise ValueError(f"below: width must be 32 or 64 and bound at most 2**width, got "
                             f"width {width}, bound {bound}")
        dtype = np.dtype(np.uint32 if width == 32 else np.uint64)
        out, shape, n = _target(None, size, dtype, None if size is None else device)
        if shape is not None and n == 0:
            return out.reshape(shape), self
        p, end = self._span(width, n)
        if bound == 0:  # zeros, one draw each
            out[...] = 0
            return _shaped(out, shape), self._moved(end)
        span = bound % 2**64
        threshold = (2**width - bound) % bound
        if shape is None:
            used = _cpu().below_scalars(*self._words(), _U(self._log2_k), _U(p >> 5), width,
                                        _U(span), _U(threshold), out)
            return out[0], self._moved(p + 32 * used)
        purpose = _draws.PURPOSE_BELOW32 if width == 32 else _draws.PURPOSE_BELOW64
        params = np.array([*(int(k) for k in _purpose_key(*self._words(), _U(purpose))),
                           span, threshold], np.uint64)
        self._fill(f"below{width}", p >> 5, out, params, threads=threads)
        return out.reshape(shape), self._moved(end)

    def integers(self, low: ArrayLike, high: Optional[ArrayLike] = None, size: Size = None, *,
                 dtype: DTypeLike = np.int64, endpoint: bool = False,
                 threads: Optional[int] = None):
        """Integers uniform on ``[low, high)`` (``[low, high]`` with ``endpoint``):
        ``(values, next stream)``.

        :meth:`below` of ``high - low`` (plus one with ``endpoint``), plus
        ``low``; ``high=None`` means ``[0, low)``.  The values do not depend on
        ``dtype``.

        Parameters
        ----------
        low : int
            The lowest value (the bound when ``high`` is None).
        high : int, optional
            One past the highest value (the highest with ``endpoint``).
        size : int or tuple of int, optional
            The output's shape; None draws one value.
        dtype : dtype
            An integer type that holds the interval.
        endpoint : bool
            Whether ``high`` is included.
        threads : int, optional
            CPU threads; never changes a bit.

        Returns
        -------
        values : numpy.ndarray or NumPy scalar of dtype
            Values in the interval.
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> values, g = tandem.Tandem.from_key((1, 2, 3, 4)).integers(1, 7, 5)
        >>> values.tolist(), g.position
        ([1, 3, 4, 5, 2], 160)
        """
        if high is None:
            low, high = 0, low
        low, high = operator.index(low), operator.index(high)
        bound = high - low + (1 if endpoint else 0)
        info = np.iinfo(dtype)
        if bound <= 0 or low < info.min or low + bound - 1 > info.max:
            raise ValueError(f"integers: empty or out-of-range interval [{low}, {high}"
                             f"{']' if endpoint else ')'} for {np.dtype(dtype)}")
        if bound == 2**64:
            values, after = self.bits(size, dtype=np.uint64, threads=threads)
        else:
            values, after = self.below(bound, size, threads=threads)
        # one pass to 64 bits (modulo 2**64), then a view or a narrowing cast
        values = np.add(np.asarray(values), np.uint64(low % 2**64), dtype=np.uint64)
        if np.dtype(dtype).kind == "i":
            values = values.view(np.int64)
        return values.astype(dtype, copy=False)[()], after

    # -- Appendix A: normals and exponentials -----------------------------------
    def normal(self, size: Size = None, *, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0,
               dtype: DTypeLike = np.float64, method: Optional[str] = None, out: Array = None,
               threads: Optional[int] = None, device: Device = None):
        """Normal variates: ``(values, next stream)``.

        float64: the 1024-layer ziggurat on one 64-bit draw an element, misses
        on ``split(g)`` of ``purpose(0x4e524d3634)``.  float32: Box-Muller on
        the pair of 32-bit draws ``2j, 2j + 1``, the cosine into element
        ``2j`` and the sine into ``2j + 1``; an odd size drops the last sine
        and still moves past both draws.  ``loc + scale z`` when ``loc`` or
        ``scale`` is given, ``fma(z, scale, loc)`` rounded once as every
        tandem fill does; either may be an array that broadcasts to the
        output's shape.  An empty float32 fill leaves the position.

        Parameters
        ----------
        size : int or tuple of int, optional
            The output's shape; None draws one value.
        loc : float or array_like of floats
            The mean.
        scale : float or array_like of floats
            The standard deviation, non-negative.
        dtype : dtype
            float64 or float32.
        method : {None, "zig"}
            None: the specification's rule; ``"zig"``: tandem's own rule of
            that name (:meth:`tandem.Stream.normal`) on this stream.
        out : numpy.ndarray or cupy.ndarray, optional
            A C-contiguous array of ``dtype`` to fill.
        threads : int, optional
            CPU threads; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where a new array is made: "cuda" makes a CuPy array.

        Returns
        -------
        values : numpy.ndarray, cupy.ndarray or float
            ``size``'s shape (or ``out``'s).
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> z, g = tandem.Tandem.from_key((1, 2, 3, 4)).normal(3)
        >>> z.round(6).tolist(), g.position
        ([0.338653, 1.172422, 1.51035], 192)
        """
        if method is not None:
            return super().normal(size, loc=loc, scale=scale, dtype=dtype, method=method,
                                  out=out, threads=threads, device=device)
        dtype = np.dtype(dtype)
        if dtype not in (np.float32, np.float64):
            raise TypeError(f"normal: dtype must be float32 or float64, got {dtype}")
        if is_array(loc) or is_array(scale):
            finish, device, shape = located(dtype, out, device, size, False, loc, scale)
            values, after = self.normal(None if out is not None else shape, dtype=dtype,
                                        out=out, threads=threads, device=device)
            finish(values)
            return values, after
        scale, loc = SCALE.check(scale, dtype), LOC.check(loc, dtype)
        flat, shape, n = _target(out, size, dtype, device)
        if dtype == np.float64:
            p, end = self._span(64, n)
            if n:
                params = np.array([int(k) for k in _purpose_key(
                    *self._words(), _U(_draws.PURPOSE_NORMAL64))], np.uint64)
                self._fill("normal64", p >> 5, flat, params, _draws.ZIGGURAT_TABLE, threads)
        elif n == 0:
            return _result(flat, shape, out), self
        else:
            pairs = (n + 1) // 2
            p, end = self._span(32, 2 * pairs)
            self._fill("normal32", p >> 5, flat, threads=threads)
        if loc != 0.0 or scale != 1.0:
            xp = cupy() if device == "cuda" else np
            affine.located(flat, xp.asarray(scale, dtype), xp.asarray(loc, dtype))
        return _result(flat, shape, out), self._moved(end)

    def exponential(self, size: Size = None, *, scale: ArrayLike = 1.0,
                    dtype: DTypeLike = np.float64, method: Optional[str] = "inv", out: Array = None,
                    threads: Optional[int] = None, device: Device = None):
        """Standard exponentials times ``scale``: ``(values, next stream)``.

        float64: ``0.5 L(1 - u)`` with the reference logarithm ``L`` (Appendix
        A), exact across implementations; float32: the same ``L`` of the f32
        uniform, rounded once to f32; ``scale`` may be an array that broadcasts
        to the output's shape.  One draw an element; an empty fill
        leaves the position.

        Parameters
        ----------
        size : int or tuple of int, optional
            The output's shape; None draws one value.
        scale : float or array_like of floats
            The mean, non-negative.
        dtype : dtype
            float64 or float32.
        method : {"inv", "zig"}
            ``"inv"``: the specification's rule; ``"zig"``: tandem's own
            ziggurat (:meth:`tandem.Stream.exponential`) on this stream.
        out : numpy.ndarray or cupy.ndarray, optional
            A C-contiguous array of ``dtype`` to fill.
        threads : int, optional
            CPU threads; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where a new array is made: "cuda" makes a CuPy array.

        Returns
        -------
        values : numpy.ndarray, cupy.ndarray or float
            ``size``'s shape (or ``out``'s).
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> x, g = tandem.Tandem.from_key((1, 2, 3, 4)).exponential(3)
        >>> x.round(6).tolist(), g.position
        ([0.561533, 1.115169, 1.237871], 192)
        """
        if method != "inv":
            return super().exponential(size, scale=scale, dtype=dtype, method=method, out=out,
                                       threads=threads, device=device)
        dtype = np.dtype(dtype)
        if dtype not in (np.float32, np.float64):
            raise TypeError(f"exponential: dtype must be float32 or float64, got {dtype}")
        if is_array(scale):
            finish, device, shape = located(dtype, out, device, size, False, scale=scale)
            values, after = self.exponential(None if out is not None else shape, dtype=dtype,
                                             out=out, threads=threads, device=device)
            finish(values)
            return values, after
        scale = SCALE.check(scale, dtype)
        flat, shape, n = _target(out, size, dtype, device)
        if n == 0:
            return _result(flat, shape, out), self
        width = dtype.itemsize * 8
        p, end = self._span(width, n)
        self._fill(f"exponential{width}", p >> 5, flat, threads=threads)
        if scale != 1.0:
            flat *= dtype.type(scale)
        return _result(flat, shape, out), self._moved(end)

    # -- Appendix C: weighted choice ------------------------------------------
    def choice(self, table: ChoiceTable, size: Size = None, *, threads: Optional[int] = None,
               device: Device = None):
        """Indices drawn from a :class:`tandem.ChoiceTable`: ``(uint32 values, next stream)``.

        One 64-bit draw an index (Appendix C); an empty fill aligns the
        position to 64 bits.

        Parameters
        ----------
        table : tandem.ChoiceTable
            The weights, prepared once.
        size : int or tuple of int, optional
            The output's shape; None draws one index.
        threads : int, optional
            CPU threads; never changes a bit.
        device : {None, "cpu", "cuda"}, optional
            Where a new array is made: "cuda" makes a CuPy array.

        Returns
        -------
        values : numpy.ndarray or cupy.ndarray of uint32, or scalar
            Indices into the table's weights.
        next : Tandem
            The stream past the draws.

        Examples
        --------
        >>> import tandem
        >>> table = tandem.ChoiceTable([0.1, 0.6, 0.3])
        >>> tandem.Tandem.from_key((1, 2, 3, 4)).choice(table, 6)[0].tolist()
        [1, 2, 2, 1, 1, 1]
        """
        if not isinstance(table, ChoiceTable):
            raise TypeError(f"choice: table must be a tandem.ChoiceTable, got "
                            f"{type(table).__name__}")
        out, shape, n = _target(None, size, np.dtype(np.uint32), device)
        p, end = self._span(64, n)
        if n:
            self._fill("choice", p >> 5, out, np.array([table.m, table.capacity], np.uint64),
                       np.concatenate([table.cut, table.alias.astype(np.uint64)]), threads)
        return _shaped(out, shape), self._moved(end)


def _log2_chunk(k):
    k = _as_uint(k, "K", _t.MAX_K + 1)
    if k == 0 or k & (k - 1):
        raise ValueError(f"K must be a power of two in [1, {_t.MAX_K}], got {k}")
    return k.bit_length() - 1


def _rebuild(key, position, k):
    return Tandem.from_key(key, position, k)
