"""Devices and array libraries: output buffers, index arrays and their checks.

On the CPU, arrays are NumPy arrays.  On a CUDA GPU, a fill allocates a CuPy
array and writes into any array with ``__cuda_array_interface__`` (CuPy,
PyTorch, Numba); a JAX array cannot be written, so a fill given one returns a
new JAX array through DLPack.

Every check runs before anything is written, so a bad ``out`` is left as it
was.
"""

import numbers
from dataclasses import dataclass

import numpy as np

DEVICES = ("cpu", "cuda")


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


def check_device(device):
    """``device`` if it is None, ``"cpu"`` or ``"cuda"``; else a ValueError."""
    if device is not None and device not in DEVICES:
        raise ValueError(f"device must be 'cpu', 'cuda' or None, got {device!r}")
    return device


def _is_jax(x):
    return type(x).__module__.partition(".")[0] in ("jax", "jaxlib")


def device_of(x):
    """``"cuda"`` for an array in GPU memory, ``"cpu"`` for anything else."""
    if isinstance(x, np.ndarray):
        return "cpu"
    if _is_jax(x):
        return "cuda" if any(d.platform == "gpu" for d in x.devices()) else "cpu"
    return "cuda" if hasattr(x, "__cuda_array_interface__") else "cpu"


def cupy():
    """The CuPy module, or an ImportError that says how to get it."""
    try:
        import cupy
    except ImportError:
        raise ImportError("device='cuda' needs CuPy: pip install 'tandem-rng[cuda]'") from None
    return cupy


def module(device):
    """The array module of ``device``: NumPy for the CPU, CuPy for ``"cuda"``."""
    return cupy() if device == "cuda" else np


def module_of(x):
    """The array module of the array ``x``: NumPy or CuPy."""
    return np if isinstance(x, np.ndarray) else cupy()


def to_host(x):
    """``x`` as a NumPy array, copied from the GPU if it lives there."""
    if device_of(x) == "cuda":
        return cupy().asnumpy(cupy().asarray(x))
    return np.asarray(x)


@dataclass(frozen=True)
class Output:
    """Where a fill writes: ``flat`` (1-D, what the backend fills) and what the
    caller returns (``result()``)."""

    array: object
    flat: object
    scalar: bool
    device: str
    jax: bool = False

    def result(self):
        if self.jax:
            import jax.dlpack

            return jax.dlpack.from_dlpack(self.array)
        return self.array[0] if self.scalar else self.array


def _cuda_view(out, dtype, shape, size):
    """Checks on a GPU ``out`` through its ``__cuda_array_interface__``; a flat view."""
    interface = out.__cuda_array_interface__
    out_dtype = np.dtype(interface["typestr"])
    out_shape = tuple(interface["shape"])
    if out_dtype != dtype:
        raise TypeError(f"out must have dtype {dtype}, got {out_dtype}")
    if interface["data"][1]:
        raise ValueError("out must be writeable, got a read-only array")
    strides = interface.get("strides")
    if strides is not None:
        expected, step = [], dtype.itemsize
        for d in reversed(out_shape):
            expected.insert(0, step)
            step *= d
        if any(d > 1 and s != e for d, s, e in zip(out_shape, strides, expected)):
            raise ValueError("out must be C-contiguous")
    if shape is not None and shape != out_shape:
        raise ValueError(f"size {size!r} does not match out.shape {out_shape}")
    return flat(out)


def flat(x):
    """A 1-D view of the C-contiguous ``x``: NumPy for NumPy, else a Numba
    device array that keeps the stream ``x`` was exported with.

    The view does not synchronise that stream: a kernel given it launches on
    it (``view.stream``), after the work that produced ``x``.
    """
    if isinstance(x, np.ndarray):
        return x.reshape(-1)
    from numba import cuda

    view = cuda.as_cuda_array(x, sync=False)
    return view.reshape(view.size)


def output(size, out, dtype, device=None):
    """The :class:`Output` a fill writes: ``out`` after checks, or a new array of ``size``.

    ``device`` None means the device of ``out`` (the CPU without one).  When
    ``size`` and ``out`` are both None the result is a scalar (on the CPU) or
    a 0-d array (on the GPU).
    """
    dtype = np.dtype(dtype)
    shape = shape_of(size)
    check_device(device)
    if out is None:
        device = device or "cpu"
        array = module(device).empty(1 if shape is None else shape, dtype=dtype)
        return Output(array, flat(array), shape is None, device)
    out_device = device_of(out)
    if device is not None and device != out_device:
        raise ValueError(f"out is on the {out_device} but device={device!r}")
    if out_device == "cuda":
        if _is_jax(out):  # immutable: fill a new array of its shape and dtype
            if out.dtype != dtype:
                raise TypeError(f"out must have dtype {dtype}, got {out.dtype}")
            if shape is not None and shape != out.shape:
                raise ValueError(f"size {size!r} does not match out.shape {out.shape}")
            array = cupy().empty(out.shape, dtype=dtype)
            return Output(array, flat(array), False, "cuda", jax=True)
        return Output(out, _cuda_view(out, dtype, shape, size), False, "cuda")
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a NumPy or CUDA array, got {type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"out must have dtype {dtype}, got {out.dtype}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable, got a read-only array")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if shape is not None and shape != out.shape:
        raise ValueError(f"size {size!r} does not match out.shape {out.shape}")
    return Output(out, out.reshape(-1), False, "cpu")


def index_array(index, device=None):
    """``index`` as a flat uint64 array of non-negative integers on ``device``
    (None: where ``index`` is), its shape and the device."""
    device = check_device(device) or device_of(index)
    xp = module(device)
    index = xp.asarray(index)
    if index.size == 0 and index.dtype == np.float64:  # [] and the like
        index = index.astype(np.uint64)
    if index.dtype == bool or not np.issubdtype(index.dtype, np.integer):
        raise TypeError(f"index must hold integers, got dtype {index.dtype}")
    if np.issubdtype(index.dtype, np.signedinteger) and index.size and int(index.min()) < 0:
        raise ValueError("index must be non-negative")
    return xp.ascontiguousarray(index, dtype=np.uint64).reshape(-1), index.shape, device
