"""``StreamBitGenerator``: a tandem stream as a NumPy bit generator.

``numpy.random.Generator(StreamBitGenerator(stream))`` is NumPy's own
Generator drawing tandem's words: every NumPy method works on it, and SciPy,
pandas and scikit-learn accept it wherever they accept a NumPy Generator.
It implements NumPy's documented bit generator interface (a ``bitgen_t``
capsule of C function pointers, here Numba ``cfunc``\\ s) over the stream's
words from its position on:

* ``next_uint32``: the word at the position, which moves on by one;
* ``next_uint64``: the 64-bit draw at the next even position (low word
  first, as ``docs/spec.md`` lays them out), which moves on past it;
* ``next_double``: that draw mapped by tandem's ``uniform64`` rule, so that
  ``Generator.random`` gives exactly ``stream.random``'s values.

The cfuncs are built (compiled, or loaded from Numba's cache) when the
capsule is first read, not when a bit generator is made; ``tandem.Generator``
defers that to its first call of a NumPy algorithm.

Which of NumPy's methods reproduce tandem's own fills, and which are NumPy's
algorithms on tandem's words (the same on any CPU, not cut-invariant or
addressable, and not on the GPU), is NumPy's business: only ``random`` (f64)
and the raw words are tandem's rules here.  ``tandem.Generator`` gives
tandem's rules by name.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import functools
import threading
import weakref
from typing import Any

import numpy as np

from ._types import DTypeLike, Size
from . import checks
from .stream import POSITION_LIMIT, Stream

#: The purpose whose lanes spawned children take (``docs/spec.md``, Seeds).
SPAWN_PURPOSE = "tandem.spawn"
#: The purpose whose words ``StreamSeedSequence.generate_state`` returns.
STATE_PURPOSE = "tandem.seed_state"

# The state a cfunc reads and writes: key words, lane, position, and where
# the position stands against the lane's end: before it, at it (position
# 2**64, stored as 0), or passed by a draw (whose words, and those after,
# were the lane's from position 0 again: not the stream's).
_LANE, _POSITION, _EXHAUSTED = 4, 5, 6
# Then the last block computed (four words) and its index plus one (0: none).
_BLOCK, _BUFFERED = 7, 11
# Then the generator (``Stream.generator``).
_GENERATOR = 12
_STATE_WORDS = 13
_OPEN, _AT_END, _PASSED = np.uint64(0), np.uint64(1), np.uint64(2)


class _BitgenStruct(ctypes.Structure):
    """NumPy's ``bitgen_t`` (``numpy/random/bitgen.h``)."""

    _fields_ = [("state", ctypes.c_void_p), ("next_uint64", ctypes.c_void_p),
                ("next_uint32", ctypes.c_void_p), ("next_double", ctypes.c_void_p),
                ("next_raw", ctypes.c_void_p)]


@functools.lru_cache(maxsize=None)
def _functions():
    """The compiled ``(next_uint64, next_uint32, next_double)`` cfuncs, built once:
    one set for every generator, which the state names, so that a copy of the
    ``bitgen_t`` (NumPy's Generator keeps one) stays right when the state moves to
    another generator."""
    from numba import carray, cfunc, types

    from . import core

    core.register()
    from .core.addressing import block_at
    from .core.uniform import uniform64

    digest = core.source_digest()  # in the cfuncs' closures: it keys their disk cache

    U64 = np.uint64

    # A plain function (registered to be inlined), not a dispatcher: Numba
    # keys the cfuncs' disk cache on their closure, and a dispatcher's
    # pickle differs in every process.
    @functools.partial(core.jitable_cpu, inline=True)
    def take(state, words):
        """The block holding the next draw of ``words`` words (at a multiple of
        ``words``) and the draw's offset in it; moves the position past it.

        A draw that passes the end of the lane marks the state passed and
        takes the lane's words from position 0 on, by the position's
        wrap-around: never the same word again, so that a rejection loop
        in NumPy's C code ends as on any other words; the caller raises
        after it (:meth:`StreamBitGenerator.current`)."""
        p = state[_POSITION]
        status = state[_EXHAUSTED]
        if status == _AT_END:
            status = _PASSED
        if words == 2 and p & U64(1):
            p += U64(1)  # to the next even position: 0 past the lane's last word
            if p == U64(0):
                status = _PASSED
        after = p + U64(words)  # wraps to 0 when the draw takes the lane's last word
        if after == U64(0) and status == _OPEN:
            status = _AT_END
        state[_POSITION] = after
        state[_EXHAUSTED] = status
        b = p >> U64(2)
        if state[_BUFFERED] != b + U64(1):
            x0, x1, x2, x3 = block_at(state[_GENERATOR], state[0], state[1], state[2],
                                      state[3], state[_LANE], b)
            state[_BLOCK], state[_BLOCK + 1], state[_BLOCK + 2], state[_BLOCK + 3] = (
                x0, x1, x2, x3)
            state[_BUFFERED] = b + U64(1)
        return (state[_BLOCK], state[_BLOCK + 1], state[_BLOCK + 2],
                state[_BLOCK + 3]), p & U64(3)

    @cfunc(types.uint64(types.voidptr), cache=True)
    def next_uint64(address):
        (x0, x1, x2, x3), j = take(carray(address, _STATE_WORDS + (digest & 0), np.uint64), 2)
        return (x2 | (x3 << U64(32))) if j else (x0 | (x1 << U64(32)))

    @cfunc(types.uint32(types.voidptr), cache=True)
    def next_uint32(address):
        (x0, x1, x2, x3), j = take(carray(address, _STATE_WORDS + (digest & 0), np.uint64), 1)
        return np.uint32(x3 if j == U64(3) else x2 if j == U64(2) else x1 if j else x0)

    @cfunc(types.float64(types.voidptr), cache=True)
    def next_double(address):
        (x0, x1, x2, x3), j = take(carray(address, _STATE_WORDS + (digest & 0), np.uint64), 2)
        return uniform64(x2, x3, U64(0)) if j else uniform64(x0, x1, U64(0))

    return next_uint64, next_uint32, next_double


