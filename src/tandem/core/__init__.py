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
_registered = False


def register():
    """Make every core function callable from Numba-compiled code (idempotent)."""
    global _registered
    if _registered:
        return
    from numba.extending import register_jitable

    for name in _MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if callable(value) and getattr(value, "__module__", None) == module.__name__:
                if getattr(value, "__tandem_lowered__", False):
                    continue  # implemented for Numba in _lowering
                how = "always" if getattr(value, "__tandem_inline__", False) else "never"
                register_jitable(inline=how)(value)
    importlib.import_module(f"{__name__}._lowering")
    _registered = True


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
