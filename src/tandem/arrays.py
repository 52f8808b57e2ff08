"""Devices and array libraries: output buffers, index arrays and their checks.

On the CPU, arrays are NumPy arrays.  On a CUDA GPU, a fill allocates a CuPy
array and writes into any array with ``__cuda_array_interface__`` (CuPy,
PyTorch, Numba); a JAX array cannot be written, so a fill given one returns a
new JAX array through DLPack.

Every check runs before anything is written, so a bad ``out`` is left as it
was.
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np

DEVICES = ("cpu", "cuda")


#: The most bytes one array may hold (NumPy's own bound, ``2**63 - 1``).
MAX_BYTES = 2**63 - 1


def shape_of(size):
    """``size`` (None, an int or a tuple of ints) as a shape; None means a scalar.

    Refuses, naming ``size``, a non-integer, a negative dimension, and a
    shape of more elements than an array can index.
    """
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
            raise ValueError(f"size must be non-negative, got {size!r:.60}")
    dims = tuple(int(d) for d in dims)
    if math.prod(dims) > MAX_BYTES:
        raise ValueError(f"size {size!r:.60} has more elements than an array can hold "
                         "(2**63 - 1)")
    return dims


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
        raise ImportError("device='cuda' needs CuPy: pip install 'tandem-streams[cuda]'") from None
    return cupy


def module(device):
    """The array module of ``device``: NumPy for the CPU, CuPy for ``"cuda"``."""
    return cupy() if device == "cuda" else np


def module_of(x):
    """The array module of the array ``x``: NumPy or CuPy."""
    return np if isinstance(x, np.ndarray) else cupy()


def to_host(x, name="x"):
    """``x`` as a NumPy array, copied from the GPU if it lives there.

    A masked array is refused, naming ``name``: its mask would be dropped.
    """
    if device_of(x) == "cuda":
        return cupy().asnumpy(cupy().asarray(x))
    refuse_masked(x, name)
    return np.asarray(x)


def refuse_masked(x, name):
    """A ``TypeError`` naming ``name`` if ``x`` is a masked array."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{name} must not be a masked array: fill or compress it first")


@dataclass(frozen=True)
class Output:
    """Where a fill writes: ``flat`` (1-D, what the backend fills) and what the
    caller gets back (:meth:`result`).

    ``into`` is the caller's Fortran-ordered ``out``: the fill writes a
    C-ordered array first, and :meth:`result` copies it over, so that
    ``out`` holds what ``size=out.shape`` would return.
    """

    array: object
    flat: object
    scalar: bool
    device: str
    jax: bool = False
    into: object = None

    def result(self):
        """The value of the fill, after the backend wrote ``flat``."""
        if self.into is not None:
            self.into[...] = self.array
            return self.into
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


#: Host arrays a fill writes into: a plain ndarray, or a memory map (which
#: reshapes like one).  Other subclasses are refused: ``np.matrix`` stays
#: 2-D under ``reshape(-1)`` and a masked array has a mask no fill writes.
_PLAIN_HOST_ARRAYS = (np.ndarray, np.memmap)


def _check_host_kind(out):
    """A ``TypeError`` naming ``out`` unless it is a plain ndarray or memory map."""
    if type(out) not in _PLAIN_HOST_ARRAYS:
        raise TypeError("out must be a NumPy or CUDA array (a plain numpy.ndarray or "
                        "numpy.memmap, not another subclass), got "
                        f"{type(out).__module__}.{type(out).__name__}")


def out_shape(out):
    """The shape of a fill's ``out``, once it is known to be an array a fill can
    write (a ``TypeError`` naming ``out`` otherwise); :func:`output` checks the rest."""
    if device_of(out) == "cuda":
        return tuple(out.shape) if _is_jax(out) else tuple(
            out.__cuda_array_interface__["shape"])
    _check_host_kind(out)
    return out.shape


def _check_host_out(out, dtype, shape, size):
    """The checks of NumPy's own ``out=``, on plain ndarrays and memory maps."""
    _check_host_kind(out)
    if out.dtype != dtype:
        raise TypeError(f"out must have dtype {dtype}, got {out.dtype}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable, got a read-only array")
    if not out.flags.aligned:
        raise ValueError("out must be aligned")
    if not (out.flags.c_contiguous or out.flags.f_contiguous):
        raise ValueError("out must be C- or Fortran-contiguous")
    if shape is not None and shape != out.shape:
        raise ValueError(f"size {size!r} does not match out.shape {out.shape}")


def _empty(xp, shape, dtype, size):
    """A new array, or a MemoryError that names ``size``."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > MAX_BYTES:
        raise ValueError(f"size {size!r:.60} of {dtype} needs more than 2**63 - 1 bytes")
    try:
        return xp.empty(shape, dtype=dtype)
    except MemoryError:
        raise MemoryError(f"size {size!r}: cannot allocate {nbytes} bytes of {dtype}") from None


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


def output(size, out, dtype, device=None, check_count=None):
    """The :class:`Output` a fill writes: ``out`` after checks, or a new array of ``size``.

    ``device`` None means the device of ``out`` (the CPU without one).  When
    ``size`` and ``out`` are both None the result is a scalar (on the CPU) or
    a 0-d array (on the GPU).  ``check_count``, if given, is called with the
    number of elements before anything is allocated.  Every check runs before
    anything is written.
    """
    dtype = np.dtype(dtype)
    shape = shape_of(size)
    check_device(device)
    if out is None:
        device = device or "cpu"
        shape_made = (1,) if shape is None else shape
        if check_count is not None:
            check_count(math.prod(shape_made))
        array = _empty(module(device), shape_made, dtype, size)
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
            if check_count is not None:
                check_count(math.prod(out.shape))
            array = cupy().empty(out.shape, dtype=dtype)
            return Output(array, flat(array), False, "cuda", jax=True)
        view = _cuda_view(out, dtype, shape, size)
        if check_count is not None:
            check_count(view.size)
        return Output(out, view, False, "cuda")
    _check_host_out(out, dtype, shape, size)
    if check_count is not None:
        check_count(out.size)
    if out.flags.c_contiguous:
        return Output(out, out.reshape(-1), False, "cpu")
    staging = np.empty(out.shape, dtype=dtype)
    return Output(staging, staging.reshape(-1), False, "cpu", into=out)


def index_array(index, device=None):
    """``index`` as a flat uint64 array of non-negative integers on ``device``
    (None: where ``index`` is), its shape and the device."""
    device = check_device(device) or device_of(index)
    refuse_masked(index, "index")
    xp = module(device)
    index = xp.asarray(index)
    if index.size == 0 and index.dtype == np.float64:  # [] and the like
        index = index.astype(np.uint64)
    if index.dtype == bool or not np.issubdtype(index.dtype, np.integer):
        raise TypeError(f"index must hold integers, got dtype {index.dtype}")
    if np.issubdtype(index.dtype, np.signedinteger) and index.size and int(index.min()) < 0:
        raise ValueError("index must be non-negative")
    return xp.ascontiguousarray(index, dtype=np.uint64).reshape(-1), index.shape, device
