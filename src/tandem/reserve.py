"""Small calls of a Generator served from a reserve of the same call's next values.

A fill cut at any element equals the whole fill (``docs/spec.md``), so the
values of ``k`` calls of one law with the same parameters, each of a few
elements, are the elements of one fill from the first call's position.  A
:class:`Reserve` keeps such a fill: while the same call comes again from
where the last one left the stream, it is answered by a slice and a move of
the position, a few microseconds, where a fill costs tens.

The reserve grows by doubling while one call repeats, and falls back to the
size of the call whenever anything else moved the stream (another law, a
NumPy algorithm, a new state), so that calls which alternate laws compute
nothing they do not return.  Values and positions are exactly those of the
calls made one by one.
"""

from __future__ import annotations

import math
from typing import Callable, Hashable, Optional

import numpy as np

#: Calls of at most this many elements are served from the reserve.
LARGEST_CALL = 256
#: The most elements a reserve holds: below ``backends.cpu.LEAN_BELOW``, so that
#: it takes the kernels that compile in seconds.
CAPACITY = 1023


class Reserve:
    """The next values of one call of one Generator (guarded by its bit generator's lock).

    Examples
    --------
    >>> import tandem
    >>> g, h = tandem.Generator(7), tandem.Generator(7)
    >>> a = [g.normal(1.0, 2.0) for _ in range(5)]   # served from g's reserve
    >>> bool((h.normal(1.0, 2.0, size=5) == a).all())
    True
    """

    __slots__ = ("key", "origin", "position", "stride", "values", "items", "used", "capacity",
                 "refused")

    def __init__(self):
        self.key = None  # the call: method, parameters and their types
        self.origin = None  # the bit generator's origin when the values were made
        self.position = -1  # the position of values[used]
        self.stride = 0  # words an element
        self.values = None
        self.items = None  # the values as Python scalars, made at the first size-None call
        self.used = 0
        self.capacity = 0
        self.refused = None  # the last call found not to be a fill of a fixed stride

    def take(self, bits, key: Hashable, size):
        """The values of a call that repeats the reserve's, or None (then make
        the call with :meth:`draw`); the few microseconds of a small call.

        Parameters
        ----------
        bits : tandem.StreamBitGenerator
            Where the values come from; it moves on past them.
        key : hashable
            The call, as :meth:`draw` takes it.
        size : None or int
            The call's size.

        Returns
        -------
        Python scalar, numpy.ndarray or None
            One value as a Python scalar (``ndarray.item``'s) for ``size``
            None, ``size`` values, or None where the reserve cannot serve.
        """
        with bits.lock:
            if key is None or key != self.key:
                return None
            n = 1 if size is None else size
            if type(n) is not int or not 0 < n <= self.capacity - self.used:
                return None
            where = bits.where()
            if where is None or where[0] is not self.origin or where[1] != self.position:
                return None
            return self._next(bits, size, n)

    def _next(self, bits, size, n):
        """The reserve's next ``n`` values, ``bits`` moved past them."""
        i = self.used
        self.used = i + n
        self.position += self.stride * n
        bits.seek(self.position)
        if size is not None:
            return self.values[i:i + n].copy()
        if self.items is None:
            self.items = self.values.tolist()
        return self.items[i]

    def draw(self, bits, key: Hashable, size, fill: Callable, *args, **kwargs):
        """``fill(stream, *args, size=size, **kwargs)``'s values from ``bits``' stream,
        which then moves on past them, as ``Generator._draw``: a call that
        :meth:`take` could not serve.  When ``size`` is None or a small int and
        ``key`` names the call, the reserve is refilled from the stream's
        position (twice as much while one call repeats) and the values come
        from it.

        Parameters
        ----------
        bits : tandem.StreamBitGenerator
            Where the values come from.
        key : hashable
            The call: equal keys must mean fills of equal values from any
            stream (the parameters with their types).
        size : None or int or tuple
            The call's size; other than None or an int up to
            :data:`LARGEST_CALL`, the call is made as it is.
        fill : callable
            ``fill(stream, *args, size=n, **kwargs) -> (values, stream after)``.

        Returns
        -------
        scalar or numpy.ndarray
            What the fill returns for ``size``; one value from the reserve
            as a Python scalar (``ndarray.item``'s).
        """
        if size is None:
            n = 1
        elif type(size) is int and 0 < size <= LARGEST_CALL:
            n = size
        else:
            n = 0
        with bits.lock:
            where = bits.where() if n and key != self.refused else None
            if where is not None:
                origin, position = where
                same = key == self.key and origin is self.origin and position == self.position
                if self._refill(bits, key, n, same, fill, args, kwargs):
                    return self._next(bits, size, n)
            values, after = fill(bits.current(), *args, size=size, **kwargs)
            bits.move(after)
            return values

    def _refill(self, bits, key, n, same, fill, args, kwargs) -> bool:
        """Fill the reserve from the stream's position, twice the last fill's
        elements while one call repeats, else ``n``; whether the call's values
        are there (not when its fill has no fixed stride, or ends the lane)."""
        stream = bits.current()
        capacity = min(CAPACITY, max(n, 2 * self.capacity if same else n))
        if same:  # stay inside the lane
            capacity = max(n, min(capacity,
                                  (stream.word_limit - 1 - stream.word_position)
                                  // self.stride))
        values, after = fill(stream, *args, size=capacity, **kwargs)
        stride, rest = divmod(after.word_position - stream.word_position, capacity)
        self.key = None
        if (rest or not stride or after.word_position >= stream.word_limit
                or not isinstance(values, np.ndarray) or values.shape != (capacity,)):
            self.capacity, self.refused = 0, key
            return False
        bits.move(stream)
        self.key, self.stride, self.values, self.used = key, stride, values, 0
        self.items = None
        self.origin, self.position = bits.where()
        self.capacity = capacity
        return True


_SCALARS = (int, float, np.number, str, type, np.dtype, type(None))


_PLAIN = frozenset((int, bool, str, type(None), float, type))  # equal means the same call


def keyed(*params) -> Optional[tuple]:
    """A reserve's key: the parameters with their types; None unless each is a
    scalar, a name or a dtype (a call of array parameters is made as it is).
    A float enters with its sign, so that ``-0.0`` and ``0.0`` are different calls.

    Examples
    --------
    >>> keyed("normal", 0.0, 1.0) == keyed("normal", -0.0, 1.0)
    False
    >>> keyed("normal", [0.0], 1.0) is None
    True
    """
    kinds = tuple(map(type, params))
    if _PLAIN.issuperset(kinds):  # the common call, in a few C loops
        if float in kinds and 0 in params:
            return kinds, params, tuple([math.copysign(1.0, p) if type(p) is float else 1.0
                                         for p in params])
        return kinds, params
    key = []
    for p in params:
        kind = type(p)
        if kind is float or isinstance(p, np.floating):
            key.append((kind, p, math.copysign(1.0, p)))
        elif isinstance(p, np.complexfloating):
            key.append((kind, repr(p)))
        elif isinstance(p, _SCALARS):
            key.append((kind, p))
        else:
            return None
    return None, tuple(key)  # None: never equal to a common call's key
