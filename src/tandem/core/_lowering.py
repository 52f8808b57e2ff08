"""Numba implementations of core functions whose Python source Numba cannot compile.

:func:`tandem.core.fmath.fma` is exact rational arithmetic in plain Python;
compiled code needs the hardware instruction.  :func:`tandem.core.register`
imports this module instead of ``register_jitable``-ing a function marked
``__tandem_lowered__``.

* CPU: ``llvm.fma.f64``, which LLVM emits as ``vfmadd`` on a CPU with FMA
  (and vectorises in loops), or as a call to a correctly rounded ``fma``
  otherwise.  LLVM inlines it into the caller.
* CUDA: :mod:`tandem.core._lowering_cuda`.
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
