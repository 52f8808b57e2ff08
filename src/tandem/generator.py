"""``tandem.Generator``: a ``numpy.random.Generator`` whose named methods are tandem's rules."""

import collections.abc
from typing import Optional

import numpy as np

from ._types import Array, ArrayLike, DTypeLike, Size
from . import (arrays, checks, distributions, law_methods, laws, multivariate, parametric, reserve,
               sampling)
from .bitgen import StreamBitGenerator
from .stream import Stream
from .tandem8x32 import Tandem

_P_SUM_TOLERANCE = np.sqrt(np.finfo(np.float64).eps)  # numpy's own


def _own(name):
    """The fill ``(stream, *args, **kwargs)`` of the stream's own method ``name``: a
    Tandem stream's is its specification's law, a Philox or Threefry stream's
    :mod:`tandem.distributions`' rule."""
    def fill(stream, *args, **kwargs):
        return getattr(stream, name)(*args, **kwargs)

    fill.__name__ = fill.__qualname__ = name
    return fill


_RANDOM, _INTEGERS, _NORMAL, _EXPONENTIAL = map(_own, ("random", "integers", "normal",
                                                       "exponential"))


def _axis(axis, ndim):
    axis = checks.integer(axis, "axis")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _check_bool_range(low, high, endpoint):
    """NumPy's bounds of a bool range: ``[0, 2)``, or ``[0, 1]`` with ``endpoint``."""
    low, high = (0, low) if high is None else (low, high)
    try:
        low, high = np.asarray(low, dtype=object), np.asarray(high, dtype=object)
        if np.any(low < 0) or np.any(high + int(bool(endpoint)) > 2):
            raise ValueError("the bounds of a bool range must lie in [0, 2), or in [0, 1] "
                             "with endpoint=True")
    except TypeError:
        raise TypeError("low and high must be integers") from None