#: The words of one :meth:`StreamBitGenerator.jumped` jump (``docs/spec.md``, Seeds).
JUMP_WORDS = 2**48


def _moved(stream: Stream, words: int, name: str) -> Stream:
    """``stream`` ``words`` words on; a ``ValueError`` naming ``name`` outside the lane."""
    w = stream.word_position + words
    if not 0 <= w <= stream.word_limit:
        raise ValueError(f"{name}: the position would leave the stream's lane "
                         f"(word {w}, the lane holds [0, {stream.word_limit}])")
    return stream.at_word(w)


#: NumPy's ``BitGenerator.ctypes`` record (``numpy/random/_common.pyx``).
_CtypesInterface = collections.namedtuple(
    "interface", ["state_address", "state", "next_uint64", "next_uint32", "next_double",
                  "bit_generator"])


#: The C results of ``next_uint64``, ``next_uint32`` and ``next_double``.
_RESULTS = (ctypes.c_uint64, ctypes.c_uint32, ctypes.c_double)


@functools.lru_cache(maxsize=None)
def _ctypes_functions():
    """The cfuncs of :func:`_functions` as ctypes function pointers, made once."""
    return tuple(ctypes.CFUNCTYPE(result, ctypes.c_void_p)(function.address)
                 for result, function in zip(_RESULTS, _functions()))


def _built() -> bool:
    """Whether the cfuncs are built (loaded or compiled) in this process."""
    return _functions.cache_info().currsize > 0


def _new_capsule(pointer):
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(pointer, b"BitGenerator", None)


