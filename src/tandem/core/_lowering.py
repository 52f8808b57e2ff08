"""Numba implementations of core functions whose Python source Numba cannot compile.

:func:`tandem.core.fmath.fma` and :func:`tandem.core.fmath32.fma32` are exact
rational arithmetic in plain Python; compiled code needs the hardware
instruction.  :func:`tandem.core.register` imports this module instead of
``register_jitable``-ing a function marked ``__tandem_lowered__``.

* CPU: ``llvm.fma.f64`` (``llvm.fma.f32``), which LLVM emits as ``vfmadd``
  on a CPU with FMA (and vectorises in loops), or as a call to a correctly
  rounded ``fma`` otherwise.  LLVM inlines it into the caller.
* CUDA: :mod:`tandem.core._lowering_cuda`.
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from .fmath import fma
from .fmath32 import fma32


@intrinsic
def _llvm_fma(typingctx, a, b, c):
    """``llvm.fma(a, b, c)``: one rounding, for three float64 or three float32."""
    if a not in (types.float64, types.float32) or not a == b == c:
        return None

    def codegen(context, builder, signature, args):
        real = context.get_value_type(a)
        fn = builder.module.declare_intrinsic("llvm.fma", [real], ir.FunctionType(real, [real] * 3))
        return builder.call(fn, args)

    return a(a, a, a), codegen


def _real_operands(a, b, c):
    return all(isinstance(t, (types.Float, types.Integer, types.Boolean)) for t in (a, b, c))


@overload(fma, target="cpu")
def _fma_cpu(a, b, c):
    if _real_operands(a, b, c):
        def impl(a, b, c):
            return _llvm_fma(np.float64(a), np.float64(b), np.float64(c))
        return impl
    return None


@overload(fma32, target="cpu")
def _fma32_cpu(a, b, c):
    if _real_operands(a, b, c):
        def impl(a, b, c):
            return _llvm_fma(np.float32(a), np.float32(b), np.float32(c))
        return impl
    return None
