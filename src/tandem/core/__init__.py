"""Scalar functions that Numba compiles for the CPU and for CUDA.

Bijections, key derivation, word addressing and the maps from draws to
values.  No arrays, no state, no Python objects: every argument and result
is a ``numpy.uint64`` word (below ``2**32`` where it is a 32-bit word) or a
float.  The same source runs as plain Python.

Call them inside your own ``@numba.njit`` or ``@numba.cuda.jit`` code::

    from tandem import core
    x0, x1, x2, x3 = core.block_at(core.PHILOX, k0, k1, k2, k3, lane, b)

Accessing a function through this package registers every core function
with Numba (``register_jitable``), which imports Numba; importing
``tandem`` alone does not.
"""

import importlib

_MODULES = ("bijections", "derivation", "addressing", "uniform", "fmath", "normal", "choice")
_registered = set()


def _core_functions():
    """Every core function with its marks: (function, inline, lowered)."""
    for name in _MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if callable(value) and getattr(value, "__module__", None) == module.__name__:
                yield (value, getattr(value, "__tandem_inline__", False),
                       getattr(value, "__tandem_lowered__", False))


def register():
    """Make every core function callable from Numba-compiled CPU code (idempotent)."""
    if "cpu" in _registered:
        return
    from numba.extending import register_jitable

    for fn, inline, lowered in _core_functions():
        if not lowered:  # the lowered ones are implemented in _lowering
            register_jitable(inline="always" if inline else "never")(fn)
    importlib.import_module(f"{__name__}._lowering")
    _registered.add("cpu")


def register_cuda():
    """Make every core function callable from ``numba.cuda.jit`` code (idempotent).

    numba-cuda keeps typing registries of its own, so the functions are
    registered there too, and ``fma`` and scalar ``np.divide`` get CUDA
    lowerings (:func:`tandem.core._lowering.lower_cuda`).  Needs the
    ``cuda`` extra.
    """
    if "cuda" in _registered:
        return
    register()
    from numba.cuda.extending import register_jitable

    from ._lowering import lower_cuda

    for fn, _, lowered in _core_functions():
        if not lowered:
            register_jitable(fn)
    lower_cuda()
    _registered.add("cuda")


def __getattr__(name):
    for module_name in _MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        if hasattr(module, name):
            register()
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    names = set(globals())
    for module_name in _MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        names.update(n for n in vars(module) if not n.startswith("_"))
    return sorted(names)
