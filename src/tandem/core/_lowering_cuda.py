"""CUDA implementations of core functions (numba-cuda), called by
:func:`tandem.core.register_cuda`.

* ``fma`` and ``fma32``: ``numba.cuda.fma`` (PTX ``fma.rn.f64``, ``fma.rn.f32``);
* ``product`` and ``product32``: PTX ``mul.rn.f64`` and ``mul.rn.f32``, which
  the compiler never contracts with a later addition;
* ``np.divide`` of two scalars as ``/``, which numba-cuda does not type
  otherwise (``log64`` divides with ``np.divide`` because on the CPU ``/``
  carries a zero-divisor branch that stops a calling loop from vectorising);
* the word products ``mulhilo32`` and ``mulhilo64`` with the GPU's
  high-word multiplies, where the Python source multiplies in 64 bits.

Each computes the same bits as the Python definition.
"""

import numpy as np
from llvmlite import ir
from numba import types

from .fmath import fma, product
from .fmath32 import fma32, product32


def lower_cuda():
    """Register the CUDA implementations of ``fma``, ``fma32``, ``product``,
    ``product32``, scalar ``np.divide``, ``mulhilo32`` and ``mulhilo64``."""
    from numba import cuda
    from numba.cuda import libdevice
    from numba.cuda.extending import intrinsic
    from numba.cuda.extending import overload as cuda_overload

    @intrinsic
    def mul_lo32(typingctx, a, b):
        """The low word of the product of two uint32: ``mul.lo.u32``."""
        if a != types.uint32 or b != types.uint32:
            return None

        def codegen(context, builder, signature, args):
            # Inline PTX: as plain IR, LLVM widens the product back to 64 bits.
            word = ir.IntType(32)
            asm = ir.InlineAsm(ir.FunctionType(word, [word, word]), "mul.lo.u32 $0, $1, $2;",
                               "=r,r,r")
            return builder.call(asm, args)

        return types.uint32(types.uint32, types.uint32), codegen

    def rounded_multiply(float_type, ptx, constraint, numba_type):
        @intrinsic
        def multiply(typingctx, a, b):
            """``a * b`` by one PTX ``mul.rn``, which no pass contracts into an fma."""
            if a != numba_type or b != numba_type:
                return None

            def codegen(context, builder, signature, args):
                signature_ir = ir.FunctionType(float_type, [float_type, float_type])
                constraints = ",".join([f"={constraint}", constraint, constraint])
                asm = ir.InlineAsm(signature_ir, f"{ptx} $0, $1, $2;", constraints)
                return builder.call(asm, args)

            return numba_type(numba_type, numba_type), codegen

        return multiply

    mul_rn64 = rounded_multiply(ir.DoubleType(), "mul.rn.f64", "d", types.float64)
    mul_rn32 = rounded_multiply(ir.FloatType(), "mul.rn.f32", "f", types.float32)

    @cuda_overload(product, target="cuda")
    def _product_cuda(a, b):
        def impl(a, b):
            return mul_rn64(np.float64(a), np.float64(b))
        return impl

    @cuda_overload(product32, target="cuda")
    def _product32_cuda(a, b):
        def impl(a, b):
            return mul_rn32(np.float32(a), np.float32(b))
        return impl

    from .bijections import mulhilo32
    from .uniform import mulhilo64

    @cuda_overload(mulhilo32, target="cuda")
    def _mulhilo32_cuda(a, b):
        def impl(a, b):
            a32, b32 = np.uint32(a), np.uint32(b)
            low = mul_lo32(a32, b32)
            # umulhi is typed int32 -> int32: through uint32, not sign-extended.
            high = np.uint32(libdevice.umulhi(a32, b32))
            return np.uint64(high), np.uint64(low)
        return impl

    @cuda_overload(mulhilo64, target="cuda")
    def _mulhilo64_cuda(a, b):
        def impl(a, b):
            # umul64hi is typed int64: the same bits as uint64.
            return np.uint64(libdevice.umul64hi(a, b)), a * b
        return impl

    def overload_fma(fn, real):
        @cuda_overload(fn, target="cuda")
        def _fma_cuda(a, b, c):
            if all(isinstance(t, (types.Float, types.Integer, types.Boolean)) for t in (a, b, c)):
                def impl(a, b, c):
                    return cuda.fma(real(a), real(b), real(c))
                return impl
            return None

    overload_fma(fma, np.float64)
    overload_fma(fma32, np.float32)

    @cuda_overload(np.divide, target="cuda")
    def _divide_cuda(a, b):
        if isinstance(a, types.Float) and isinstance(b, types.Float):
            def impl(a, b):
                return a / b
            return impl
        return None