class Generator(np.random.Generator):
    """A ``numpy.random.Generator`` on a tandem stream.

    Its ``bit_generator`` is a :class:`tandem.StreamBitGenerator` on
    ``stream``, so every NumPy method works, and SciPy, pandas and
    scikit-learn take it as a random state.  The methods defined here
    (``random``, ``integers``, ``bytes``, ``standard_normal``, ``normal``,
    ``standard_exponential``, ``exponential``, ``choice``, ``permutation``,
    ``shuffle``, ``uniform``, ``laplace``, ``logistic``, ``gumbel``,
    ``standard_cauchy``, ``rayleigh``, ``weibull``, ``power``, ``triangular``,
    ``lognormal``, ``pareto``, ``geometric``, ``standard_gamma``, ``gamma``,
    ``chisquare``, ``poisson``, ``binomial``, ``standard_t``, ``f``,
    ``negative_binomial``, ``wald``, ``beta``, ``permuted``,
    ``multivariate_normal``, ``dirichlet``, ``multinomial``, ``vonmises``) are
    tandem's rules: each call gives exactly what the same
    ``Stream`` fill gives (cut-invariant, addressable, the same bits on the
    GPU); on a :class:`tandem.Tandem` stream (the default) ``random``,
    ``integers``, the normals and the exponentials are the tandem
    specification's draws, as its ports give them.  The others are NumPy's
    algorithms on the stream's words: the same on any CPU, but not tandem's
    rules.  Every call moves the stream on past
    what it drew, and holds the bit generator's lock while it draws, so
    threads sharing a Generator get distinct draws.

    Parameters are taken and refused as NumPy's methods take and refuse
    them, with NumPy's exception types: 0-d arrays, NumPy scalars, integers
    of any size and sequences convert as NumPy converts them, and a NaN
    parameter gives NaN where NumPy's does.  One difference is by design: an
    infinite parameter raises ``ValueError`` (NumPy returns inf, 0, 1 or NaN
    there depending on the law), and a parameter so large that the values
    would overflow is refused rather than giving inf.

    Parameters
    ----------
    stream : tandem.Stream, tandem.StreamBitGenerator or a seed
        Where the draws start, for example ``tandem.Philox(seed)``; a bit
        generator is used as it is (with its spawn count); anything else is
        a seed of ``tandem.Tandem`` (an integer, whitened as the tandem
        specification says, a sequence of integers, a
        ``numpy.random.SeedSequence`` or None for fresh entropy).

    Examples
    --------
    >>> import numpy as np, tandem
    >>> g = tandem.Generator(42)
    >>> bool((g.random(3) == tandem.Tandem(42).random(3)[0]).all())
    True
    >>> k = g.integers(0, 10, size=5)
    >>> isinstance(g, np.random.Generator)
    True
    """

    def __init__(self, stream: Optional[Stream] = None):
        if isinstance(stream, StreamBitGenerator):
            bits = stream
        else:
            bits = StreamBitGenerator(stream if isinstance(stream, Stream) else Tandem(stream))
        with bits.deferred_build():  # tandem's rules never draw through the capsule
            super().__init__(bits)
        self._capsule_built = False  # whether NumPy's copy of the bitgen_t is built
        self._reserve = reserve.Reserve()

    def __reduce__(self):
        return type(self), (self.bit_generator,)

    def spawn(self, n_children: int) -> list:
        """``n_children`` independent Generators, as ``numpy.random.Generator.spawn``.

        Parameters
        ----------
        n_children : int
            How many, non-negative.

        Returns
        -------
        list of Generator
            Child ``k`` (counting every child this Generator spawned) draws
            from ``stream.sub("tandem.spawn").split(k)`` (``docs/spec.md``,
            Seeds), whatever this Generator has drawn.

        Examples
        --------
        >>> import tandem
        >>> a, b = tandem.Generator(1).spawn(2)
        >>> b.stream == tandem.Tandem(1).sub("tandem.spawn").split(1)
        True
        """
        return [type(self)(bits) for bits in self.bit_generator.spawn(n_children)]

    @property
    def stream(self) -> Stream:
        """The stream that the next draw starts from.

        Returns
        -------
        tandem.Stream
            Its key, lane and position.

        Examples
        --------
        >>> import tandem
        >>> g = tandem.Generator(tandem.Philox(1))
        >>> x = g.random(3)
        >>> g.stream == tandem.Philox(1).at(6)
        True
        """
        return self.bit_generator.stream

    def __repr__(self):
        return f"Generator({self.stream!r})"

    def _draw(self, fill, *args, **kwargs):
        """``fill(stream, *args, **kwargs)`` from the current stream, which then
        moves on past it, under the bit generator's lock."""
        bits = self.bit_generator
        with bits.lock:
            values, after = fill(bits.current(), *args, **kwargs)
            bits.move(after)
        return values

    def _small(self, key, size, fill, *args, **kwargs):
        """``_draw(fill, *args, size=size, **kwargs)``, small calls of scalar
        parameters (``key`` not None) from this Generator's reserve; one value
        as a Python ``float`` or ``int``, as NumPy's methods return it (so that
        ``json.dumps`` takes it)."""
        values = self._reserve.take(self.bit_generator, key, size)  # a repeated call
        return self._made(key, size, fill, *args, **kwargs) if values is None else values

    def _made(self, key, size, fill, *args, **kwargs):
        """:meth:`_small` for a call the reserve did not serve (a method that
        asked it first, before NumPy's rules, comes here)."""
        if key is None:
            values = self._draw(fill, *args, size=size, **kwargs)
        else:
            values = self._reserve.draw(self.bit_generator, key, size, fill, *args, **kwargs)
        if isinstance(values, np.generic):  # size None or ()
            return values.item() if size is None else np.asarray(values)
        return values

    def _numpy(self, name, *args, **kwargs):
        """NumPy's own method ``name`` on the stream's words, under the bit
        generator's lock; an ``OverflowError`` if it drew past the end of the
        lane, the stream left where it was."""
        bits = self.bit_generator
        with bits.lock:
            before = bits.current()
            if not self._capsule_built:
                bits.build()  # NumPy keeps a copy of the capsule's bitgen_t: copy it again
                np.random.Generator.__init__(self, bits)
                self._capsule_built = True
            values = getattr(super(), name)(*args, **kwargs)
            if bits.passed:
                bits.move(before)
                raise OverflowError(f"{name} drew past the end of the stream's lane "
                                    f"(2**64 words); use another lane (split) for more")
        return values

    def random(self, size: Size = None, dtype: DTypeLike = np.float64, out: Array = None):
        """Floats in ``[0, 1)``, as ``numpy.random.Generator.random``.

        Parameters
        ----------
        size : int or tuple of ints, optional
            The output's shape (None: one value).
        dtype : {numpy.float64, numpy.float32}, optional
            The values' type; each takes one 64- or 32-bit draw.
        out : numpy.ndarray, optional
            Where to write the values (its shape is the size).

        Returns
        -------
        float or numpy.ndarray
            ``stream.random(size, dtype=dtype)``'s values (``docs/spec.md``,
            Draws): a Python ``float`` for one value, as NumPy's.

        Examples
        --------
        >>> import tandem
        >>> x = tandem.Generator(1).random(3)
        >>> bool(((0 <= x) & (x < 1)).all())
        True
        """
        if out is not None:
            return self._draw(_RANDOM, size, dtype=dtype, out=out)
        return self._small(("random", dtype), size, _RANDOM, dtype=dtype)

    def integers(self, low: ArrayLike, high: Optional[ArrayLike] = None, size: Size = None,
                 dtype: DTypeLike = np.int64, endpoint: bool = False):
        """Integers in ``[low, high)`` (or ``[low, high]`` with ``endpoint``), as
        ``numpy.random.Generator.integers``.

        Parameters
        ----------
        low, high : int or array_like of ints
            The bounds (``high`` None: ``[0, low)``); arrays broadcast, and
            float bounds truncate, as NumPy's.
        size : int or tuple of ints, optional
            The output's shape (None: the bounds' broadcast shape).
        dtype : dtype, optional
            An integer type, or ``bool`` (the values 0 and 1 of the rule);
            the Python types ``int`` and ``bool`` give Python scalars.
        endpoint : bool, optional
            Whether ``high`` is included.

        Returns
        -------
        numpy integer or numpy.ndarray
            Lemire's rule on 32- or 64-bit draws, by the range
            (``docs/spec.md``, Draws); one value is NumPy's scalar of
            ``dtype``, as NumPy's.  An empty ``size`` gives an empty array
            whatever the range.

        Examples
        --------
        >>> import tandem
        >>> x = tandem.Generator(1).integers(0, 10, size=4)
        >>> bool(((0 <= x) & (x < 10)).all()), x.dtype
        (True, dtype('int64'))
        """
        # the conversions below are functions of the arguments: key on them as given
        key = reserve.keyed("integers", low, high, dtype, endpoint)
        values = self._reserve.take(self.bit_generator, key, size)  # a repeated call
        python_type = dtype if dtype in (int, bool) else None
        dtype = wanted = checks.dtype(dtype)
        if values is None:
            # NumPy's order: the product of size (a string fails), the bounds, then size
            if size is not None and _product(size) == 0:  # NumPy checks no bounds here either
                return np.empty(arrays.shape_of(size), dtype=dtype if dtype == np.bool_ else
                                distributions.integer_dtype(dtype))
            low, high = _bound(low, "low"), _bound(high, "high")
            arrays.shape_of(size)  # then size, refused by name
            if dtype == np.bool_:
                _check_bool_range(low, high, endpoint)
                dtype = np.dtype(np.uint8)
            if (type(low) is not int and np.ndim(low)
                    or high is not None and type(high) is not int and np.ndim(high)):
                values = self._draw(parametric.integers, low, high, size, dtype=dtype,
                                    endpoint=endpoint)
            else:
                values = self._made(key, size, _INTEGERS, low, high, dtype=dtype,
                                     endpoint=endpoint)
        if size is None and (type(values) is int or np.ndim(values) == 0):  # NumPy's type
            return python_type(values) if python_type is not None else wanted.type(values)
        return values.astype(np.bool_) if wanted == np.bool_ else values

    def bytes(self, length: int):
        """``length`` random bytes, as ``numpy.random.Generator.bytes``.

        Parameters
        ----------
        length : int
            How many bytes (a float truncates, as NumPy's).

        Returns
        -------
        bytes
            The next ``ceil(length / 4)`` words, little-endian, cut to ``length``.

        Examples
        --------
        >>> import tandem
        >>> len(tandem.Generator(1).bytes(5))
        5
        """
        length = _bound(length, "length")
        length = checks.integer(length, "length")
        if not 0 <= length <= arrays.MAX_BYTES:
            raise ValueError(f"length must be in [0, 2**63 - 1], got {length!r:.60}")
        n = -(-length // 4)
        try:
            words = self._draw(distributions.bits, n, dtype=np.uint32)
        except MemoryError:
            raise MemoryError(f"length {length}: cannot allocate {length} bytes") from None
        return words.astype("<u4").tobytes()[:length]

    def standard_normal(self, size: Size = None, dtype: DTypeLike = np.float64, out: Array = None):
        """Standard normal variates, as ``numpy.random.Generator.standard_normal``.

        Parameters
        ----------
        size : int or tuple of ints, optional
            The output's shape (None: one value).
        dtype : {numpy.float64, numpy.float32}, optional
            The values' type, each with its own rule (``docs/spec.md``).
        out : numpy.ndarray, optional
            Where to write the values.

        Returns
        -------
        float or numpy.ndarray
            ``stream.normal(size, dtype=dtype)``'s values; a Python ``float``
            for one value.

        Examples
        --------
        >>> import tandem
        >>> tandem.Generator(1).standard_normal((2, 3)).shape
        (2, 3)
        """
        if out is not None:
            return self._draw(_NORMAL, size, dtype=dtype, out=out)
        return self._small(("standard_normal", dtype), size, _NORMAL, dtype=dtype)

    def normal(self, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0, size: Size = None):
        """Normal variates, as ``numpy.random.Generator.normal``.

        Parameters
        ----------
        loc, scale : float or array_like of floats
            Mean and standard deviation (``scale >= 0``); they broadcast, and
            a NaN gives NaN there, as NumPy's.
        size : int or tuple of ints, optional
            The output's shape (None: the parameters' broadcast shape).

        Returns
        -------
        float or numpy.ndarray
            ``loc + scale * z``, ``z`` the standard normal rule
            (``docs/spec.md``); a Python ``float`` for one value.

        Examples
        --------
        >>> import tandem
        >>> tandem.Generator(1).normal([0.0, 10.0], 0.5).shape
        (2,)
        """
        key = reserve.keyed("normal", loc, scale)
        values = self._reserve.take(self.bit_generator, key, size)  # a repeated call
        if values is not None:
            return values
        (loc, scale), nan = _numpy_rules("normal", (loc, scale))
        values = self._made(key if nan is None else reserve.keyed("normal", loc, scale), size,
                             _NORMAL, loc=loc, scale=scale)
        return values if nan is None else _with_nan(values, nan)

    def standard_exponential(self, size: Size = None, dtype: DTypeLike = np.float64,
                             method: Optional[str] = "inv", out: Array = None):
        """Exponential variates of mean 1, as ``numpy.random.Generator.standard_exponential``.

        Parameters
        ----------
        size : int or tuple of ints, optional
            The output's shape (None: one value).
        dtype : {numpy.float64, numpy.float32}, optional
            The values' type.
        method : {"inv", "zig"}, optional
            ``-log u`` or a ziggurat, tandem's rules for each.  The default is
            ``"inv"``, not NumPy's ``"zig"``: tandem's inversion is its faster
            rule on the CPU and on the GPU (``docs/performance.md``).
        out : numpy.ndarray, optional
            Where to write the values.

        Returns
        -------
        float or numpy.ndarray
            ``stream.exponential(size, dtype=dtype, method=method)``'s values;
            a Python ``float`` for one value.

        Examples
        --------
        >>> import tandem
        >>> bool((tandem.Generator(1).standard_exponential(4, method="zig") >= 0).all())
        True
        """
        if out is not None:
            return self._draw(_EXPONENTIAL, size, dtype=dtype, method=method,
                              out=out)
        return self._small(reserve.keyed("standard_exponential", dtype, method), size,
                           _EXPONENTIAL, dtype=dtype, method=method)

    def exponential(self, scale: ArrayLike = 1.0, size: Size = None):
        """Exponential variates of mean ``scale``, as ``numpy.random.Generator.exponential``.

        Parameters
        ----------
        scale : float or array_like of floats
            The mean, non-negative; a NaN gives NaN there, as NumPy's.
        size : int or tuple of ints, optional
            The output's shape (None: the scale's shape).

        Returns
        -------
        float or numpy.ndarray
            ``scale`` times the standard exponential rule (``docs/spec.md``);
            a Python ``float`` for one value.

        Examples
        --------
        >>> import tandem
        >>> bool((tandem.Generator(1).exponential(2.0, 5) >= 0).all())
        True
        """
        key = reserve.keyed("exponential", scale)
        values = self._reserve.take(self.bit_generator, key, size)  # a repeated call
        if values is not None:
            return values
        checks.refuse_text(scale, "scale")  # a law without a record
        (scale,), nan = _numpy_rules("exponential", (scale,))
        values = self._made(key if nan is None else reserve.keyed("exponential", scale), size,
                             _EXPONENTIAL, scale=scale)
        return values if nan is None else _with_nan(values, nan)

    def choice(self, a: ArrayLike, size: Size = None, replace: bool = True,
               p: Optional[ArrayLike] = None, axis: int = 0, shuffle: bool = True):
        """A sample of ``a`` (or of ``range(a)``), as ``numpy.random.Generator.choice``.

        Parameters
        ----------
        a : int or array_like
            The population: ``range(a)``, or the entries of ``a`` along ``axis``.
        size : int or tuple of ints, optional
            The sample's shape (None: one member).
        replace : bool, optional
            With replacement (``integers``, or an alias table for ``p``), or
            without: Fisher–Yates's first ``size`` entries, O(size) whatever
            the population (``docs/spec.md``, Sampling).
        p : array_like of floats, optional
            Each member's probability; they must sum to 1 within NumPy's
            tolerance.
        axis : int, optional
            The axis of ``a`` to sample along.
        shuffle : bool, optional
            Accepted for NumPy's signature: a sample without replacement
            comes in random order either way.

        Returns
        -------
        int, numpy.ndarray or the members' type
            The sample; one member of ``range(a)`` is a Python ``int``.

        Examples
        --------
        >>> import tandem
        >>> x = tandem.Generator(1).choice(10**12, 3, replace=False)
        >>> len(set(x.tolist()))
        3
        """
        if p is not None:
            arrays.refuse_masked(p, "p")
            try:
                p = np.asarray(p, dtype=np.float64)
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"p must be an array of real numbers, got {p!r:.60}") from None
            if np.isnan(p).any():
                raise ValueError("probabilities p contain NaN")
            total = float(np.sum(p))
            if abs(total - 1.0) > _P_SUM_TOLERANCE:
                raise ValueError(f"probabilities p must sum to 1, got {total}")
        if isinstance(a, np.ndarray) and a.ndim == 0 and a.dtype.kind in "iu":
            a = a[()]  # NumPy takes a 0-d array of an integer as the integer
        if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
            chosen = self._draw(sampling.sample, a, p, size, replace=replace)
            return chosen.item() if isinstance(chosen, np.generic) else chosen
        a = np.asarray(a)
        if a.ndim == 0:
            raise ValueError(f"a must be an int or an array with at least one dimension, "
                             f"got {a!r:.60}")
        axis = _axis(axis, a.ndim)
        chosen = self._draw(sampling.sample, np.moveaxis(a, axis, 0), p, size,
                            replace=replace)
        if axis == 0:
            return chosen
        # The sampled dimensions come first; put them where ``axis`` was.
        k = chosen.ndim - (a.ndim - 1)
        order = [*range(k, k + axis), *range(k), *range(k + axis, chosen.ndim)]
        return chosen.transpose(order)

    def permutation(self, x: ArrayLike, axis: int = 0):
        """A permuted ``range(x)`` or a shuffled copy of ``x``, as
        ``numpy.random.Generator.permutation``.

        Parameters
        ----------
        x : int or array_like
            ``range(x)``, or an array whose copy is shuffled along ``axis``.
        axis : int, optional
            The axis to shuffle along.

        Returns
        -------
        numpy.ndarray
            Fisher–Yates from the front on ``n - 1`` 64-bit draws
            (``docs/spec.md``, Sampling).

        Examples
        --------
        >>> import tandem
        >>> sorted(tandem.Generator(1).permutation(5).tolist())
        [0, 1, 2, 3, 4]
        """
        if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            return self._draw(sampling.permutation, x)
        x = np.array(x)
        if x.ndim == 0:
            raise np.exceptions.AxisError("x must be an integer or have at least one dimension")
        self.shuffle(x, axis=axis)
        return x

    def shuffle(self, x: ArrayLike, axis: int = 0):
        """Shuffle ``x`` in place along ``axis``, as ``numpy.random.Generator.shuffle``.

        Parameters
        ----------
        x : numpy.ndarray or mutable sequence
            What to shuffle (a list, say: only ``axis=0``).
        axis : int, optional
            The axis to shuffle along.

        Returns
        -------
        None
            Either way the items go where ``permutation(len(x))`` sends them.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> x = np.arange(5)
        >>> tandem.Generator(1).shuffle(x)
        >>> sorted(x.tolist())
        [0, 1, 2, 3, 4]
        """
        if isinstance(x, np.ndarray):
            if x.ndim == 0:
                raise TypeError("x must have at least one dimension")
            self._draw(sampling.shuffle, np.moveaxis(x, _axis(axis, x.ndim), 0))
            return
        if not isinstance(x, collections.abc.MutableSequence):
            raise TypeError(f"x must be a numpy.ndarray or a mutable sequence, got "
                            f"{type(x).__name__}")
        if axis != 0:
            raise NotImplementedError("a sequence shuffles along axis 0 only; make it an "
                                      "array for other axes")
        order = self._draw(sampling.permutation, len(x))
        x[:] = [x[i] for i in order]

    # -- laws whose parameters broadcast (tandem.laws), the others made below ----

    def _law(self, name, *params, size=None):
        key = reserve.keyed(name, *params)
        values = self._reserve.take(self.bit_generator, key, size)  # a repeated call
        if values is not None:
            return values
        params, nan = _numpy_rules(name, params)
        values = self._made(key if nan is None else reserve.keyed(name, *params), size,
                             parametric.fill, name, *params)
        return values if nan is None else _with_nan(values, nan)

    def standard_gamma(self, shape: ArrayLike, size: Size = None, dtype: DTypeLike = np.float64,
                       out: Array = None):
        """Gamma variates of scale 1, as ``numpy.random.Generator.standard_gamma``.

        Parameters
        ----------
        shape : float or array_like of floats
            The shape, non-negative; a NaN gives NaN there, as NumPy's.
        size : int or tuple of ints, optional
            The output's shape (None: the shape parameter's).
        dtype : {numpy.float64, numpy.float32}, optional
            The values' type: float32 values are the float64 rule's, rounded.
        out : numpy.ndarray, optional
            Where to write the values (C-contiguous, of ``dtype``).

        Returns
        -------
        float or numpy.ndarray
            The gamma rule's values (``tandem.core.gamma``, ``docs/spec.md``).

        Examples
        --------
        >>> import tandem
        >>> tandem.Generator(1).standard_gamma(0.5, size=3).shape
        (3,)
        """
        dtype = distributions.real_dtype(dtype)
        if out is not None:  # NumPy's checks of this method's out
            if not isinstance(out, np.ndarray) or out.dtype != dtype:
                raise TypeError(f"out must be a numpy.ndarray of dtype {dtype}")
            if not out.flags.c_contiguous or not out.flags.writeable:
                raise ValueError("out must be a writeable, C-contiguous array")
        if dtype == np.float32:
            values = self._law("standard_gamma", shape,
                               size=out.shape if out is not None else size)
            if out is None:
                return float(np.float32(values)) if np.ndim(values) == 0 else values.astype(
                    np.float32)
            out[...] = values
            return out
        if out is None:
            return self._law("standard_gamma", shape, size=size)
        return self._draw(parametric.fill, "standard_gamma", shape, size=size, out=out)

    def permuted(self, x: ArrayLike, *, axis: Optional[int] = None, out: Array = None):
        """``x`` with each slice along ``axis`` shuffled on its own, as
        ``numpy.random.Generator.permuted``.

        Parameters
        ----------
        x : array_like
            What to shuffle.
        axis : int, optional
            The axis of the slices (None: the flattened array).
        out : numpy.ndarray, optional
            Where to write the result (``x``'s shape; ``x`` itself shuffles in place).

        Returns
        -------
        numpy.ndarray
            Slice ``j`` (in C order of the other axes) ordered by the
            permutation rule (Fisher–Yates, ``docs/spec.md``) on the ``n - 1``
            draws after those of slice ``j - 1``.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> y = tandem.Generator(1).permuted(np.arange(6).reshape(2, 3), axis=1)
        >>> np.sort(y, axis=1).tolist()
        [[0, 1, 2], [3, 4, 5]]
        """
        x = np.asarray(x)
        if out is not None:
            if not isinstance(out, np.ndarray):
                raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
            if arrays.out_shape(out) != x.shape:
                raise ValueError("out must be an array of the shape of x")
            if not np.can_cast(x.dtype, out.dtype, casting="safe"):
                raise TypeError(f"out's dtype {out.dtype} cannot hold x's {x.dtype}")
            if not out.flags.writeable:
                raise ValueError("out must be writeable")
        if axis is None:
            values = x.reshape(-1)
            result = self.permuted(values, axis=0)
            result = result.reshape(x.shape)
        else:
            axis = _axis(axis, x.ndim)
            moved = np.moveaxis(x, axis, -1)
            rows = moved.reshape(-1, moved.shape[-1]) if moved.size else moved.reshape(
                0, moved.shape[-1])
            result = np.moveaxis(self._draw(sampling.permuted, rows).reshape(moved.shape),
                                 -1, axis)
        if out is None:
            return result
        out[...] = result
        return out

    def multivariate_normal(self, mean: ArrayLike, cov: ArrayLike, size: Size = None,
                            check_valid: str = "warn", tol: float = 1e-8, *,
                            method: Optional[str] = "svd"):
        """Multivariate normal draws, as ``numpy.random.Generator.multivariate_normal``.

        Parameters
        ----------
        mean : array_like of floats
            The mean, of length ``d``.
        cov : array_like of floats
            The ``d x d`` covariance, symmetric positive semi-definite.
        size : int or tuple of ints, optional
            The shape of the draws, before the last axis of ``d``.
        check_valid : {"warn", "raise", "ignore"}, optional
            What a covariance that is not positive semi-definite does.
        tol : float, optional
            The tolerance of that check.
        method : {"svd", "eigh", "cholesky"}, optional
            The factorisation.

        Returns
        -------
        numpy.ndarray
            :func:`tandem.multivariate.multivariate_normal`'s draws.

        Examples
        --------
        >>> import tandem
        >>> tandem.Generator(1).multivariate_normal([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], 4).shape
        (4, 2)
        """
        return self._draw(multivariate.multivariate_normal, mean, cov, size, check_valid, tol,
                          method=method)

    def dirichlet(self, alpha: ArrayLike, size: Size = None):
        """Dirichlet draws, as ``numpy.random.Generator.dirichlet``.

        Parameters
        ----------
        alpha : array_like of floats
            The concentrations, positive; a NaN gives NaN vectors (after the
            draws of ones), as NumPy's.
        size : int or tuple of ints, optional
            The shape of the draws, before the last axis.

        Returns
        -------
        numpy.ndarray
            :func:`tandem.multivariate.dirichlet`'s draws.

        Examples
        --------
        >>> import numpy as np, tandem
        >>> x = tandem.Generator(1).dirichlet([1.0, 2.0, 3.0], 2)
        >>> bool(np.allclose(x.sum(axis=1), 1.0))
        True
        """
        checks.refuse_text(alpha, "alpha")
        if isinstance(alpha, (list, tuple, np.ndarray)):
            a = np.asarray(alpha)
            if a.ndim == 1 and a.dtype.kind == "f" and np.isnan(a).any():
                values = self._draw(multivariate.dirichlet, np.ones(a.size), size)
                values[...] = np.nan
                return values
        return self._draw(multivariate.dirichlet, alpha, size)

    def multinomial(self, n: ArrayLike, pvals: ArrayLike, size: Size = None):
        """Multinomial counts, as ``numpy.random.Generator.multinomial``.

        Parameters
        ----------
        n : int or array_like of ints
            Trials.
        pvals : array_like of floats
            The categories' probabilities.
        size : int or tuple of ints, optional
            The shape of the draws, before the last axis.

        Returns
        -------
        numpy.ndarray
            For a scalar ``n`` and one ``pvals``,
            :func:`tandem.multivariate.multinomial`'s counts; other shapes
            are NumPy's own method on the stream's words.

        Examples
        --------
        >>> import tandem
        >>> int(tandem.Generator(1).multinomial(10, [0.2, 0.8]).sum())
        10
        """
        checks.refuse_text(n, "n")
        if np.ndim(n) or np.ndim(pvals) != 1:
            return self._numpy("multinomial", n, pvals, size)
        return self._draw(multivariate.multinomial, n, pvals, size)


    # -- NumPy's algorithms on the stream's words --------------------------------

    def hypergeometric(self, ngood: ArrayLike, nbad: ArrayLike, nsample: ArrayLike,
                       size: Size = None):
        return self._numpy("hypergeometric", ngood, nbad, nsample, size)

    def logseries(self, p: ArrayLike, size: Size = None):
        return self._numpy("logseries", p, size)

    def zipf(self, a: ArrayLike, size: Size = None):
        return self._numpy("zipf", a, size)

    def noncentral_chisquare(self, df: ArrayLike, nonc: ArrayLike, size: Size = None):
        return self._numpy("noncentral_chisquare", df, nonc, size)

    def noncentral_f(self, dfnum: ArrayLike, dfden: ArrayLike, nonc: ArrayLike, size: Size = None):
        return self._numpy("noncentral_f", dfnum, dfden, nonc, size)

    def multivariate_hypergeometric(self, colors: ArrayLike, nsample: ArrayLike, size: Size = None,
                                    method: Optional[str] = "marginals"):
        return self._numpy("multivariate_hypergeometric", colors, nsample, size, method)


