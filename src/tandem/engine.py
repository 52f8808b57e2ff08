"""The engine: a fill of one kind from a stream, handed to a backend.

Every public fill (:mod:`tandem.distributions`, :mod:`tandem.parametric`,
:mod:`tandem.multivariate`) states its law as a :class:`Spec` (a kind of
:mod:`tandem.kinds`, its parameter words, table and output dtype) and calls
:func:`run` or :func:`run_at`; those check the stream and the lane, shape the
output (:mod:`tandem.arrays`) and pass the resolved record to the
:class:`Backend` of the output's device.  A backend names no law: it runs the
kernels of the kinds it is given.

Examples
--------
>>> import tandem
>>> from tandem import engine
>>> values, after = engine.run(tandem.Philox(1), engine.spec("uniform64", (0, 0, 0)), 3)
>>> bool((values == tandem.Philox(1).random(3)[0]).all())
True
"""

from __future__ import annotations

import numbers
from typing import Callable, NamedTuple, Optional, Protocol

import numpy as np

from . import arrays
from .kinds import KINDS, Kind, resolve
from .stream import Stream


class Spec(NamedTuple):
    """What :func:`run` fills: a kind, its parameter words, its table (None:
    the kind's own) and the dtype of the output (None: the kind's)."""

    kind: Kind
    params: tuple
    table: Optional[np.ndarray]
    dtype: Optional[np.dtype]


def spec(name: str, params: tuple = (0, 0, 0), dtype=None, table=None) -> Spec:
    """The :class:`Spec` of the kind ``name`` (a key of ``tandem.kinds.KINDS``)."""
    return Spec(KINDS[name], params, table, dtype)


class Backend(Protocol):
    """What a backend implements (``tandem.backends.cpu``, ``.cuda``, ``.reference``).

    ``record`` is a resolved kind (``tandem.kinds.resolve``); ``out``, ``index``
    and the parameter arrays are flat arrays of the backend's device;
    ``threads`` None means all the cores (the CPU) or is ignored.  Each
    writes ``out`` and returns nothing.
    """

    def fill(self, record, out, threads=None) -> None:
        """Elements ``0 .. out.size - 1`` of ``record``'s fill."""

    def addressed(self, record, index, out, threads=None) -> None:
        """Elements ``index`` of ``record``'s fill, each computed alone."""

    def addressed_each(self, record, index, each, out, threads=None) -> None:
        """As :meth:`addressed`, element ``i`` with the parameter words ``each[i]``."""

    # Composed fills (``cpu`` and ``cuda``): laws made of two kinds' elements,
    # each the same as those elements computed alone.

    def two_parts(self, name, out, a, b, p, q, threads=None) -> None:
        """``out[i] = tandem.core.two_parts.<name>(a[i], b[i], p[j], q[j])``."""

    def two_part_fill(self, first, second, name, out, p, q, threads=None) -> None:
        """:meth:`two_parts` of the elements of ``first`` and ``second``, in one kernel."""

    def poisson_mixture_fill(self, mixing, poisson, out, mean_limit, ptrs_from,
                             threads=None) -> None:
        """Poisson counts whose means are the elements of ``mixing``, in one kernel."""

    def johnk_fill(self, record, out, threads=None) -> None:
        """Jöhnk's beta, its misses' retries in rounds, in one kernel."""

    # Rows (``cpu`` and ``cuda``).

    def transformed_rows(self, z, m, mean, out, threads=None) -> None:
        """``out[i, r] = mean[r] + sum_c z[i, c] m[c, r]``, in the order of ``c``."""

    def normalised_rows(self, g, out, threads=None) -> None:
        """``out[i, j] = g[i, j] / sum_j g[i, j]``, the sum in order."""

    def multinomial_rows(self, record, trials, p, out, threads=None) -> None:
        """Multinomial counts, a row an element, from ``record``'s binomial elements."""

    # ``cuda`` alone also has ``dirichlet_rows`` (a row a thread, in one
    # kernel); ``tandem.multivariate`` asks for it by ``hasattr``.


def _cpu() -> Backend:
    from .backends import cpu
    return cpu


def _cuda() -> Backend:
    from .backends import cuda
    return cuda


def _reference() -> Backend:
    from .backends import reference
    return reference


#: Each backend's module, imported on first use (the CUDA one needs numba-cuda).
BACKENDS: dict[str, Callable[[], Backend]] = {
    "cpu": _cpu, "cuda": _cuda, "reference": _reference}


def backend_for(name: str) -> Backend:
    """The backend ``name``: ``"cpu"``, ``"cuda"`` or ``"reference"``."""
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {tuple(BACKENDS)}, got {name!r}")
    return BACKENDS[name]()


def check_stream(stream) -> None:
    """A TypeError unless ``stream`` is a :class:`tandem.Stream`."""
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be a tandem Stream, got {type(stream).__name__}")


def check_threads(threads) -> None:
    """A ValueError unless ``threads`` is None or a positive integer."""
    if threads is None:
        return
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")


def run(stream: Stream, spec: Spec, size, out=None, threads=None, device=None, backend=None,
        finish=None):
    """Fill ``size`` or ``out`` with ``spec`` from ``stream``.

    Parameters
    ----------
    stream : tandem.Stream
        Where the fill starts.
    spec : Spec
        The kind, its parameters, table and dtype.
    size, out, device
        As a public fill takes them (:func:`tandem.arrays.output`).
    threads : int or None
        CPU threads; None for all.
    backend : str or None
        A :data:`BACKENDS` name; None for the device's own.
    finish : callable, optional
        Applied to the filled array (of the result's shape) before it is returned.

    Returns
    -------
    values : numpy.ndarray or cupy.ndarray or scalar
        The fill.
    after : tandem.Stream
        ``stream`` moved past the words the fill used.
    """
    check_stream(stream)
    check_threads(threads)
    record = resolve(stream, *spec[:3])
    width = spec.kind.width

    def check_lane(n):
        end = record.start + width * n
        if end > stream.word_limit:
            raise ValueError(f"size: the fill needs words up to {end}, past the end of the "
                             "lane (2**64 words)")

    target = arrays.output(size, out, spec.dtype, device, check_count=check_lane)
    end = record.start + width * target.flat.size
    if target.flat.size:
        backend_for(backend or target.device).fill(record, target.flat, threads)
        if finish is not None:
            finish(target.array)
    return target.result(), stream.at_word(end)


def run_at(stream: Stream, spec: Spec, index, threads=None, device=None, backend=None,
           finish=None):
    """Elements ``index`` of the fill of ``spec`` that starts at ``stream``, each
    computed alone (arguments as :func:`run`); an array of ``index``'s shape."""
    check_stream(stream)
    check_threads(threads)
    flat, shape, device = arrays.index_array(index, device)
    record = resolve(stream, *spec[:3])
    if flat.size and record.start + spec.kind.width * (int(flat.max()) + 1) > stream.word_limit:
        raise ValueError("index reaches past the end of the lane (2**64 words)")
    target = arrays.output(flat.size, None, spec.dtype, device)
    values = target.array.reshape(shape)
    if flat.size:
        backend_for(backend or device).addressed(record, arrays.flat(flat), target.flat,
                                                 threads)
        if finish is not None:
            finish(values)
    return values
