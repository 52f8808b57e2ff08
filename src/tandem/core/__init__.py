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
import importlib.util

_MODULES = ("bijections", "derivation", "addressing", "uniform", "fmath", "fmath32", "ziggurat",
            "normal", "choice", "inversion", "special", "gamma", "poisson", "binomial",
            "beta", "vonmises", "two_parts", "tandem8x32", "tandem_draws")
_registered = set()


def _core_functions():
    """Every core function with its marks: (function, inline, lowered)."""
    for name in _MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if callable(value) and getattr(value, "__module__", None) == module.__name__:
                yield (value, getattr(value, "__tandem_inline__", False),
                       getattr(value, "__tandem_lowered__", False))


def source_digest(*files) -> int:
    """A 63-bit digest of the source of every module of this package and of ``files``.

    Numba keys a cached kernel on its own file and the contents of its
    closure, not on the functions it calls: a kernel that captures this
    digest is compiled again when any of them changes, instead of loading
    code built from an older source.
    """
    import hashlib
    import pathlib

    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(pathlib.Path(__file__).parent.glob("*.py")) + [
            pathlib.Path(f) for f in files]:
        digest.update(path.read_bytes())
    return int.from_bytes(digest.digest(), "little") >> 1


def jitable_cpu(fn, inline=False):
    """Make ``fn`` callable from Numba-compiled CPU code; returns ``fn``.

    Numba's ``register_jitable`` registers for every target, and numba-cuda
    would then take the CPU's IR-inlined version (and fail to type it);
    this registers for the CPU target alone.
    """
    from numba.extending import overload

    def implementation(*args, **kwargs):
        return fn

    overload(fn, target="cpu", strict=False,
             inline="always" if inline else "never")(implementation)
    return fn


def registrars(functions, inline=()):
    """``(register, register_cuda)`` for a module of plain-Python functions that
    Numba-compiled code calls: ``register()`` makes ``functions`` (and ``inline``,
    inlined at Numba's IR level) callable from CPU code, ``register_cuda()``, called
    on the module's copy in :mod:`tandem._twin`, from ``numba.cuda.jit`` code (a no-op
    under the simulator, which runs the Python functions).  Both register the core
    functions first and are idempotent."""
    done = set()

    def register_module():
        register()
        if "cpu" not in done:
            for fn in inline:
                jitable_cpu(fn, inline=True)
            for fn in functions:
                jitable_cpu(fn)
            done.add("cpu")

    def register_module_cuda():
        from numba import config

        if "cuda" in done or config.ENABLE_CUDASIM:
            return
        from numba.cuda.extending import register_jitable

        register_cuda()
        for fn in tuple(inline) + tuple(functions):
            register_jitable(fn)
        done.add("cuda")

    return register_module, register_module_cuda


def register():
    """Make every core function callable from Numba-compiled CPU code (idempotent)."""
    if "cpu" in _registered:
        return
    for fn, inline, lowered in _core_functions():
        if not lowered:  # the lowered ones are implemented in _lowering
            jitable_cpu(fn, inline)
    importlib.import_module(f"{__name__}._lowering")
    _registered.add("cpu")


def register_cuda():
    """Make every core function callable from ``numba.cuda.jit`` code (idempotent).

    numba-cuda keeps typing registries of its own, so the functions are
    registered there; ``fma``, scalar ``np.divide`` and the functions marked
    ``cuda_lowered`` get CUDA implementations
    (:func:`tandem.core._lowering_cuda.lower_cuda`).  Needs the ``cuda`` extra.

    Call it on :func:`for_cuda`'s copy, not on this package, in a process
    that also compiles for the CPU (see :mod:`tandem._twin`).
    """
    if "cuda" in _registered:
        return
    from numba import config

    if config.ENABLE_CUDASIM:  # the simulator runs the Python functions
        _registered.add("cuda")
        return
    from numba.cuda.extending import register_jitable

    from ._lowering_cuda import lower_cuda

    for fn, _, lowered in _core_functions():
        if not (lowered or getattr(fn, "__tandem_cuda_lowered__", False)):
            register_jitable(fn)
    lower_cuda()
    _registered.add("cuda")


def for_cuda():
    """The core functions to call from your own ``numba.cuda.jit`` code.

    Returns a second copy of this package whose functions are registered with
    numba-cuda alone (the CPU backend's registrations of the functions here
    would break their CUDA compilation; see :mod:`tandem._twin`)::

        cuda_core = tandem.core.for_cuda()

        @cuda.jit
        def kernel(out, k0, k1, lane):
            i = cuda.grid(1)
            x0, x1, x2, x3 = cuda_core.philox_block_at(k0, k1, 0, 0, lane, i)
    """
    from .. import _twin

    twin = _twin.module("core")
    twin.register_cuda()
    return twin


# The copy that tandem.core.for_cuda() returns registers for CUDA alone.
_FOR_CUDA = __name__.split(".")[1] == "_cuda"


def __getattr__(name):
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:  # a submodule
        return importlib.import_module(f"{__name__}.{name}")
    for module_name in _MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        if hasattr(module, name):
            register_cuda() if _FOR_CUDA else register()
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    names = set(globals())
    for module_name in _MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        names.update(n for n in vars(module) if not n.startswith("_"))
    return sorted(names)
