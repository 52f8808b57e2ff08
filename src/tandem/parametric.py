"""Fills of the laws whose parameters broadcast as NumPy's do.

Each law is one :class:`tandem.laws.Law` record: its kinds, its parameters
in NumPy's argument order with their checks, and how the checked
parameters become the kinds' three parameter words.  Scalar parameters
take the fill kernels of the kind the law's strategy chooses; array parameters take the kernels
that read each element's own words, which give the same values, bit for
bit, for the same parameters.  The counting laws (``poisson``,
``binomial``, ``geometric``) compute their counts in f64, and the kernels
store them as int64 (:func:`tandem.core.inversion.count64`).

Array parameters choose, element by element, the kind of their regime
(:attr:`tandem.laws.Law.regimes`).  Laws of two parts (``standard_t``, ``f``,
``negative_binomial``, ``wald``, ``beta``) take 8 words an element, each
part an element of another law computed alone (:func:`at`), and their value
from :mod:`tandem.core.two_parts`; with scalar parameters, one kernel
computes both parts and the value (on the CPU from 1,024 elements), and
``negative_binomial`` on the GPU is one kernel too.
:data:`tandem.laws.PARTS` holds the laws that exist only as parts.
``docs/spec.md`` states each rule to the bit.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import arrays, engine, law_methods
from .distributions import integer_dtype
from .kinds import KINDS, resolve
from .core import poisson
from .laws import LAM_MAX, LAWS, TWO_PARTS
from .laws import law as law_of
from .stream import Stream, register_fills

_F64 = np.dtype(np.float64)


def _checked(law, values):
    if len(values) != len(law.parameters):
        raise TypeError(f"{len(law.parameters)} parameters expected, got {len(values)}")
    checked = []
    for parameter, value in zip(law.parameters, values):
        arrays.refuse_masked(value, parameter.name)
        if type(value) is not np.ndarray and isinstance(value, np.ndarray) and not value.ndim:
            float(value)  # a 0-d subclass's own conversion, whose errors NumPy propagates
        if arrays.device_of(value) == "cuda":  # checked on the host, as NumPy checks them
            value = arrays.to_host(value, parameter.name)
        checked.append(parameter.check_array(value, _F64))
    if law.check is not None:
        law.check(*checked)
    return checked


def _prepare(name, params):
    """``(kind, parameter words, the parameters' names)``: the words as uint64
    arrays that broadcast together (shared by equal calls of Python numbers:
    read them, never write them)."""
    typed = tuple(_scalar_text(p) for p in params)
    if None in typed:
        return _prepare_any(name, params)
    key = (name, typed)
    prepared = _PREPARED.get(key)
    if prepared is None:  # refusals raise here, and are not remembered
        prepared = _prepare_any(name, params)
        if len(_PREPARED) >= 512:
            _PREPARED.clear()
        _PREPARED[key] = prepared
    return prepared


#: :func:`_prepare`'s results for scalar parameters, by law and the
#: parameters' types and texts (a dict's single reads and writes are atomic).
_PREPARED: dict = {}


def _scalar_text(p):
    """A Python number or a 0-d NumPy array of numbers as its type and text (so
    ``-0.0`` is not ``0.0``, nor ``1`` ``1.0``); None for anything else."""
    kind = type(p)
    if kind is float or kind is int:
        return kind, repr(p)
    if kind is np.ndarray and not p.ndim and p.dtype.kind in "biuf":
        return p.dtype.str, p.tobytes()
    return None


def _prepare_any(name, params):
    law = law_of(name)
    if law is None:
        raise ValueError(f"no law named {name!r:.60}; the laws are {sorted(LAWS)}")
    words = np.broadcast_arrays(*law.words(*_checked(law, params)))
    names = " and ".join(p.name for p in law.parameters)
    return (KINDS[law.kind], [np.array(w, dtype=np.float64).view(np.uint64) for w in words],
            names)


def parameter_words(name: str, *params):
    """``(kind, words)`` of the law ``name`` with ``params`` (broadcast, flattened):
    its kind and each element's three parameter words, the columns of a
    ``(3, n)`` uint64 array, as a kernel of rows reads them.

    Examples
    --------
    >>> kind, words = parameter_words("standard_gamma", [0.5, 2.0])
    >>> kind.name, words.shape
    ('gamma64', (3, 2))
    """
    kind, words, _ = _prepare(name, params)
    return kind, _each(words, words[0].shape)


def _scalar_spec(name, kind, words, dtype=_F64):
    """The fill spec of scalar parameter words: the law's faster kind where it has one."""
    law = law_of(name)
    faster = law.faster and law.faster(*(float(w.view(np.float64)) for w in words))
    name, table = faster or (kind.name, None)
    return engine.spec(name, tuple(int(w) for w in words), dtype, table)


def scalar_record(stream, name: str, *params):
    """The fill record at ``stream`` of the law ``name`` with scalar ``params``,
    by the law's fastest kind for them: what a backend's ``fill`` and
    ``addressed`` take.

    Examples
    --------
    >>> import tandem
    >>> scalar_record(tandem.Philox(1), "standard_gamma", 0.5).kind
    'gamma_small64'
    """
    return resolve(stream, *_scalar_spec(name, *_prepare(name, params)[:2])[:3])


def _fits(params_shape, shape, what, names):
    try:
        fits = np.broadcast_shapes(params_shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{names} (shape {params_shape}) do not broadcast to the shape of "
                         f"{what}, {shape}")


def _each(words, shape):
    """Each element's three parameter words, as the columns of a ``(3, n)`` array."""
    each = np.empty((3, int(np.prod(shape))), dtype=np.uint64)
    for j, w in enumerate(words):
        each[j].reshape(shape)[...] = w
    return each


def fill(stream, name: str, *params, size=None, out=None, threads=None, device=None,
         backend=None):
    """Draw from the law ``name`` with parameters ``params``: ``(values, next stream)``.

    Parameters
    ----------
    stream : tandem.Stream
        Where the draws start.
    name : str
        A key of :data:`tandem.laws.LAWS` or :data:`tandem.laws.TWO_PARTS`, for
        example ``"laplace"``.
    *params : float or array_like
        The law's parameters, in NumPy's order; arrays broadcast as NumPy's.
    size : int or tuple of int, optional
        The output's shape; the parameters must broadcast to it.  None: the
        parameters' broadcast shape (one value for scalars).
    out, threads, device, backend
        As for :func:`tandem.distributions.normal`.

    Returns
    -------
    (numpy.ndarray, tandem.Stream)
        Float64 values (int64 counts for ``poisson``), and the stream after
        them.  Element ``i`` takes the draw of ``w`` words (the kind's width,
        2 or 4) at word ``w i`` from the stream's position (rounded up to a
        multiple of ``w``), whatever the parameters' shapes: a fill cut
        anywhere equals the whole, and equal parameters give equal values,
        arrays or not.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> x, after = parametric.fill(tandem.Philox(1), "laplace", 0.0, [1.0, 2.0])
    >>> x.shape, after.position
    ((2,), 4)
    """
    if name in TWO_PARTS:
        return _two_part_fill(stream, name, params, size, out, threads, device, backend)
    kind, words, names = _prepare(name, params)
    dtype = _dtype(name)
    if dtype != _F64 and out is not None and getattr(out, "dtype", None) != dtype:
        raise TypeError(f"out must be an int64 array for {name}, got "
                        f"{getattr(out, 'dtype', type(out).__name__)}")
    if not words[0].shape:
        spec = _scalar_spec(name, kind, words, dtype)
        return engine.run(stream, spec, size, out, threads, device, backend)
    return _fill_each(stream, kind, words, names, size, out, dtype, threads, device, backend,
                      law_of(name).regimes)


def _dtype(name):
    """The dtype of the law ``name``'s values: int64 for counts, which the
    kernels store as :func:`tandem.core.inversion.count64` of their f64
    counts (``Kind.counts``), else float64."""
    return np.dtype(np.int64) if (law_of(name) or TWO_PARTS[name]).counts else _F64


def _width(name):
    """Words per element of the law ``name``."""
    return KINDS[law_of(name).kind].width


def _fill_each(stream, kind, words, names, size, out, dtype, threads, device=None,
               backend=None, regimes=None):
    """The fill of ``kind`` whose elements take their parameter words from the
    broadcast ``words`` (of the parameters ``names``): ``(values, next stream)``.
    ``regimes``: the law's (see :class:`tandem.laws.Law`)."""
    engine.check_stream(stream)
    engine.check_threads(threads)
    shape = words[0].shape
    target_shape = arrays.out_shape(out) if out is not None else arrays.shape_of(size)
    target_shape = shape if target_shape is None else tuple(target_shape)
    _fits(shape, target_shape, "out" if out is not None else "size", names)
    record = resolve(stream, kind)

    def check_lane(n):
        if record.start + kind.width * n > stream.word_limit:
            raise ValueError("size: the fill needs words past the end of the lane (2**64)")

    target = arrays.output(None if out is not None else target_shape, out, dtype,
                           device if out is None else None, check_count=check_lane)
    n = target.flat.size
    if n:
        index = arrays.module(target.device).arange(n, dtype=np.uint64)
        _addressed_each(stream, kind, regimes, index, _each(words, target_shape),
                        target.array.reshape(-1), threads, backend or target.device)
    return target.result(), stream.at_word(record.start + kind.width * n)


def _addressed_each(stream, kind, regimes, index, each, out, threads, backend):
    """Element ``index[i]`` of ``kind``'s fill from ``stream``, with the parameter
    words ``each[:, i]`` (a host array), into the flat ``out`` (on the device of
    ``index``), each element by the kind of its regime (``regimes``, see
    :class:`tandem.laws.Law`; None: ``kind`` for all)."""
    xp = arrays.module_of(index)
    parts = ((kind.name, None),) if regimes is None else regimes(
        *(each[j].view(np.float64) for j in range(3)))
    for name, mask in parts:
        if mask is not None and not mask.any():
            continue
        record = resolve(stream, KINDS[name])
        if mask is None or mask.all():
            engine.backend_for(backend).addressed_each(record, arrays.flat(index), xp.asarray(each),
                                             arrays.flat(out), threads)
            continue
        where = np.flatnonzero(mask)  # gathers by position: faster than by a mask
        values = xp.empty(where.size, dtype=out.dtype)
        engine.backend_for(backend).addressed_each(
            record, index.take(xp.asarray(where)), xp.asarray(each.take(where, axis=1)),
            arrays.flat(values), threads)
        out[xp.asarray(where)] = values


def _integer_bounds(value, name):
    """``value`` as an object array of Python ints (exact for any 64-bit bound)."""
    arrays.refuse_masked(value, name)
    # Lists as objects: NumPy would make floats of bounds past int64.
    values = value if isinstance(value, np.ndarray) else np.array(value, dtype=object)
    if values.dtype.kind not in "iu" and not (values.dtype == object and all(
            isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
            for v in values.flat)):
        raise TypeError(f"{name} must hold integers, got dtype {values.dtype}")
    return values.astype(object)


def integers(stream, low, high=None, size=None, *, dtype=np.int64, endpoint=False, out=None,
             threads=None, backend=None):
    """Integers in ``[low, high)`` with array bounds that broadcast: ``(values, next stream)``.

    Each element is the rule of :func:`tandem.distributions.integers` with its
    own bounds; the draw width (32 or 64 bits) is the widest any element
    needs, so bounds that are all equal give the values of those bounds as
    scalars.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> k, _ = parametric.integers(tandem.Philox(1), [0, 10], [5, 20])
    >>> bool(0 <= k[0] < 5 and 10 <= k[1] < 20)
    True
    """
    dtype = integer_dtype(dtype)
    if high is None:
        low, high = 0, low
    low, high = _integer_bounds(low, "low"), _integer_bounds(high, "high")
    if endpoint:
        high = high + 1
    low, high = np.broadcast_arrays(low, high)
    if (low >= high).any():
        raise ValueError("low must be below high" + (" (endpoint=True)" if endpoint else ""))
    info = np.iinfo(dtype)
    if (low < info.min).any() or (high - 1 > info.max).any():
        raise ValueError(f"low and high must give ranges within dtype {dtype}")
    span = high - low
    wide = bool((span > 2**32).any()) if span.size else False
    modulus = 2**64 if wide else 2**32
    words = [np.array([int(v) % 2**64 for v in w.flat], dtype=np.uint64).reshape(w.shape)
             for w in (low, span, modulus % span)]
    kind = KINDS["integers64" if wide else "integers32"]
    return _fill_each(stream, kind, words, "low and high", size, out, dtype, threads,
                      backend=backend)


def at(stream, name: str, index, *params, threads=None, device=None, backend=None):
    """Elements ``index`` of ``fill(stream, name, *params, ...)``, each computed alone.

    Array parameters broadcast to the shape of ``index``, element ``j`` of the
    result taking the parameters at ``j``.

    Examples
    --------
    >>> import numpy as np, tandem
    >>> from tandem import parametric
    >>> s = tandem.Philox(1)
    >>> bool(parametric.at(s, "gumbel", [5], 0.0, 1.0)[0]
    ...      == parametric.fill(s, "gumbel", 0.0, 1.0, size=6)[0][5])
    True
    """
    if name in TWO_PARTS:
        return _two_part_at(stream, name, index, params, threads, device, backend)
    kind, words, names = _prepare(name, params)
    if not words[0].shape:
        return engine.run_at(stream, _scalar_spec(name, kind, words, _dtype(name)), index, threads,
                       device, backend)
    engine.check_stream(stream)
    engine.check_threads(threads)
    flat, shape, device = arrays.index_array(index, device)
    _fits(words[0].shape, shape, "index", names)
    record = resolve(stream, kind)
    if flat.size and record.start + kind.width * (int(flat.max()) + 1) > stream.word_limit:
        raise ValueError("index reaches past the end of the lane (2**64 words)")
    values = arrays.module(device).empty(flat.size, dtype=_dtype(name))
    if flat.size:
        _addressed_each(stream, kind, law_of(name).regimes, flat, _each(words, shape), values,
                        threads, backend or device)
    return values.reshape(shape)


# -- laws composed of others, two blocks an element ------------------------------------
# Element i reads words start + 8 i ... + 7 of the stream (start rounded up
# to a block): its first part is the element of a law at word 8 i, its
# second the element at word 8 i + 4, each computed alone (``at``).

_COMPOSED_WORDS = 8


def _composed(stream, size, first, second, combine=None, device=None, threads=None,
              backend=None):
    """``(values, next stream)`` of a law of two parts.

    ``first`` and ``second`` are ``(law name, parameters)``; the second's
    parameters may be a function of the first part's values.  ``combine`` is
    ``(name of a tandem.core.two_parts function, the law's parameters)``,
    which makes the values from the two parts'; None: the second part's values.
    """
    engine.check_stream(stream)
    shapes = [np.shape(p) for p in (*first[1], *(combine[1] if combine else ()))]
    if not callable(second[1]):
        shapes += [np.shape(p) for p in second[1]]
    params_shape = np.broadcast_shapes(*shapes)
    shape, n, base = block_layout(stream, size, params_shape, "the parameters")
    device = arrays.check_device(device) or "cpu"
    xp = arrays.module(device)
    if (backend or device) in ("cpu", "cuda") and combine is not None and n and not any(
            np.ndim(p) for p in (*first[1], *second[1], *combine[1])):
        # scalar parameters: both parts and their value in one kernel
        values = xp.empty(shape)
        records = [scalar_record(base, name, *params) for name, params in (first, second)]
        engine.backend_for(backend or device).two_part_fill(
            *records, combine[0], arrays.flat(values), *_parameter_arrays(combine[1], shape, xp),
            threads)
    else:
        elements = xp.arange(n, dtype=np.uint64).reshape(shape)
        values = _composed_at(base, elements, first, second, combine, device, threads, backend)
    return (values[()] if size is None and not params_shape else values,
            stream.at_word(base.word_position + _COMPOSED_WORDS * n))


def _composed_at(base, elements, first, second, combine, device, threads, backend):
    """Elements ``elements`` (a uint64 array) of a law of two parts from ``base``
    (at a block), each computed alone; the parts as for :func:`_composed`."""
    def part(name, params, offset):
        index = (elements * np.uint64(_COMPOSED_WORDS) + np.uint64(offset)) // np.uint64(
            _width(name))
        return at(base, name, index, *params, threads=threads, device=device, backend=backend)

    a = part(*first, 0)
    values = part(second[0], second[1](a) if callable(second[1]) else second[1], 4)
    if combine is not None:
        values = _two_part_values(*combine, a, values, arrays.module(device), threads,
                                  backend or device)
    return values