_NUMPY_DOC = """NumPy's ``{name}`` on the stream's words.

Its values are NumPy's algorithm on tandem's words: the same on every CPU
for the same stream, but not tandem's rule (not cut-invariant or
addressable, and not on the GPU).  It raises ``OverflowError`` if it draws
past the end of the lane, the stream left where it was.

Parameters
----------
{parameters}size : int or tuple of ints, optional
    The output's shape, as NumPy's.
{after}
Returns
-------
int or numpy.ndarray
    As ``numpy.random.Generator.{name}``.

Examples
--------
>>> import tandem
>>> x = tandem.Generator(1).{name}({example})
"""

#: NumPy's algorithms on tandem's words: each one's parameters (before ``size``
#: and after it) and an example call.
_NUMPY_METHODS = {
    "hypergeometric": ("ngood, nbad : int or array_like of ints\n    Good and bad items.\n"
                       "nsample : int or array_like of ints\n    Items drawn.\n",
                       "", "5, 5, 3, size=2"),
    "logseries": ("p : float or array_like of floats\n    In ``[0, 1)``.\n", "",
                  "0.5, size=2"),
    "zipf": ("a : float or array_like of floats\n    Above 1.\n", "", "2.0, size=2"),
    "noncentral_chisquare": ("df, nonc : float or array_like of floats\n"
                             "    Degrees of freedom (positive) and non-centrality.\n",
                             "", "3.0, 1.0, size=2"),
    "noncentral_f": ("dfnum, dfden, nonc : float or array_like of floats\n"
                     "    Degrees of freedom (positive) and non-centrality.\n",
                     "", "3.0, 5.0, 1.0, size=2"),
    "multivariate_hypergeometric": (
        "colors : sequence of ints\n    Items of each color.\nnsample : int\n    Items drawn.\n",
        "method : {'marginals', 'count'}, optional\n    NumPy's algorithm.\n",
        "[3, 4, 5], 6, size=2"),
}
for _name, (_before, _after, _example) in _NUMPY_METHODS.items():
    getattr(Generator, _name).__doc__ = _NUMPY_DOC.format(name=_name, parameters=_before,
                                                          after=_after, example=_example)