class StreamSeedSequence(np.random.SeedSequence):
    """The seed sequence of a :class:`StreamBitGenerator`: it spawns child streams.

    NumPy's and SciPy's code spawns independent generators from a bit
    generator's seed sequence; this one's children are lanes of a purpose of
    its stream: the ``k``-th child spawned is
    ``stream.sub("tandem.spawn").split(k)``.  It is a
    ``numpy.random.SeedSequence`` whose ``entropy`` is the stream's key (its
    words, little-endian, as one integer) and whose ``pool`` is NumPy's
    hash of that; NumPy's own uses of those attributes are not tandem's
    rules, which take :meth:`spawn` and :meth:`generate_state` alone.

    Parameters
    ----------
    stream : tandem.Stream
        The spawner's stream; its position does not matter.
    spawned : int
        How many children were spawned before (0 for a new one).

    Examples
    --------
    >>> import tandem
    >>> seq = tandem.StreamSeedSequence(tandem.Philox(1))
    >>> a, b = seq.spawn(2)
    >>> b == tandem.Philox(1).sub("tandem.spawn").split(1)
    True

    Guaranteed across versions: the children, in order, and the words of
    :meth:`generate_state`.
    """

    def __init__(self, stream: Stream, spawned: int = 0):
        if not isinstance(stream, Stream):
            raise TypeError(f"stream must be a tandem Stream, got {type(stream).__name__}")
        spawned = checks.integer(spawned, "spawned")
        if spawned < 0:
            raise ValueError(f"spawned must be non-negative, got {spawned}")
        super().__init__(stream.seed)  # the key's words as one integer
        self.stream = stream.at(0)
        self._spawned = spawned
        self._lock = threading.Lock()

    @property
    def n_children_spawned(self) -> int:
        """How many children were spawned, over this seed sequence's whole life.

        Examples
        --------
        >>> import tandem
        >>> seq = tandem.StreamSeedSequence(tandem.Philox(1))
        >>> _ = seq.spawn(3)
        >>> seq.n_children_spawned
        3
        """
        return self._spawned

    def spawn(self, n_children: int) -> list:
        """The next child streams: child ``k`` is ``stream.sub("tandem.spawn").split(k)``.

        Safe across threads: two calls never return the same child.

        Parameters
        ----------
        n_children : int
            How many children, non-negative.

        Returns
        -------
        list of tandem.Stream
            Children ``n_children_spawned`` on, in order.

        Examples
        --------
        >>> import tandem
        >>> seq = tandem.StreamSeedSequence(tandem.Philox(1))
        >>> first, = seq.spawn(1)
        >>> second, = seq.spawn(1)
        >>> second == tandem.Philox(1).sub("tandem.spawn").split(1)
        True
        """
        n = checks.integer(n_children, "n_children")
        if n < 0:
            raise ValueError(f"n_children must be non-negative, got {n_children}")
        with self._lock:
            first = self._spawned
            self._spawned += n
        base = self.stream.sub(SPAWN_PURPOSE)
        return [base.split(first + k) for k in range(n)]

    def generate_state(self, n_words: int, dtype: DTypeLike = np.uint32) -> np.ndarray:
        """Words to seed another bit generator with.

        Parameters
        ----------
        n_words : int
            How many words, non-negative.
        dtype : {numpy.uint32, numpy.uint64}
            The words' width.

        Returns
        -------
        numpy.ndarray of dtype
            The first words (``uint32``) or 64-bit draws (``uint64``) of
            ``stream.sub("tandem.seed_state")``.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> seq = tandem.StreamSeedSequence(tandem.Philox(1))
        >>> state = seq.generate_state(4)
        >>> bool(np.all(state == tandem.Philox(1).sub("tandem.seed_state").bits(4)[0]))
        True
        """
        dtype = np.dtype(dtype)
        if dtype not in (np.uint32, np.uint64):
            raise TypeError(f"dtype must be uint32 or uint64, got {dtype}")
        n = checks.integer(n_words, "n_words")
        if n < 0:
            raise ValueError(f"n_words must be non-negative, got {n_words}")
        return self.stream.sub(STATE_PURPOSE).bits(n, dtype=dtype)[0]

    def __reduce__(self):
        return type(self), (self.stream, self.n_children_spawned)

    def __repr__(self):
        return (f"StreamSeedSequence({self.stream!r}, "
                f"spawned={self.n_children_spawned})")