def _two_part_values(name, params, a, b, xp, threads, backend):
    """``tandem.core.two_parts.<name>`` of the parts' values ``a`` and ``b`` (of
    one shape) with the law's parameters ``params``, by ``backend``."""
    values = xp.empty(a.shape)
    engine.backend_for(backend).two_parts(name, arrays.flat(values), arrays.flat(a), arrays.flat(b),
                                *_parameter_arrays(params, a.shape, xp), threads)
    return values


def _parameter_arrays(params, shape, xp):
    """Two f64 arrays (zeros for parameters a law has not) of ``xp``: one value
    each, or one an element of ``shape`` where a parameter is an array."""
    params = list(params) + [0.0] * (2 - len(params))
    if not any(np.ndim(p) for p in params):
        return [xp.full(1, float(p)) for p in params]
    return [xp.asarray(np.ascontiguousarray(np.broadcast_to(p, shape), dtype=_F64).reshape(-1))
            for p in params]


def block_layout(stream, size, params_shape, names, words=_COMPOSED_WORDS):
    """``(shape, n, base)`` of a law taking ``words`` words an element (or a row)
    from ``stream``'s position rounded up to a block: the output's shape and
    element count (``params_shape`` when ``size`` is None), and the stream at
    the fill's start."""
    shape = arrays.shape_of(size)
    shape = params_shape if shape is None else tuple(shape)
    _fits(params_shape, shape, "size", names)
    n = int(np.prod(shape, dtype=np.int64))
    start = -(-stream.word_position // 4) * 4
    if start + words * n > stream.word_limit:
        raise ValueError("size: the fill needs words past the end of the lane")
    return shape, n, stream.at_word(start)


def _standard_t_parts(df):
    return ("normal", (0.0, 1.0)), ("chisquare", (df,)), ("student_t", (df,))


def _f_parts(dfnum, dfden):
    return ("chisquare", (dfnum,)), ("chisquare", (dfden,)), ("fisher_f", (dfnum, dfden))


def _negative_binomial_parts(n, p):
    return (("gamma", (n, np.divide(1.0 - p, p))),
            ("poisson", lambda y: (np.minimum(y, LAM_MAX),)), None)


def _wald_parts(mean, scale):
    return ("normal", (0.0, 1.0)), ("uniform", (0.0, 1.0)), ("wald", (mean, scale))


#: A law of two parts: its checked parameters -> (first part, second part, value),
#: each part ``(law, parameters)`` (the second's parameters may be a function of
#: the first part's values), the value ``(tandem.core.two_parts function,
#: parameters)`` or None for the second part's values.  beta chooses its rule
#: element by element (:func:`beta_at`).
_PARTS = {"standard_t": _standard_t_parts, "f": _f_parts,
          "negative_binomial": _negative_binomial_parts, "wald": _wald_parts}


def _parts(name, *params):
    """The parts of the law of two parts ``name`` with the parameters ``params``, checked."""
    return _PARTS[name](*_checked(TWO_PARTS[name], params))


def standard_t(stream, df, size=None, *, device=None, threads=None, backend=None):
    """Student's t of ``df`` degrees: ``z / sqrt(c / df)``, with ``z`` the f64
    normal's element at word ``8 i`` and ``c`` chisquare(df)'s at ``8 i + 4``.

    Returns ``(values, next stream)``; see :func:`fill`.  ``device="cuda"``
    fills a CuPy array with the same bits.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> t, after = parametric.standard_t(tandem.Philox(1), 3.0, 4)
    >>> t.shape, after.position
    ((4,), 32)
    """
    return _composed(stream, size, *_parts("standard_t", df), device, threads, backend)


def f(stream, dfnum, dfden, size=None, *, device=None, threads=None, backend=None):
    """Fisher's F: ``(a / dfnum) / (b / dfden)`` with ``a`` chisquare(dfnum)'s
    element at word ``8 i`` and ``b`` chisquare(dfden)'s at ``8 i + 4``.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> x, _ = parametric.f(tandem.Philox(1), 2.0, 5.0, 3)
    >>> bool((x > 0).all())
    True
    """
    return _composed(stream, size, *_parts("f", dfnum, dfden), device, threads, backend)


def negative_binomial(stream, n, p, size=None, *, device=None, threads=None, backend=None):
    """Failures before the ``n``-th success, NumPy's mixture: the Poisson count
    (at word ``8 i + 4``) of mean ``y`` (at most ``2**52``), with ``y`` the
    element of gamma(n, (1 - p) / p) at word ``8 i``.  Int64.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> k, _ = parametric.negative_binomial(tandem.Philox(1), 3.0, 0.5, 4)
    >>> k.dtype
    dtype('int64')
    """
    parts = _parts("negative_binomial", n, p)
    mixing = parts[0]
    if (backend or arrays.check_device(device) or "cpu") in ("cpu", "cuda") and not any(
            np.ndim(x) for x in mixing[1]):
        return _poisson_mixture(stream, size, mixing, device, backend, threads)
    return _composed(stream, size, *parts, device, threads, backend)


def _poisson_mixture(stream, size, mixing, device, backend, threads):
    """:func:`negative_binomial`'s fill in one kernel, for the scalar parameters
    of the mixing law ``mixing`` (``(law name, parameters)``)."""
    engine.check_stream(stream)
    shape, n, base = block_layout(stream, size, (), "n and p")
    values = arrays.module(arrays.check_device(device) or "cpu").empty(shape, dtype=np.int64)
    mixing_record = scalar_record(base, mixing[0], *mixing[1])
    poisson_record = resolve(base, KINDS["poisson_ptrs64"])
    engine.backend_for(backend or arrays.check_device(device) or "cpu").poisson_mixture_fill(
        mixing_record, poisson_record, arrays.flat(values), LAM_MAX, poisson.INVERSION_BELOW,
        threads)
    return (values[()] if size is None else values), stream.at_word(base.word_position + _COMPOSED_WORDS * n)


def wald(stream, mean, scale, size=None, *, device=None, threads=None, backend=None):
    """Wald (inverse Gaussian) variates by Michael, Schucany and Haas's
    transformation: with ``z`` the f64 normal's element at word ``8 i`` and
    ``u`` the uniform's at ``8 i + 4``, ``y = (mean z) z``, ``x = mean (1 - 2 /
    (1 + sqrt(1 + (4 scale) / y)))`` (the form without cancellation of
    ``mean + (mean / (2 scale)) (y - sqrt(4 scale y + y y))``), and the value
    ``x`` if ``u <= mean / (mean + x)``, else ``(mean mean) / x``.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> x, _ = parametric.wald(tandem.Philox(1), 1.0, 2.0, 3)
    >>> bool((x > 0).all())
    True
    """
    return _composed(stream, size, *_parts("wald", mean, scale), device, threads, backend)


def beta(stream, a, b, size=None, *, device=None, threads=None, backend=None):
    """Beta variates, 8 words an element, as NumPy chooses its algorithm: where
    ``a`` and ``b`` are both at most 1, Jöhnk's rule on the block at word
    ``8 i`` (``tandem.core.beta``); elsewhere ``x / (x + y)`` with ``x`` and ``y``
    the standard_gamma(a) and standard_gamma(b) elements at words ``8 i`` and
    ``8 i + 4``.  ``device="cuda"`` fills a CuPy array with the same bits.

    Examples
    --------
    >>> import tandem
    >>> from tandem import parametric
    >>> x, after = parametric.beta(tandem.Philox(1), [0.5, 2.0], 0.5)
    >>> x.shape, after.position
    ((2,), 16)
    """
    a, b = _checked(TWO_PARTS["beta"], (a, b))
    if not (a.ndim or b.ndim or (a <= 1.0 and b <= 1.0)):  # the ratio of gammas for all
        return _composed(stream, size, ("standard_gamma", (a,)), ("standard_gamma", (b,)),
                         ("gamma_ratio", ()), device, threads, backend)
    engine.check_stream(stream)
    params_shape = np.broadcast_shapes(a.shape, b.shape)
    shape, n, base = block_layout(stream, size, params_shape, "a and b")
    if a.ndim or b.ndim:  # else scalars: the kernels of scalar parameters
        a, b = np.broadcast_to(a, shape).reshape(-1), np.broadcast_to(b, shape).reshape(-1)
    device = arrays.check_device(device) or "cpu"
    xp = arrays.module(device)
    if (backend or device) in ("cpu", "cuda") and not a.ndim:  # Jöhnk's, in one kernel
        values = xp.empty(shape)
        engine.backend_for(backend or device).johnk_fill(scalar_record(base, "beta_johnk", a, b),
                                              arrays.flat(values), threads)
    else:
        values = beta_at(base, xp.arange(n, dtype=np.uint64), a, b, device, threads,
                         backend).reshape(shape)
    return (values[()] if size is None and not params_shape else values,
            stream.at_word(base.word_position + _COMPOSED_WORDS * n))


def beta_at(base, elements, a, b, device="cpu", threads=None, backend=None):
    """Elements ``elements`` (uint64) of :func:`beta` from ``base`` (at a block),
    with the checked shapes ``a`` and ``b``: one each (0-d) or one an element."""
    xp = arrays.module(device)
    blocks = 2 * xp.asarray(elements)  # element e's first block
    johnk = (a <= 1.0) & (b <= 1.0)
    if johnk.ndim:
        johnk = xp.asarray(johnk)

    def part(law, offset, where, *params):
        index = blocks if where is None else blocks[where]
        params = [p if where is None or not p.ndim else p[arrays.to_host(where)]
                  for p in params]
        return at(base, law, index + np.uint64(offset), *params, device=device,
                  threads=threads, backend=backend)

    def gamma_ratio(where):
        return _two_part_values("gamma_ratio", (), part("standard_gamma", 0, where, a),
                                part("standard_gamma", 1, where, b), xp, threads,
                                backend or device)

    if not johnk.ndim:  # scalar shapes: one rule for every element
        return part("beta_johnk", 0, None, a, b) if johnk else gamma_ratio(None)
    values = xp.empty(blocks.shape)
    if johnk.any():
        values[johnk] = part("beta_johnk", 0, johnk, a, b)
    if (~johnk).any():
        values[~johnk] = gamma_ratio(~johnk)
    return values


#: The fill of each law of two parts, by name.
_TWO_PART_FILLS = {"standard_t": standard_t, "f": f, "negative_binomial": negative_binomial,
                   "wald": wald, "beta": beta}


def _two_part_fill(stream, name, params, size, out, threads, device, backend):
    """:func:`fill` of a law of two parts: its function's values, written into
    ``out`` (checked before anything is drawn) when one is given."""
    fill_of = _TWO_PART_FILLS[name]
    if out is None:
        return fill_of(stream, *params, size=size, device=device, threads=threads,
                       backend=backend)
    target = arrays.output(size, out, _dtype(name), device)
    values, after = fill_of(stream, *params, size=target.array.shape, device=target.device,
                            threads=threads, backend=backend)
    target.array[...] = values
    return target.result(), after


def _two_part_at(stream, name, index, params, threads, device, backend):
    """:func:`at` of a law of two parts: element ``i`` from words ``8 i`` on of
    the stream's position rounded up to a block, as its fill takes them."""
    law = TWO_PARTS[name]
    checked = _checked(law, params)
    engine.check_stream(stream)
    engine.check_threads(threads)
    flat, shape, device = arrays.index_array(index, device)
    _fits(np.broadcast_shapes(*(c.shape for c in checked)), shape, "index",
          " and ".join(p.name for p in law.parameters))
    base = stream.at_word(-(-stream.word_position // 4) * 4)
    if flat.size and base.word_position + _COMPOSED_WORDS * (int(flat.max()) + 1) > \
            stream.word_limit:
        raise ValueError("index reaches past the end of the lane (2**64 words)")
    checked = [np.broadcast_to(c, shape).reshape(-1) if c.ndim else c for c in checked]
    if not flat.size:
        values = arrays.module(device).empty(0, dtype=_dtype(name))
    elif name == "beta":
        values = beta_at(base, flat, *checked, device, threads, backend)
    else:
        values = _composed_at(base, flat, *_PARTS[name](*checked), device, threads, backend)
    return values.reshape(shape)


# -- made from the law records ---------------------------------------------------------

def _at_function(law):
    """``tandem.<law.name>_at``: :func:`at` of the law, with its parameters by name."""
    name = f"{law.name}_at"
    source = (f"def {name}(stream: Stream, index: ArrayLike, {law_methods.signature(law)}*, "
              "threads: Optional[int] = None, device: Device = None) -> Array:\n"
              f"    return at(stream, {law.name!r}, index, {law_methods.arguments(law)}"
              "threads=threads, device=device)\n")
    doc = law_methods.at_doc(law.name, law_methods.parameters_doc(law),
                             "int64 counts" if law.counts else "float64 values",
                             law_methods.example(law))
    return law_methods.make(name, source, {"at": at, "Stream": Stream}, doc, "tandem", name)


#: ``tandem.<law>_at`` of every law but ``normal`` (whose ``normal_at`` is the fill's).
AT_FUNCTIONS = {f"{law.name}_at": _at_function(law)
                for law in (*LAWS.values(), *TWO_PARTS.values()) if law.name != "normal"}

register_fills(law=fill)