_LAW_DOC = """{doc}.

As ``numpy.random.Generator.{name}``, by tandem's rule of the law.

Parameters
----------
{parameters}size : int or tuple of ints, optional
    The output's shape, to which the parameters broadcast (None: their
    broadcast shape, one value for scalars).

Returns
-------
{returns}
    ``tandem.parametric.fill(stream, "{name}", ...)``'s values (the
    fill's rule, ``docs/spec.md``), the stream moved on past them.

Examples
--------
>>> import tandem
>>> x = tandem.Generator(1).{name}({example}size=3)
"""


_F64 = np.dtype(np.float64)

#: The laws whose NumPy methods give NaN for a NaN parameter (the others raise).
_NAN_PASSES = frozenset({
    "normal", "exponential", "standard_gamma", "gamma", "chisquare", "beta", "vonmises",
    "wald", "triangular", "lognormal", "laplace", "logistic", "gumbel", "pareto", "f",
    "standard_t", "weibull", "power", "rayleigh"})


_PLAIN = frozenset({float, int})


def _numpy_rules(name, params):
    """NumPy's rules for a law's parameters, before a draw: ``(params, nan)``.

    A string that is no number raises ``ValueError`` (:func:`checks.refuse_text`).

    NumPy checks each parameter on its own, lets NaN pass, and gives NaN
    wherever a parameter is NaN.  So where a parameter of a law of
    :data:`_NAN_PASSES` holds NaN, each parameter is checked in turn with its
    NaN elements taken as the law's first example's value, and the checks
    of several parameters run with the NaNs (raising as NumPy does for the
    others); then, where any is NaN, every parameter takes the
    example's values (so the draw runs, and moves the stream, as for any
    parameters).  ``nan`` is where the values are to be NaN (True: all of
    them; a bool array of the parameters' broadcast shape; None: nowhere).
    """
    for p in params:
        if type(p) not in _PLAIN or p != p:
            break
    else:
        return params, None  # Python numbers, none NaN: nothing to see (the common call)
    law = laws.law(name) or laws.TWO_PARTS.get(name)  # None: exponential's one scale
    parameters = law.parameters if law else (None,) * len(params)
    for parameter, p in zip(parameters, params):
        if parameter is not None:
            checks.refuse_text(p, parameter.name)
    if name not in _NAN_PASSES:
        return params, None
    arrays = []
    for p in params:
        a = None  # a CuPy array or a masked one is not NaN-checked here
        if isinstance(p, (float, np.floating, np.ndarray, list, tuple)) and not (
                np.ma.isMaskedArray(p)):
            try:
                a = checks.real_array(p, "parameter")
            except (TypeError, ValueError, OverflowError):  # the checks raise it, in turn
                pass
        arrays.append(a)
    nan = [a is not None and np.isnan(a) for a in arrays]
    if not any(np.any(each) for each in nan):
        return params, None
    examples = law.parameter_sets[0] if law else (1.0,) * len(params)
    for parameter, p, a, each, e in zip(parameters, params, arrays, nan, examples):
        if parameter is not None:
            parameter.check_array(p if a is None else np.where(each, e, a), _F64)
    if getattr(law, "check", None) is not None:  # comparisons with NaN pass, as NumPy's
        law.check(*arrays)
    if all(np.ndim(a) == 0 for a in arrays):
        return tuple(examples), True
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    anywhere = np.broadcast_to(np.logical_or.reduce(
        [np.broadcast_to(each, shape) for each in nan]), shape)
    return tuple(np.where(anywhere, e, a) for a, e in zip(arrays, examples)), anywhere


