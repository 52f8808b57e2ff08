"""The location-scale step of a fill whose parameters are arrays, element by element.

A fill with array parameters draws the standard variates ``z`` (``loc -0.0``
and ``scale 1``, which leave every ``z`` as it is, signed zeros included)
and then computes ``fma(z, scale, loc)`` or ``z * scale`` with each
element's own parameters, broadcast as NumPy broadcasts: the values the
fill's kernel computes for scalar parameters, bit for bit.  On the CPU
these are Numba ufuncs over :func:`tandem.core.fmath.fma` and ``fma32``; on
a GPU a CuPy kernel of CUDA's ``fma``, which rounds once as they do.
"""

import functools

import numpy as np


@functools.lru_cache(maxsize=None)
def _host_fma():
    import numba

    from .. import core
    from ..core.fmath import fma
    from ..core.fmath32 import fma32

    core.register()
    digest = core.source_digest()  # in the ufuncs' closures: it keys their disk cache

    @numba.vectorize(["float64(float64, float64, float64)"], cache=True)
    def fma64(z, scale, loc):
        return fma(z, scale, loc) if digest else z  # digest is never 0

    @numba.vectorize(["float32(float32, float32, float32)"], cache=True)
    def fma32_(z, scale, loc):
        return fma32(z, scale, loc) if digest else z

    return {np.dtype(np.float64): fma64, np.dtype(np.float32): fma32_}


@functools.lru_cache(maxsize=None)
def _device_fma():
    import cupy

    return cupy.ElementwiseKernel("T z, T scale, T loc", "T y", "y = fma(z, scale, loc)",
                                  "tandem_fma")


def located(values, scale, loc):
    """``values = fma(values, scale, loc)`` in place (``loc`` None: ``values * scale``).

    ``scale`` and ``loc`` are arrays of ``values``' dtype and module that
    broadcast to its shape.
    """
    if loc is None:
        values *= scale
        return values
    if isinstance(values, np.ndarray):
        _host_fma()[values.dtype](values, scale, loc, out=values)
    else:
        _device_fma()(values, scale, loc, values)
    return values
