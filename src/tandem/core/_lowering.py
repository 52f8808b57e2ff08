"""Numba implementations of core functions whose Python source Numba cannot compile.

:func:`tandem.core.fmath.fma` is exact rational arithmetic in plain Python;
compiled code needs the hardware instruction.  :func:`tandem.core.register`
imports this module instead of ``register_jitable``-ing a function marked
``__tandem_lowered__``.

* CPU: ``llvm.fma.f64``, which LLVM emits as ``vfmadd`` on a CPU with FMA
  (and vectorises in loops), or as a call to a correctly rounded ``fma``
  otherwise.  LLVM inlines it into the caller.
* CUDA (:func:`lower_cuda`, called by :func:`tandem.core.register_cuda`):
  ``numba.cuda.fma`` (PTX ``fma.rn.f64``), and ``np.divide`` of two scalars
  as ``/``, which numba-cuda does not type otherwise.  ``log64`` divides with
  ``np.divide`` because on the CPU ``/`` carries a zero-divisor branch that
  stops a calling loop from vectorising.
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from .fmath import fma


@intrinsic
def _llvm_fma_f64(typingctx, a, b, c):
    """``llvm.fma.f64(a, b, c)``: one rounding, for three float64."""
    if not all(t == types.float64 for t in (a, b, c)):
        return None
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        f64 = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [f64], ir.FunctionType(f64, [f64] * 3))
        return builder.call(fn, args)

    return sig, codegen


@overload(fma, target="cpu")
def _fma_cpu(a, b, c):
    if all(isinstance(t, (types.Float, types.Integer, types.Boolean)) for t in (a, b, c)):
        def impl(a, b, c):
            return _llvm_fma_f64(np.float64(a), np.float64(b), np.float64(c))
        return impl
    return None


def lower_cuda():
    """Register the CUDA implementations of ``fma`` and scalar ``np.divide``."""
    from numba import cuda
    from numba.cuda.extending import overload as cuda_overload

    @cuda_overload(fma, target="cuda")
    def _fma_cuda(a, b, c):
        if all(isinstance(t, (types.Float, types.Integer, types.Boolean)) for t in (a, b, c)):
            def impl(a, b, c):
                return cuda.fma(np.float64(a), np.float64(b), np.float64(c))
            return impl
        return None

    @cuda_overload(np.divide, target="cuda")
    def _divide_cuda(a, b):
        if isinstance(a, types.Float) and isinstance(b, types.Float):
            def impl(a, b):
                return a / b
            return impl
        return None
