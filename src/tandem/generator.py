"""``tandem.Generator``: a mutable, ``numpy.random.Generator``-like face on a stream."""

import numpy as np

from . import distributions
from .stream import Stream


class Generator:
    """Draws with ``numpy.random.Generator``'s names and signatures.

    Each call draws from the current stream and moves it on, so a sequence
    of calls gives exactly what the same sequence of ``Stream`` fills gives.

    Parameters
    ----------
    stream : tandem.Stream
        Where the draws start, for example ``tandem.Philox(seed)``.

    Examples
    --------
    >>> import tandem
    >>> g = tandem.Generator(tandem.Philox(42))
    >>> x = g.random(3)
    >>> k = g.integers(0, 10, size=5)
    """

    def __init__(self, stream):
        if not isinstance(stream, Stream):
            raise TypeError(f"stream must be a tandem Stream, got {type(stream).__name__}")
        self._stream = stream

    @property
    def stream(self):
        """The stream that the next draw starts from."""
        return self._stream

    def __repr__(self):
        return f"Generator({self._stream!r})"

    def _take(self, result):
        values, self._stream = result
        return values

    def random(self, size=None, dtype=np.float64, out=None):
        """Floats in ``[0, 1)``, as ``numpy.random.Generator.random``."""
        return self._take(distributions.random(self._stream, size, dtype=dtype, out=out))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers in ``[low, high)`` (or ``[low, high]`` with ``endpoint``), as
        ``numpy.random.Generator.integers``."""
        return self._take(distributions.integers(self._stream, low, high, size, dtype=dtype,
                                                 endpoint=endpoint))

    def bytes(self, length):
        """``length`` random bytes, as ``numpy.random.Generator.bytes``."""
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
            raise ValueError(f"length must be a non-negative integer, got {length!r}")
        n = -(-int(length) // 4)
        words = self._take(distributions.bits(self._stream, n, dtype=np.uint32))
        return words.astype("<u4").tobytes()[:length]