def _with_nan(values, nan):
    """``values`` with NaN where :func:`_numpy_rules` said."""
    if nan is True:
        return np.full_like(values, np.nan) if np.ndim(values) else type(values)(np.nan)
    values[...] = np.where(nan, np.nan, values)
    return values


def _product(size):
    """``numpy.prod(size)``, whose failure names ``size``."""
    try:
        return np.prod(size)
    except (TypeError, ValueError):
        raise TypeError(f"size must be an integer or a tuple of integers, got "
                        f"{size!r:.60}") from None


def _bound(value, name):
    """An integer argument as NumPy casts it: a float, or a 0-d array of one,
    truncates to an int (NaN and infinities raise as ``int`` does), an array of
    floats to int64; anything else is left to the checks."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    checks.refuse_text(value, name)
    if isinstance(value, (float, np.floating)):
        return int(value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" or isinstance(
            value, (list, tuple)) and any(isinstance(v, (float, np.floating)) for v in value):
        array = np.asarray(value, dtype=np.float64)
        if not np.isfinite(array).all():
            raise ValueError("cannot convert float NaN or infinity to integer")
        return array.astype(np.int64)
    return value


def _law_method(law: laws.Law):
    """``Generator.<law.name>``: NumPy's signature (the law's parameters with
    NumPy's defaults, then ``size``) and one call, ``self._law``."""
    source = (f"def {law.name}(self, {law_methods.signature(law)}size: Size = None) -> Array:\n"
              f"    return self._law({law.name!r}, {law_methods.arguments(law)}size=size)\n")
    doc = _LAW_DOC.format(doc=law.doc, name=law.name,
                          parameters=law_methods.parameters_doc(law),
                          returns=law_methods.returns_doc(law), example=law_methods.example(law))
    return law_methods.make(law.name, source, {}, doc, __name__, f"Generator.{law.name}")


for _each in (*laws.LAWS.values(), *laws.TWO_PARTS.values()):
    if _each.name not in vars(Generator):  # normal and standard_gamma are written above
        setattr(Generator, _each.name, _law_method(_each))
del _each
