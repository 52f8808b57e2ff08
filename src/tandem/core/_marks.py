"""A mark for the core functions that Numba inlines into its callers.

Numba compiles each function apart and LLVM does not vectorise a loop whose
body calls one, so the bijections and the small value maps are inlined at
Numba's IR level; the rest stay calls, which keeps compile times short.
"""


def inline(fn):
    """Mark ``fn`` to be inlined into every Numba caller (see :func:`tandem.core.register`)."""
    fn.__tandem_inline__ = True
    return fn


def cuda_lowered(fn):
    """Mark ``fn`` as having its own CUDA implementation in :mod:`tandem.core._lowering_cuda`.

    The Python source stays the definition (and the CPU's code); the CUDA
    version computes the same bits with the GPU's own instructions.
    """
    fn.__tandem_cuda_lowered__ = True
    return fn
