"""``tandem compile``: build the CPU kernels of every kind once, into Numba's disk cache.

Kernels compile on first use, per kind and output dtype (one kernel serves
every generator, each generator's tile functions compiled once), and Numba
caches them on disk; a process that finds them there starts in well
under a second.  Run ``tandem compile`` once after installing (or after an
upgrade, which invalidates the cache) so that no later first call waits.
"""

from __future__ import annotations

import time

import numpy as np

#: The fills compiled: (method, arguments, keyword arguments), in their default
#: and most used dtypes.
CALLS = [
    ("bits", (), {"dtype": np.uint32}),
    ("bits", (), {"dtype": np.uint64}),
    ("bits", (), {"dtype": np.bool_}),
    ("random", (), {"dtype": np.float64}),
    ("random", (), {"dtype": np.float32}),
    ("integers", (0, 10), {"dtype": np.int64}),
    ("integers", (0, 2**40), {"dtype": np.int64}),
    ("integers", (0, 10), {"dtype": np.int32}),
    ("bernoulli", (0.5,), {}),
    ("normal", (), {"dtype": np.float64}),
    ("normal", (), {"dtype": np.float32}),
    ("normal", (), {"dtype": np.float32, "method": "zig"}),
    ("exponential", (), {"dtype": np.float64}),
    ("exponential", (), {"dtype": np.float32}),
    ("exponential", (), {"dtype": np.float64, "method": "zig"}),
    ("exponential", (), {"dtype": np.float32, "method": "zig"}),
    ("choice", "table", {}),
]


def compile_all(progress=True) -> float:
    """Compile (or load from the cache) the fill and ``*_at`` kernels of every
    call of :data:`CALLS` for Philox and Threefry; returns the seconds taken.

    Parameters
    ----------
    progress : bool or "always"
        Show a progress bar (on a terminal, or always).

    Returns
    -------
    float
        Wall-clock seconds.

    Examples
    --------
    >>> import tandem.warmup
    >>> seconds = tandem.warmup.compile_all(progress=False)
    """
    import tandem

    from . import _progress, distributions, laws, parametric
    from .backends.cpu import LEAN_BELOW

    table = tandem.AliasTable([1.0, 2.0])
    start = time.perf_counter()
    streams = (tandem.Philox(0), tandem.Threefry(0))
    total = (len(CALLS) + len(laws.LAWS) + len(laws.PARTS)) * len(streams) + len(
        laws.TWO_PARTS) + len(TANDEM_CALLS)
    with _progress.bar(total, "compiling tandem's kernels", progress) as bar:
        for name, args, kwargs in CALLS:
            args = (table,) if args == "table" else args
            for stream in streams:
                for n in (1, LEAN_BELOW):  # the lean kernels, then the vectorised
                    getattr(distributions, name)(stream, *args, n, **kwargs)
                    getattr(distributions, f"{name}_at")(stream, np.arange(n), *args,
                                                         **kwargs)
                bar.update(1)
        for name, law in {**laws.LAWS, **laws.PARTS}.items():
            for params in law.parameter_sets:
                for stream in streams:
                    for n in (1, LEAN_BELOW):
                        parametric.fill(stream, name, *params, size=n)
                        parametric.at(stream, name, np.arange(n), *params)
                    if law.faster is not None:  # the kinds of array parameters
                        parametric.at(stream, name, [0], *([p] for p in params))
            bar.update(1)
        for name, law in laws.TWO_PARTS.items():  # values from their parts', or one kernel
            for params in law.parameter_sets:
                for n in (1, LEAN_BELOW):
                    parametric.fill(streams[0], name, *params, size=n)
                parametric.at(streams[0], name, [0], *params)
            bar.update(1)
        spec_table = tandem.ChoiceTable([1.0, 2.0])
        for name, args, kwargs in TANDEM_CALLS:  # tandem.Tandem's kernels
            args = (spec_table,) if args == "table" else args
            getattr(tandem.Tandem(0), name)(*args, 2, **kwargs)
            bar.update(1)
    return time.perf_counter() - start


#: tandem.Tandem's fills, one call a kernel.
TANDEM_CALLS = [("bits", (), {"dtype": np.uint32}), ("random", (), {"dtype": np.float64}),
                ("random", (), {"dtype": np.float32}), ("below", (10,), {}),
                ("below", (2**40,), {}), ("normal", (), {"dtype": np.float64}),
                ("normal", (), {"dtype": np.float32}), ("exponential", (), {}),
                ("exponential", (), {"dtype": np.float32}), ("choice", "table", {})]