class StreamBitGenerator(np.random.BitGenerator):
    """A tandem stream's words as a NumPy bit generator.

    Parameters
    ----------
    stream : tandem.Stream
        Where the words start: its key, lane and position.
    seed_seq : StreamSeedSequence, optional
        What :meth:`spawn` spawns from; by default one on ``stream``.

    Notes
    -----
    It is a ``numpy.random.BitGenerator`` (so NumPy pickles and copies the
    Generators made on it), with the capsule, lock and seed sequence of its own.

    Attributes
    ----------
    capsule : PyCapsule
        NumPy's ``bitgen_t`` interface, as a NumPy bit generator has it.
    lock : threading.RLock
        Held by ``numpy.random.Generator`` while it draws, so that threads
        sharing this bit generator never get the same words.

    Examples
    --------
    >>> import numpy as np, tandem
    >>> bits = tandem.StreamBitGenerator(tandem.Philox(7))
    >>> g = np.random.Generator(bits)
    >>> bool(np.all(g.random(3) == tandem.Philox(7).random(3)[0]))
    True
    >>> bits.stream.position
    6

    Guaranteed across versions: the words and positions each draw takes (as
    listed in the module's docstring).
    """

    def __init__(self, stream: Stream, seed_seq: StreamSeedSequence = None):
        if not isinstance(stream, Stream):
            raise TypeError(f"stream must be a tandem Stream, got {type(stream).__name__}")
        if seed_seq is None:
            seed_seq = StreamSeedSequence(stream)
        elif not isinstance(seed_seq, StreamSeedSequence):
            raise TypeError(f"seed_seq must be a StreamSeedSequence, got "
                            f"{type(seed_seq).__name__}")
        # NumPy's BitGenerator holds these in read-only slots that its own
        # subclasses fill in C; the properties below shadow them.
        self._spawner = seed_seq
        self._lock = threading.RLock()  # re-entered by NumPy's methods under Generator's
        self._state = np.zeros(_STATE_WORDS, dtype=np.uint64)
        self._words = memoryview(self._state)  # the same words as Python ints, read fast
        self._struct = _BitgenStruct(self._state.ctypes.data)
        self._first_draws = None
        self._defer_build = False
        self.state = stream
        self._point()
        self._capsule = _new_capsule(ctypes.addressof(self._struct))

    @property
    def lock(self) -> threading.RLock:
        """The lock that ``numpy.random.Generator`` holds while it draws.

        Returns
        -------
        threading.RLock
            Re-entrant: NumPy's methods re-enter it under Generator's.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> with bits.lock:
        ...     position = bits.current().position
        >>> position
        0
        """
        return self._lock

    @property
    def capsule(self):
        """NumPy's ``bitgen_t`` capsule, its functions built (see :meth:`build`), except
        inside :meth:`deferred_build`.

        Returns
        -------
        PyCapsule
            Named ``"BitGenerator"``, as NumPy's bit generators' are.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> import numpy as np
        >>> g = np.random.Generator(bits)  # reads the capsule
        """
        if not self._defer_build:
            self.build()
        return self._capsule

    def build(self):
        """Build the cfuncs (compile them, or load them from Numba's cache) and
        point the ``bitgen_t`` at them.

        NumPy's Generator and RandomState copy the ``bitgen_t`` when they are made,
        so they read the capsule, which builds first.

        Returns
        -------
        None
            It moves this bit generator.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.build()
        """
        _functions()
        self._point()

    @contextlib.contextmanager
    def deferred_build(self):
        """Within the block, :attr:`capsule` is the one of the stand-ins, unbuilt:
        for a caller (``tandem.Generator``) that builds and copies the capsule again
        before its first draw through it.

        Returns
        -------
        contextlib.AbstractContextManager
            Yields this bit generator.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> with bits.deferred_build():
        ...     capsule = bits.capsule
        """
        self._defer_build = True
        try:
            yield self
        finally:
            self._defer_build = False

    @property
    def _seed_seq(self):
        return self._spawner

    @property
    def stream(self) -> Stream:
        """The stream at the position of the next word.

        Returns
        -------
        tandem.Stream
            Where the next draw starts.

        Raises
        ------
        OverflowError
            Once a draw has passed the end of the lane (its words were then
            not the stream's).

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.random_raw(2).size, bits.stream.position
        (2, 4)
        """
        with self.lock:
            return self.current()

    @property
    def state(self) -> dict:
        """``{"bit_generator": "StreamBitGenerator", "stream": <tandem.Stream>}``;
        assigning such a dict (or a Stream) moves this bit generator there.

        Returns
        -------
        dict
            The bit generator's name and its stream.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.state = {"bit_generator": "StreamBitGenerator", "stream": tandem.Philox(2)}
        >>> bits.state["stream"] == tandem.Philox(2)
        True
        """
        return {"bit_generator": type(self).__name__, "stream": self.stream}

    @state.setter
    def state(self, value):
        if isinstance(value, dict):
            if value.get("bit_generator", type(self).__name__) != type(self).__name__:
                raise ValueError(f"state must be for a {type(self).__name__}, got one for "
                                 f"{value.get('bit_generator')!r:.60}")
            if "stream" not in value:
                raise ValueError("state must hold the stream under 'stream'")
            value = value["stream"]
        with self.lock:
            self.move(value)

    def advance(self, delta: int) -> "StreamBitGenerator":
        """Move on as if ``delta`` 64-bit draws were taken (back, for a negative
        ``delta``), as ``numpy.random.PCG64.advance``: ``2 * delta`` words.

        Parameters
        ----------
        delta : int
            The 64-bit draws to pass.

        Returns
        -------
        StreamBitGenerator
            This bit generator, moved.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.advance(3).stream.position
        6
        """
        delta = checks.integer(delta, "delta")
        with self.lock:
            stream = self.current()
            self.move(_moved(stream, 2 * delta, "delta"))
        return self

    def jumped(self, jumps: int = 1) -> "StreamBitGenerator":
        """A new bit generator ``jumps * JUMP_WORDS`` words (``2**48``, a PiB) on, as
        ``numpy.random.PCG64.jumped``: ``jumped(2)`` is ``jumped(1).jumped(1)``.

        A Philox or Threefry lane holds ``2**16`` jumps, a Tandem stream
        ``2**11``; for more streams, :meth:`spawn` (lanes without end).

        Parameters
        ----------
        jumps : int
            How many jumps, non-negative.

        Returns
        -------
        StreamBitGenerator
            On the same key and lane, further on; it spawns from this one's
            :attr:`seed_seq`, as NumPy's does.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.jumped(2).stream.position == 2 * tandem.bitgen.JUMP_WORDS
        True
        """
        jumps = checks.integer(jumps, "jumps")
        if jumps < 0:
            raise ValueError(f"jumps must be non-negative, got {jumps}")
        return type(self)(_moved(self.stream, jumps * JUMP_WORDS, "jumps"), self._spawner)

    @property
    def passed(self) -> bool:
        """Whether a draw has passed the end of the lane (then :attr:`stream` raises).

        Returns
        -------
        bool

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.passed
        False
        """
        return bool(self._state[_EXHAUSTED] == _PASSED)

    def current(self) -> Stream:
        """:attr:`stream`, for a caller that holds :attr:`lock`.

        Returns
        -------
        tandem.Stream
            Where the next draw starts.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> with bits.lock:
        ...     bits.current() == tandem.Philox(1)
        True
        """
        if self._state[_EXHAUSTED] == _PASSED:
            raise OverflowError("a draw passed the end of the stream's lane (2**64 words); "
                                "use another lane (split) for more")
        if self._state[_EXHAUSTED] == _AT_END:
            return self._origin.at_word(POSITION_LIMIT)
        return self._origin.at_word(int(self._state[_POSITION]))

    def where(self):
        """Where the next word is, for a caller that holds :attr:`lock`.

        Returns
        -------
        tuple or None
            ``(origin, position)``: an object that stands for the stream's
            key, lane and generator (a new one at every :meth:`move`) and the
            position of the next word; None at or past the end of the lane.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> with bits.lock:
        ...     bits.where()[1]
        0
        """
        words = self._words
        if words[_EXHAUSTED] != _OPEN:
            return None
        return self._origin, words[_POSITION]

    def seek(self, position: int):
        """Continue from ``position`` of the same lane, for a caller that holds
        :attr:`lock` and knows the lane's words up to there were drawn.

        Parameters
        ----------
        position : int
            The word to continue from, below ``2**64``.

        Returns
        -------
        None
            It moves this bit generator.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> with bits.lock:
        ...     bits.seek(6)
        >>> bits.stream.position
        6
        """
        self._words[_POSITION] = position

    def move(self, stream: Stream):
        """Continue from ``stream``, for a caller that holds :attr:`lock`.

        Parameters
        ----------
        stream : tandem.Stream
            Where the next draw starts: any key, lane and generator.

        Returns
        -------
        None
            It moves this bit generator.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> with bits.lock:
        ...     bits.move(tandem.Tandem(2))
        >>> bits.stream == tandem.Tandem(2)
        True
        """
        if not isinstance(stream, Stream):
            raise TypeError(f"state must be a tandem Stream or a dict with one under "
                            f"'stream', got {type(stream).__name__}")
        at_end = stream.word_position == POSITION_LIMIT
        self._origin = stream.at(0)
        self._state[:] = [*stream.kernel_key, stream.lane,
                          0 if at_end else stream.word_position, _AT_END if at_end else _OPEN,
                          0, 0, 0, 0, 0, stream.generator]

    def _point(self):
        """Point NumPy's ``bitgen_t`` at the cfuncs, once they are built (the same for
        every stream, so a move leaves the pointers alone); before, at stand-ins (ctypes callbacks, slow but never wrong) that build
        them and draw.

        tandem's own methods never draw through the capsule, so a
        ``tandem.Generator`` that only calls them never waits for these compiles
        (5.6 s on the 2-core machine with an empty cache, ``docs/performance.md``)."""
        if _built():
            addresses = [f.address for f in _functions()]
        else:
            addresses = [ctypes.cast(f, ctypes.c_void_p).value for f in self._stand_ins()]
        self._struct.next_uint64 = self._struct.next_raw = addresses[0]
        self._struct.next_uint32 = addresses[1]
        self._struct.next_double = addresses[2]

    def _stand_ins(self):
        """Three ctypes callbacks, made once: each builds the cfuncs, points the
        ``bitgen_t`` at them and returns their draw."""
        if self._first_draws is None:
            owner = weakref.ref(self)

            def stand_in(index):
                def draw(state):
                    functions = _ctypes_functions()
                    owner()._point()
                    return functions[index](state)

                return ctypes.CFUNCTYPE(_RESULTS[index], ctypes.c_void_p)(draw)

            self._first_draws = tuple(stand_in(index) for index in range(3))
        return self._first_draws

    @property
    def seed_seq(self) -> StreamSeedSequence:
        """What children are spawned from: the stream this bit generator was made with.

        Returns
        -------
        StreamSeedSequence
            A ``numpy.random.SeedSequence`` whose children are the lanes of
            ``stream.sub("tandem.spawn")``.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.seed_seq.n_children_spawned
        0
        """
        return self._spawner

    def spawn(self, n_children: int) -> list:
        """New bit generators on the next children of :attr:`seed_seq`, as
        ``numpy.random.BitGenerator.spawn``.

        Parameters
        ----------
        n_children : int
            How many, non-negative.

        Returns
        -------
        list of StreamBitGenerator
            Child ``k`` (counting every child spawned) on
            ``stream.sub("tandem.spawn").split(k)``.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> child, = bits.spawn(1)
        >>> child.stream == tandem.Philox(1).sub("tandem.spawn").split(0)
        True
        """
        return [type(self)(child) for child in self._spawner.spawn(n_children)]

    def random_raw(self, size: Size = None, output: Any = True):
        """64-bit draws, as ``numpy.random.BitGenerator.random_raw``.

        Parameters
        ----------
        size : int or tuple of ints, optional
            How many (None: one, as a Python ``int``).
        output : bool, optional
            False: draw and return None.

        Returns
        -------
        int or numpy.ndarray or None
            Each the draw at the next even position, as ``next_uint64`` takes it.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.random_raw() == int(tandem.Philox(1).bits(1, dtype="uint64")[0][0])
        True
        """
        with self.lock:
            values, after = self.current().bits(1 if size is None else size, dtype=np.uint64)
            self.move(after)
        if not output:
            return None
        return int(values[0]) if size is None else values

    @property
    def ctypes(self):
        """NumPy's ``ctypes`` interface: ``(state_address, state, next_uint64,
        next_uint32, next_double, bit_generator)``, as a NumPy bit generator's,
        so that Numba's compiled functions take a Generator on this bit
        generator.

        Code that calls these functions itself, Numba's included, does not
        take :attr:`lock` and is not told when a draw passes the end of the
        lane; the next call of a :class:`tandem.Generator` method (or
        :attr:`stream`) raises ``OverflowError`` then.

        Returns
        -------
        namedtuple
            NumPy's ``interface`` record.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> bits.ctypes.state_address == bits.ctypes.state.value
        True
        """
        state = ctypes.c_void_p(self._state.ctypes.data)
        return _CtypesInterface(self._state.ctypes.data, state,
                                *_ctypes_functions(),
                                ctypes.c_void_p(ctypes.addressof(self._struct)))

    @property
    def cffi(self):
        """NumPy's ``cffi`` interface (the fields of :attr:`ctypes`); needs cffi.

        Returns
        -------
        namedtuple
            NumPy's ``interface`` record, of cffi pointers.

        Examples
        --------
        >>> import tandem
        >>> bits = tandem.StreamBitGenerator(tandem.Philox(1))
        >>> hasattr(bits, "cffi")  # its fields need cffi installed
        True
        """
        try:
            import cffi
        except ImportError:
            raise ImportError("cffi cannot be imported") from None
        ffi = cffi.FFI()
        next_uint64, next_uint32, next_double = _functions()
        return _CtypesInterface(
            self._state.ctypes.data, ffi.cast("void *", self._state.ctypes.data),
            ffi.cast("uint64_t (*)(void *)", next_uint64.address),
            ffi.cast("uint32_t (*)(void *)", next_uint32.address),
            ffi.cast("double (*)(void *)", next_double.address),
            ffi.cast("void *", ctypes.addressof(self._struct)))

    def _benchmark(self, *args, **kwargs):
        raise NotImplementedError("StreamBitGenerator has no _benchmark; time its Generator")

    def __reduce__(self):
        return type(self), (self.stream, self._spawner)

    def __repr__(self):
        return f"StreamBitGenerator({self.stream!r})"
