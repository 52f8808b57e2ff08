"""Output buffers and index arrays: shapes, dtypes and the checks on ``out=``.

Every check runs before anything is written, so a bad ``out`` is left as it
was.
"""

import numbers

import numpy as np


def shape_of(size):
    """``size`` (None, an int or a tuple of ints) as a shape; None means a scalar."""
    if size is None:
        return None
    dims = (size,) if isinstance(size, (numbers.Integral, np.integer)) else size
    try:
        dims = tuple(dims)
    except TypeError:
        raise TypeError(f"size must be None, an int or a tuple of ints, got {size!r}") from None
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Integral, np.integer)):
            raise TypeError(f"size must be None, an int or a tuple of ints, got {size!r}")
        if d < 0:
            raise ValueError(f"size must be non-negative, got {size!r}")
    return tuple(int(d) for d in dims)


def output(size, out, dtype):
    """The array a fill writes: ``out`` after checks, or a new one of ``size``.

    Returns ``(array, scalar)``: ``scalar`` is True when ``size`` and ``out``
    are both None, and the caller returns ``array[0]``.
    """
    dtype = np.dtype(dtype)
    shape = shape_of(size)
    if out is None:
        return np.empty(1 if shape is None else shape, dtype=dtype), shape is None
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"out must have dtype {dtype}, got {out.dtype}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable, got a read-only array")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if shape is not None and shape != out.shape:
        raise ValueError(f"size {size!r} does not match out.shape {out.shape}")
    return out, False


def index_array(index):
    """``index`` as a flat uint64 array of non-negative integers, and its shape."""
    index = np.asarray(index)
    if index.size == 0 and index.dtype == np.float64:  # [] and the like
        index = index.astype(np.uint64)
    if index.dtype == bool or not np.issubdtype(index.dtype, np.integer):
        raise TypeError(f"index must hold integers, got dtype {index.dtype}")
    if np.issubdtype(index.dtype, np.signedinteger) and index.size and index.min() < 0:
        raise ValueError("index must be non-negative")
    return np.ascontiguousarray(index, dtype=np.uint64).reshape(-1), index.shape
