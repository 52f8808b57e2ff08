"""Fills on a CUDA GPU: ``numba.cuda.jit`` kernels over ``tandem.core``.

The kernels compute the same elements as the CPU fills, from the same value
maps (:mod:`tandem.backends.maps`), so every bit agrees.  Layout:

* One thread computes one block of the stream (four words: four 32-bit
  elements or two 64-bit ones) and writes them with one 16-byte store
  (two for 8-byte elements of one-word kinds, one narrower store for small
  dtypes), so that a warp writes 512 contiguous bytes.
* A fill that starts mid-block, or an ``out`` whose first element is not
  16-byte aligned, shifts by whole elements through shared memory: each
  CUDA block computes one stream block more than it stores (the halo), and
  thread ``t`` stores the aligned group that straddles its block and the
  next.  The few elements before the first aligned group and after the last
  are computed alone.
* A rejected bounded integer continues in the thread that met it.  A
  ziggurat miss is listed and mended by a second kernel (``Kind.deferred``).
* A kernel runs on the stream that its output array was exported with
  (``__cuda_array_interface__``), so it follows the work that made the array
  without a host synchronisation; a CuPy array made by a fill is on CuPy's
  current stream.

``threads`` is the number of threads per CUDA block (a multiple of 32, at
most ``MAX_THREADS``); it never changes a bit.

Kernels compile on first use.  Under ``NUMBA_ENABLE_CUDASIM=1`` the same
kernels run in Numba's CUDA simulator on NumPy arrays, which is how CI tests
their logic.
"""

import functools
import math
import weakref

import numba
import numpy as np
from numba import config, cuda

from .. import _twin

U64 = np.uint64
_ZERO = U64(0)
DEFAULT_THREADS = 256
# Every kernel launches with blocks of up to this many threads: the mend and
# addressed kernels are compiled with it as their launch bound, and the
# fills use fewer than 128 registers (a launch bound on the fills cost them
# up to a quarter of their speed on the H200).
MAX_THREADS = 512
SIMULATED = bool(config.ENABLE_CUDASIM)


# This backend compiles its own copy of core, the kinds and the maps (see tandem._twin).
core = _twin.module("core")
addressing = _twin.module("core.addressing")
generators = _twin.module("core.generators")
_beta = _twin.module("core.beta")
kinds = _twin.module("kinds")
maps = _twin.module("backends.maps")
join64 = addressing.join64


def _register():
    if SIMULATED:  # the simulator runs the Python functions themselves
        return
    from numba.cuda.extending import register_jitable

    core.register_cuda()
    for fn in kinds.functions():
        register_jitable(fn)


_register()


# -- stores ------------------------------------------------------------------

def store(out, i, value):
    """``out[i] = value``, wrapping integers to ``out.dtype`` as compiled code does.

    (Plain NumPy refuses to store, say, a uint64 above ``2**31`` in an int32
    array; this is what the simulator runs.)
    """
    out[i] = np.asarray(value).astype(out.dtype)


def store_group(out, e, values):
    """Write the tuple ``values`` to ``out[e], out[e + 1], ...``.

    Compiled for a GPU this is one 16-byte store per 16 bytes of values
    (an 8- or 4-byte store for fewer), so ``out[e]`` must be aligned to
    ``min(16, bytes of values)``.
    """
    for j in range(len(values)):
        store(out, e + j, values[j])


def _lower_store_group():
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic, overload
    from numba.np import numpy_support

    @intrinsic
    def vector_store(typingctx, out, e, values):
        if not (isinstance(out, types.Array) and isinstance(values, types.UniTuple)):
            return None
        dtype, count = out.dtype, values.count
        itemsize = numpy_support.as_dtype(dtype).itemsize
        per_store = max(1, min(count, 16 // itemsize))

        def codegen(context, builder, signature, args):
            array = context.make_array(signature.args[0])(context, builder, args[0])
            index = context.cast(builder, args[1], signature.args[1], types.intp)
            base = builder.gep(array.data, [index])
            element_type = context.get_data_type(dtype)
            for first in range(0, count, per_store):
                vector_type = ir.VectorType(element_type, per_store)
                vector = ir.Constant(vector_type, ir.Undefined)
                for j in range(per_store):
                    value = builder.extract_value(args[2], first + j)
                    value = context.cast(builder, value, values.dtype, dtype)
                    value = context.get_value_as_data(builder, dtype, value)
                    vector = builder.insert_element(vector, value, ir.Constant(ir.IntType(32), j))
                pointer = builder.gep(base, [ir.Constant(ir.IntType(64), first)])
                pointer = builder.bitcast(pointer, vector_type.as_pointer())
                builder.store(vector, pointer, align=per_store * itemsize)
            return context.get_dummy_value()

        return types.none(out, e, values), codegen

    @overload(store, target="cuda")
    def _store(out, i, value):
        def impl(out, i, value):
            out[i] = value
        return impl

    @overload(store_group, target="cuda")
    def _store_group(out, e, values):
        def impl(out, e, values):
            vector_store(out, e, values)
        return impl


if not SIMULATED:
    _lower_store_group()


# -- kernels -----------------------------------------------------------------------
# A *resolver* gives a rejected element: ``(generator, r0..r3, w, lo, hi,
# params, table, misses, start, n) -> value``.  Kinds that reject often
# (integers) retry in place; the ziggurats' rare misses are *deferred*
# (``Kind.deferred``): the fill writes NaN and lists the element in
# ``misses``, and a second kernel mends the list, so that the fill kernel
# carries no miss code and no warp waits on one lane's miss.  ``misses``
# holds an overflow flag, one count per block of the fill's grid, then one
# segment per block.
#
# A kind's ``shared_words`` of its table (the ziggurats' layers) are read at a
# random layer per element; from shared memory a warp's 32 reads take a few
# bank conflicts, where the L1 cache serves one line per cycle.  Each block
# copies them once.

# Misses a block of a deferred fill lists in shared memory.  A persistent
# fill drains the list to the global one every DRAIN_ROUNDS rounds of the
# block's threads once it is half full (a round of 256 threads of a
# one-word kind expects 15 misses of the f32 normal, 23 of the exponential);
# a miss that finds the list full goes straight to the global list, which
# costs a global atomic and a division.  Fixed when the kernels are made.
SHARED_MISSES = 1024
DRAIN_ROUNDS = 4
# Registers a deferred fill may use: unbounded, the f32 normal's took 84,
# which left room for 2 blocks of 256 threads a multiprocessor; at 64 it
# filled 1.12 rather than 0.97 TB/s on the H200 (48: 1.07, 32: 0.95;
# docs/performance.md).
DEFERRED_FILL_REGISTERS = 64


def _resolver(width, retry, deferred, dtype):
    if deferred:
        # in the output's type, no conversions in the fill (integer counts: 0)
        mark = dtype.type(np.nan if dtype.kind == "f" else 0)
        def resolve(generator, r0, r1, r2, r3, w, lo, hi, params, table, misses, start, n):
            i = (w - start) // U64(width)  # wraps to >= n for a word before the fill
            if i < n:
                # The block's list in shared memory first: its returning
                # atomic stalls the warp less than a global one (the fill
                # took 501 rather than 539 µs a GiB; docs/performance.md).
                # A 32-bit counter: a 64-bit atomic add on shared memory
                # is not one instruction.
                count, local, listed, capacity = misses
                slot = cuda.atomic.add(count, 0, np.uint32(1))
                if slot < capacity:
                    local[1 + slot] = i
                else:
                    _list_miss(listed, i)
            return mark
    else:
        def resolve(generator, r0, r1, r2, r3, w, lo, hi, params, table, misses, start, n):
            return retry(generator, r0, r1, r2, r3, w, lo, hi, params, table)

    return maps.named(f"resolve_{retry.__name__}_{int(deferred)}_{dtype.name}", resolve)


def _segment(listed):
    """``(room, first)``: the room of each block's segment of the miss list
    ``listed``, and where this block's starts."""
    blocks = cuda.gridDim.x
    room = (listed.size - 1 - blocks) // blocks
    return room, 1 + blocks + cuda.blockIdx.x * room


def _list_miss(listed, i):
    """Append element ``i`` to this block's segment of the global miss list."""
    room, first = _segment(listed)
    slot = cuda.atomic.add(listed, 1 + cuda.blockIdx.x, U64(1))
    if slot < room:
        listed[first + slot] = i
    else:
        listed[0] = U64(1)  # overflow: mend scans for NaN marks


def _flush_misses(count, local, listed, capacity):
    """Move the block's shared miss list (``count[0]`` entries at ``local[1:]``)
    to its global segment; every thread of the block calls this."""
    cuda.syncthreads()
    listed_here = np.int64(min(count[0], np.uint32(capacity)))
    if cuda.threadIdx.x == 0:
        local[0] = cuda.atomic.add(listed, 1 + cuda.blockIdx.x, U64(listed_here))
    cuda.syncthreads()
    room, first = _segment(listed)
    base = np.int64(local[0])
    for j in range(cuda.threadIdx.x, listed_here, cuda.blockDim.x):
        if base + j < room:
            listed[first + base + j] = local[1 + j]
        else:
            listed[0] = U64(1)


def _drain_misses(count, local, listed, capacity):
    """Between rounds of a persistent deferred fill (every thread of the block
    calls this): move the block's shared miss list to the global one once it
    is more than half full, so that the list in shared memory rarely fills
    and few misses take the slow global path (``_list_miss``)."""
    cuda.syncthreads()
    listed_here = count[0]
    cuda.syncthreads()  # every thread has read the count before any goes on to add to it
    if listed_here > np.uint32(capacity // 2):
        _flush_misses(count, local, listed, capacity)
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            count[0] = np.uint32(0)
        cuda.syncthreads()


def _block_values(width, value_map, resolve):
    """``(generator, x0..x3, b, params, table, r0..r3, misses, start, n) -> values``
    of stream block ``b``: four values for one-word kinds, two for two-word kinds, one
    for four-word kinds."""
    if width == 4:
        def values(generator, x0, x1, x2, x3, b, params, table, r0, r1, r2, r3, misses, start,
                   n):
            lo, hi = join64(x0, x1), join64(x2, x3)
            v0, a0 = value_map(lo, hi, params, table)
            if not a0:
                v0 = resolve(generator, r0, r1, r2, r3, b << U64(2), lo, hi, params, table,
                             misses, start, n)
            return (v0,)
    elif width == 1:
        def values(generator, x0, x1, x2, x3, b, params, table, r0, r1, r2, r3, misses, start,
                   n):
            v0, v1, a0, a1 = value_map(x0, x1, params, table)
            v2, v3, a2, a3 = value_map(x2, x3, params, table)
            w = b << U64(2)
            if not a0:
                v0 = resolve(generator, r0, r1, r2, r3, w, x0, _ZERO, params, table, misses,
                             start, n)
            if not a1:
                v1 = resolve(generator, r0, r1, r2, r3, w + U64(1), x1, _ZERO, params, table,
                             misses, start, n)
            if not a2:
                v2 = resolve(generator, r0, r1, r2, r3, w + U64(2), x2, _ZERO, params, table,
                             misses, start, n)
            if not a3:
                v3 = resolve(generator, r0, r1, r2, r3, w + U64(3), x3, _ZERO, params, table,
                             misses, start, n)
            return v0, v1, v2, v3
    else:
        def values(generator, x0, x1, x2, x3, b, params, table, r0, r1, r2, r3, misses, start,
                   n):
            v0, a0 = value_map(x0, x1, params, table)
            v1, a1 = value_map(x2, x3, params, table)
            w = b << U64(2)
            if not a0:
                v0 = resolve(generator, r0, r1, r2, r3, w, x0, x1, params, table, misses,
                             start, n)
            if not a1:
                v1 = resolve(generator, r0, r1, r2, r3, w + U64(2), x2, x3, params, table,
                             misses, start, n)
            return v0, v1

    return maps.named(f"block_values_{value_map.__name__}_{resolve.__name__}", values)


def _kernel(**options):
    """``cuda.jit`` with ``options`` (which the simulator does not take)."""
    return cuda.jit if SIMULATED else cuda.jit(**options)


def _jitable(fn):
    if SIMULATED:
        return fn
    from numba.cuda.extending import register_jitable

    return register_jitable(fn)


for _fn in (_segment, _list_miss, _flush_misses, _drain_misses):
    _jitable(_fn)


def _make_kernels(width, functions, block_at, generator, dtype, deferred, shared_words,
                  persistent):
    """The fill, mend and addressed kernels of one kind, generator and output dtype.

    A ``deferred`` fill lists its misses in shared memory (``SHARED_MISSES``
    a block; more spill to the global list) and moves them to the global
    list at its end.  With ``shared_words`` the fill copies that many words
    of ``table`` to shared memory first.  A ``persistent`` fill has a grid
    that strides over the work; otherwise each thread takes one group.
    """
    per_block = 4 // width
    capacity = SHARED_MISSES if deferred else 0
    local_size = 1 + max(capacity, 1)  # [base, entries]: see _flush_misses
    value_map, retry, draw, element = functions
    resolve = _jitable(_resolver(width, retry, deferred, dtype))
    block_values = _jitable(_block_values(width, value_map, resolve))
    shared_type = numba.from_dtype(dtype)

    def direct_group(out, g, first, k0, k1, k2, k3, lane, params, table, r0, r1, r2, r3,
                     misses, start, n, head):
        """Group ``g`` when groups are stream blocks (shift 0)."""
        b = first + U64(g)
        x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, b)
        values = block_values(generator, x0, x1, x2, x3, b, params, table, r0, r1, r2, r3,
                              misses, start, n)
        store_group(out, head + per_block * g, values)

    def shifted_tile(out, staged, tile, first, k0, k1, k2, k3, lane, params, table,
                     r0, r1, r2, r3, misses, start, n, head, groups, shift):
        """Groups ``tile * (threads - 1) ...``: each thread computes one block,
        stages it, and stores the group that starts ``shift`` words into it."""
        threads = cuda.blockDim.x
        t = cuda.threadIdx.x
        g = tile * (threads - 1) + t
        b = first + U64(g)
        x0, x1, x2, x3 = block_at(k0, k1, k2, k3, lane, b)
        values = block_values(generator, x0, x1, x2, x3, b, params, table, r0, r1, r2, r3,
                              misses, start, n)
        e = per_block * t
        if width == 4:
            store(staged, e, values[0])
        elif width == 1:
            v0, v1, v2, v3 = values
            store(staged, e, v0)
            store(staged, e + 1, v1)
            store(staged, e + 2, v2)
            store(staged, e + 3, v3)
        else:
            v0, v1 = values
            store(staged, e, v0)
            store(staged, e + 1, v1)
        cuda.syncthreads()
        if t < threads - 1 and g < groups:
            s = per_block * t + shift // width
            if width == 4:
                group = (staged[s],)
            elif width == 1:
                group = (staged[s], staged[s + 1], staged[s + 2], staged[s + 3])
            else:
                group = (staged[s], staged[s + 1])
            store_group(out, head + per_block * g, group)
        cuda.syncthreads()  # before a next tile overwrites `staged`

    direct_group = _jitable(maps.named(f"direct_group_{block_values.__name__}", direct_group))
    shifted_tile = _jitable(maps.named(f"shifted_tile_{block_values.__name__}", shifted_tile))

    @_kernel(**({"max_registers": DEFERRED_FILL_REGISTERS}
                if deferred and DEFERRED_FILL_REGISTERS else {}))
    def fill(out, k0, k1, k2, k3, lane, start, p0, p1, p2, table, r0, r1, r2, r3,
             head, groups, shift, listed):
        # Group g is elements head + per_block * g ...; its first word is
        # word `shift` of stream block first + g.
        params = (p0, p1, p2)
        n = U64(out.size)
        threads = cuda.blockDim.x
        t = cuda.threadIdx.x
        # the count of listed misses, then [base, entries]: see _flush_misses
        count = cuda.shared.array(1, numba.uint32)
        local = cuda.shared.array(local_size, numba.uint64)
        misses = (count, local, listed, capacity)
        if deferred:
            if t == 0:
                count[0] = np.uint32(0)
            cuda.syncthreads()
        if shared_words:
            staged_table = cuda.shared.array(shared_words, numba.uint64)
            for k in range(t, shared_words, threads):
                staged_table[k] = table[k]
            cuda.syncthreads()
            lookup = staged_table
        else:
            lookup = table
        first = (start + U64(width * head)) >> U64(2)
        if shift == 0:
            if persistent and deferred:
                # Rounds that every thread of a block runs, so that the block
                # can drain its miss list between them.
                stride = cuda.gridsize(1)
                for r in range((groups + stride - 1) // stride):
                    g = r * stride + cuda.grid(1)
                    if g < groups:
                        direct_group(out, g, first, k0, k1, k2, k3, lane, params, lookup,
                                     r0, r1, r2, r3, misses, start, n, head)
                    if r % DRAIN_ROUNDS == DRAIN_ROUNDS - 1:
                        _drain_misses(count, local, listed, capacity)
            elif persistent:
                for g in range(cuda.grid(1), groups, cuda.gridsize(1)):
                    direct_group(out, g, first, k0, k1, k2, k3, lane, params, lookup,
                                 r0, r1, r2, r3, misses, start, n, head)
            elif cuda.grid(1) < groups:
                direct_group(out, cuda.grid(1), first, k0, k1, k2, k3, lane, params, lookup,
                             r0, r1, r2, r3, misses, start, n, head)
        else:
            staged = cuda.shared.array(0, shared_type)
            tiles = (groups + threads - 2) // (threads - 1)
            step = cuda.gridDim.x if persistent else max(tiles, 1)
            for tile in range(cuda.blockIdx.x, tiles, step):
                shifted_tile(out, staged, tile, first, k0, k1, k2, k3, lane, params, lookup,
                             r0, r1, r2, r3, misses, start, n, head, groups, shift)
                if deferred and persistent:
                    _drain_misses(count, local, listed, capacity)
        # The elements before the first group and after the last, one a thread.
        i = cuda.grid(1)
        tail = out.size - head - per_block * groups
        if i < head + tail:
            if i >= head:
                i += per_block * groups
            w = start + U64(width * i)
            value, accepted, lo, hi = draw(generator, k0, k1, k2, k3, lane, w, params, lookup)
            if not accepted:
                value = resolve(generator, r0, r1, r2, r3, w, lo, hi, params, lookup, misses,
                                start, n)
            store(out, i, value)
        if deferred:
            _flush_misses(count, local, listed, capacity)

    @_kernel(launch_bounds=MAX_THREADS)
    def mend(out, k0, k1, k2, k3, lane, start, p0, p1, p2, table, r0, r1, r2, r3, misses,
             blocks):
        # Every listed miss; after an overflow, every NaN (a miss mark).
        params = (p0, p1, p2)
        stride = cuda.gridsize(1)
        if misses[0] == 0:
            room = (misses.size - 1 - blocks) // blocks
            for q in range(cuda.grid(1), blocks * room, stride):
                if q % room < misses[1 + q // room]:
                    i = misses[1 + blocks + q]
                    w = start + U64(width) * i
                    store(out, i, element(generator, k0, k1, k2, k3, lane, w, params, table,
                                          r0, r1, r2, r3))
        else:
            for i in range(cuda.grid(1), out.size, stride):
                if math.isnan(out[i]):
                    w = start + U64(width * i)
                    store(out, i, element(generator, k0, k1, k2, k3, lane, w, params, table,
                                          r0, r1, r2, r3))

    @_kernel(launch_bounds=MAX_THREADS)
    def addressed(out, index, k0, k1, k2, k3, lane, start, p0, p1, p2, table, r0, r1, r2, r3):
        params = (p0, p1, p2)
        i = cuda.grid(1)
        if i < out.size:
            w = start + U64(width) * index[i]
            store(out, i, element(generator, k0, k1, k2, k3, lane, w, params, table,
                                  r0, r1, r2, r3))

    @_kernel(launch_bounds=MAX_THREADS)
    def addressed_each(out, index, each, k0, k1, k2, k3, lane, start, table, r0, r1, r2, r3):
        i = cuda.grid(1)
        if i < out.size:
            w = start + U64(width) * index[i]
            params = (each[0, i], each[1, i], each[2, i])
            store(out, i, element(generator, k0, k1, k2, k3, lane, w, params, table,
                                  r0, r1, r2, r3))

    return fill, mend, addressed, addressed_each


# One kernel a kind *and generator*: a kernel taking the generator as an
# argument holds every generator's block function, and on an H100 (2026-12-07)
# its first fill compiled 2.4x slower and its fills ran 6-14 % slower
# (docs/performance.md).
_BLOCK_AT = tuple(g.block_at for g in generators.GENERATORS)  # by Stream.generator


def _with_generator(block_at):
    """``block_at`` with the leading ``generator`` argument of
    :func:`tandem.core.addressing.block_at` (which it ignores)."""
    def block(generator, k0, k1, k2, k3, lane, b):
        return block_at(k0, k1, k2, k3, lane, b)

    return maps.named(f"with_generator_{block_at.__name__}", block)


_WITH_GENERATOR = tuple(_jitable(_with_generator(b)) for b in _BLOCK_AT)


@functools.lru_cache(maxsize=None)
def _functions(name, generator, counted):
    """``(pair or value map, retry, draw, element)`` of the kind ``name``, registered
    for numba-cuda (made once, so that no two closures share a symbol);
    ``counted``: with int64 values (``maps.counted``)."""
    kind = kinds.KINDS[name]
    value_map, retry = maps.kernel_functions(kind)
    for fn in maps.made_here(kind, value_map, retry):
        _jitable(fn)
    if counted:
        value_map, retry = (_jitable(fn) for fn in maps.counted(value_map, retry))
    draw = _jitable(maps.element_draw(kind.width, value_map, _WITH_GENERATOR[generator]))
    return value_map, retry, draw, _jitable(maps.element(draw, retry))


def element_function(name, generator):
    """The device function that computes one element of the kind ``name`` alone.

    Parameters
    ----------
    name : str
        A kind of :data:`tandem.kinds.KINDS`, for example ``"normal64"``.
    generator : int
        ``Stream.generator``: 0 Philox4x32-10, 1 Threefry4x32-20.

    Returns
    -------
    callable
        ``element(generator, k0, k1, k2, k3, lane, w, params, table, r0, r1, r2, r3)``,
        callable from ``numba.cuda.jit`` code: the element whose draw starts at
        word ``w`` of (key, lane), with the three parameter words ``params`` and
        the retry key ``r0..r3`` of a :class:`tandem.kinds.FillRecord`.  It is the
        function this backend's addressed and mend kernels call, so its values
        are the fills' bit for bit.

    Examples
    --------
    >>> normal = element_function("normal64", 0)  # doctest: +SKIP
    """
    return _functions(name, generator, False)[3]


@functools.lru_cache(maxsize=None)
def _kernels(name, generator, dtype, persistent):
    kind = kinds.KINDS[name]
    counted = kind.counts and np.dtype(dtype) == np.int64
    return _make_kernels(kind.width, _functions(name, generator, counted), _BLOCK_AT[generator],
                         generator, np.dtype(dtype), kind.deferred, kind.shared_words,
                         persistent)


# -- launches ---------------------------------------------------------------------

_DEVICE_TABLES = {}
_NO_TABLE = np.zeros(1, dtype=np.uint64)  # also the miss list of fills that never defer


def _on_device(table):
    """A device copy of the host array ``table``, made once per array."""
    if table is None:
        table = _NO_TABLE
    key = id(table)
    if key not in _DEVICE_TABLES:
        _DEVICE_TABLES[key] = cuda.to_device(table)
        weakref.finalize(table, _DEVICE_TABLES.pop, key, None)
    return _DEVICE_TABLES[key]


def _args(record):
    key = tuple(U64(k) for k in record.key)
    params = tuple(U64(p) for p in record.params)
    retry = tuple(U64(k) for k in record.retry_key)
    return (*key, U64(record.lane), U64(record.start), *params, _on_device(record.table),
            *retry)


def _address(out):
    if SIMULATED and isinstance(out, np.ndarray):
        return out.ctypes.data
    return out.__cuda_array_interface__["data"][0]


def _stream_of(out):
    """The stream ``out`` was exported with (see :func:`tandem.arrays.flat`)."""
    return getattr(out, "stream", 0)


def _threads(threads):
    threads = DEFAULT_THREADS if threads is None else threads
    if threads % 32 or not 32 <= threads <= MAX_THREADS:
        raise ValueError(f"threads per CUDA block must be a multiple of 32 in "
                         f"[32, {MAX_THREADS}], got {threads}")
    return threads


def layout(n, start, width, itemsize, address):
    """``(head, groups, shift)``: how a fill of ``n`` elements splits into groups.

    Group ``g`` holds the ``4 // width`` elements from ``head + (4 // width) * g``;
    its first word is word ``shift`` of a stream block.  Groups start at
    16-byte boundaries of ``out`` (or at the group size, when smaller) where
    the address allows it, else at stream blocks.
    """
    per_block = 4 // width
    align = min(16, per_block * itemsize)
    if address % itemsize == 0:
        head = (-address % align) // itemsize
    else:  # no aligned groups: follow the stream's blocks instead
        head = (-start % 4) // width
    head = min(head, n)
    groups = (n - head) // per_block
    return head, groups, (start + width * head) % 4


@functools.lru_cache(maxsize=None)
def _resident_blocks(threads):
    """Blocks of the persistent grid: enough to fill every multiprocessor."""
    if SIMULATED:  # one block: the tests see every block loop more than once
        return 1
    return cuda.get_current_device().MULTIPROCESSOR_COUNT * (2048 // threads)


def miss_capacity(n, rate):
    """Room in the miss list of ``n`` elements whose draws miss at ``rate``
    (about 4 times the expected misses); a fill with more mends by scanning
    for NaN."""
    return int(n * min(1.0, 4 * rate)) + 64


def _miss_list(size, header, like):
    """A device array of ``size`` uint64 whose first ``header`` are zero (from
    CuPy's pool when CuPy is there).

    CuPy zeroes it on its current stream: a fill into an ``out`` exported
    on another stream must not overlap work on that one.
    """
    if SIMULATED and isinstance(like, np.ndarray):
        return np.zeros(size, dtype=np.uint64)
    try:
        import cupy
    except ImportError:
        return cuda.to_device(np.zeros(size, dtype=np.uint64))
    listed = cupy.empty(size, dtype=np.uint64)
    listed[:header] = 0
    return listed


def fill(record, out, threads=None):
    """Write ``out.size`` elements of ``record``'s fill into flat ``out``."""
    threads = _threads(threads)
    kind = kinds.KINDS[record.kind]
    dtype = np.dtype(out.dtype)
    if kind.attempts and record.start % 4 == 0:
        counted = kind.counts and dtype == np.int64
        _launch_attempts(_attempts_fill_kernel(kind.name, record.generator, counted), record,
                         out, threads)
        return
    fill_kernel, mend_kernel = _kernels(kind.name, record.generator, dtype, kind.persistent)[:2]
    head, groups, shift = layout(out.size, record.start, kind.width, dtype.itemsize,
                                 _address(out))
    per_block = 4 // kind.width
    singles = out.size - per_block * groups
    if shift == 0:
        blocks, shared = -(-groups // threads), 0
    else:
        blocks, shared = -(-groups // (threads - 1)), threads * per_block * dtype.itemsize
    if kind.persistent:
        blocks = min(blocks, _resident_blocks(threads) * kind.waves)
    blocks = max(blocks, -(-singles // threads), 1)
    if kind.deferred:
        room = miss_capacity(out.size // blocks + threads, kind.miss_rate)
        misses = _miss_list(1 + blocks * (1 + room), 1 + blocks, out)
    else:
        misses = _on_device(None)
    args = _args(record)
    launch = _stream_of(out)
    fill_kernel[blocks, threads, launch, shared](out, *args, head, groups, shift, misses)
    if kind.deferred:
        mend_kernel[min(-(-misses.size // 256), 1024), 256, launch](out, *args, misses, blocks)


def addressed(record, index, out, threads=None):
    """Write element ``index[i]`` of ``record``'s fill into ``out[i]``."""
    threads = _threads(threads)
    kernel = _kernels(record.kind, record.generator, np.dtype(out.dtype), False)[2]
    kernel[max(-(-out.size // threads), 1), threads, _stream_of(out)](out, index,
                                                                      *_args(record))


def addressed_each(record, index, each, out, threads=None):
    """Write element ``index[i]`` of ``record``'s fill into ``out[i]``, with the
    parameter words ``each[:, i]`` (a C-ordered ``(3, n)`` uint64 device array) in
    place of ``record.params``."""
    threads = _threads(threads)
    kernel = _kernels(record.kind, record.generator, np.dtype(out.dtype), False)[3]
    args = _args(record)
    args = args[:6] + args[9:]  # without the scalar parameters
    kernel[max(-(-out.size // threads), 1), threads, _stream_of(out)](out, index, each, *args)


@functools.lru_cache(maxsize=None)
def _two_part_value(name):
    return _jitable(maps.two_part(getattr(core.two_parts, name)))


@functools.lru_cache(maxsize=None)
def _two_part_kernel(name):
    value = _two_part_value(name)

    @_kernel(launch_bounds=MAX_THREADS)
    def combine(out, a, b, p, q, step):
        i = cuda.grid(1)
        if i < out.size:
            j = i * step
            out[i] = value(a[i], b[i], p[j], q[j])

    return combine


def two_parts(name, out, a, b, p, q, threads=None):
    """``out[i] = core.two_parts.<name>(a[i], b[i], p[j], q[j])`` for flat f64
    device arrays, ``j`` being ``i`` where ``p`` and ``q`` hold one parameter
    an element, and 0 where they hold one."""
    threads = _threads(threads)
    step = 1 if p.size > 1 else 0
    kernel = _two_part_kernel(name)
    kernel[max(-(-out.size // threads), 1), threads, _stream_of(out)](out, a, b, p, q, step)


@functools.lru_cache(maxsize=None)
def _two_part_fill_kernel(first, second, name, generator):
    first_element = element_function(first, generator)
    second_element = element_function(second, generator)
    value = _two_part_value(name)

    @_kernel(launch_bounds=MAX_THREADS)
    def fill(out, k0, k1, k2, k3, lane, start, a0, a1, a2, a_table, ar0, ar1, ar2, ar3,
             b0, b1, b2, b_table, br0, br1, br2, br3, p, q, step):
        i = cuda.grid(1)
        if i < out.size:
            w = start + U64(8) * U64(i)
            a = first_element(generator, k0, k1, k2, k3, lane, w, (a0, a1, a2), a_table,
                              ar0, ar1, ar2, ar3)
            b = second_element(generator, k0, k1, k2, k3, lane, w + U64(4), (b0, b1, b2),
                               b_table, br0, br1, br2, br3)
            j = i * step
            out[i] = value(a, b, p[j], q[j])

    return fill


def two_part_fill(first, second, name, out, p, q, threads=None):
    """The fill of a law of two parts in one kernel: ``out[i]`` is
    ``core.two_parts.<name>`` of element ``2 i`` of the fill ``first``'s blocks
    (its draw at word ``8 i``) and of ``second``'s at word ``8 i + 4``, with the
    law's parameters ``p[j]``, ``q[j]`` (``j`` as for :func:`two_parts`).
    ``first`` and ``second`` are the parts' records, of one stream at one start."""
    threads = _threads(threads)
    step = 1 if p.size > 1 else 0
    kernel = _two_part_fill_kernel(first.kind, second.kind, name, first.generator)
    a, b = _args(first), _args(second)
    kernel[max(-(-out.size // threads), 1), threads, _stream_of(out)](
        out, *a[:6], *a[6:], *b[6:], p, q, step)


@functools.lru_cache(maxsize=None)
def _poisson_mixture_kernel(mixing, generator):
    mixing_element = element_function(mixing, generator)
    steps = _functions("poisson_steps64", generator, True)[3]
    ptrs = _functions("poisson_ptrs64", generator, True)[3]

    @_kernel(launch_bounds=MAX_THREADS)
    def fill(out, k0, k1, k2, k3, lane, start, a0, a1, a2, a_table, ar0, ar1, ar2, ar3,
             b_table, br0, br1, br2, br3, mean_limit, ptrs_from):
        i = cuda.grid(1)
        if i < out.size:
            w = start + U64(8) * U64(i)
            mean = min(mixing_element(generator, k0, k1, k2, k3, lane, w, (a0, a1, a2),
                                      a_table, ar0, ar1, ar2, ar3), mean_limit)
            params = (np.float64(mean).view(np.uint64), _ZERO, _ZERO)
            if mean >= ptrs_from:
                count = ptrs(generator, k0, k1, k2, k3, lane, w + U64(4), params, b_table,
                             br0, br1, br2, br3)
            else:
                count = steps(generator, k0, k1, k2, k3, lane, w + U64(4), params, b_table,
                              br0, br1, br2, br3)
            out[i] = count

    return fill


def poisson_mixture_fill(mixing, poisson, out, mean_limit, ptrs_from, threads=None):
    """A Poisson mixture (``negative_binomial``) in one kernel: ``out[i]`` (int64)
    is the Poisson count at word ``8 i + 4`` whose mean is ``min(y, mean_limit)``,
    ``y`` the element of the fill ``mixing`` at word ``8 i``; the count is
    ``poisson_ptrs64``'s from mean ``ptrs_from`` on, else ``poisson_steps64``'s
    (the regimes of ``tandem.laws.LAWS["poisson"]``).  ``mixing`` and ``poisson``
    are records of one stream at one start (``poisson``: either Poisson kind's,
    for its retry key)."""
    threads = _threads(threads)
    kernel = _poisson_mixture_kernel(mixing.kind, mixing.generator)
    a, b = _args(mixing), _args(poisson)
    kernel[max(-(-out.size // threads), 1), threads, _stream_of(out)](
        out, *a[:6], *a[6:], *b[9:], np.float64(mean_limit), np.float64(ptrs_from))


def _attempts_kernel(value_map, settled, generator, spacing):
    """A fill of a block-an-element kind whose retry is its value map's attempts
    on blocks ``r = 0, 1, ...`` of lane ``g`` (the element's first word) of the
    continuation key: ``out[i]`` from block ``spacing i`` (the draw at word
    ``4 spacing i``), each thread taking one attempt a pass, by selects, so
    that a warp's threads stay in step whatever their elements' misses.
    ``settled(d0, d1, value, accepted, params)`` is ``(value, done)`` of an
    attempt on the draws ``(d0, d1)``."""
    block_at = _BLOCK_AT[generator]
    words = U64(4 * spacing)

    @_kernel(launch_bounds=MAX_THREADS)
    def fill(out, k0, k1, k2, k3, lane, start, p0, p1, p2, table, r0, r1, r2, r3):
        params = (p0, p1, p2)
        n = U64(out.size)
        stride = U64(cuda.gridsize(1))
        first_block = start >> U64(2)
        i = U64(cuda.grid(1))
        first = True  # the element's first attempt, else its retry's attempt r
        r = _ZERO
        while i < n:
            x0, x1, x2, x3 = block_at(
                k0 if first else r0, k1 if first else r1, k2 if first else r2,
                k3 if first else r3, lane if first else start + words * i,
                first_block + U64(spacing) * i if first else r)
            d0, d1 = join64(x0, x1), join64(x2, x3)
            value, accepted = value_map(d0, d1, params, table)
            value, done = settled(d0, d1, value, accepted, params)
            if done:
                out[i] = value
                i += stride
                first = True
                r = _ZERO
            else:
                r = r if first else r + U64(1)
                first = False

    return fill


def _accepted(d0, d1, value, accepted, params):
    return value, accepted


def _johnk_settled(d0, d1, value, accepted, params):
    """Jöhnk's attempt is done where accepted, and where ``X + Y`` underflowed
    (its missed value 0), which the retry accepts."""
    if accepted:
        return value, True
    if value == 0.0:
        return _beta.johnk_value(d0, d1, kinds.as_float(params[0]), kinds.as_float(params[1])), True
    return value, False


for _fn in (_accepted, _johnk_settled):
    _jitable(_fn)


@functools.lru_cache(maxsize=None)
def _attempts_fill_kernel(name, generator, counted):
    value_map = _functions(name, generator, counted)[0]
    return _attempts_kernel(value_map, _accepted, generator, 1)


@functools.lru_cache(maxsize=None)
def _johnk_fill_kernel(generator):
    return _attempts_kernel(_functions("beta_johnk64", generator, False)[0], _johnk_settled,
                            generator, 2)


def _launch_attempts(kernel, record, out, threads):
    threads = _threads(threads)
    blocks = max(min(-(-out.size // threads), _resident_blocks(threads)), 1)
    kernel[blocks, threads, _stream_of(out)](out, *_args(record))


def johnk_fill(record, out, threads=None):
    """Jöhnk's beta (kind ``beta_johnk64``) in one kernel: ``out[i]`` is the
    element of ``record``'s fill at block ``2 i`` (its draw at word ``8 i`` of a
    start that is a multiple of 4), one attempt a pass (``_attempts_kernel``)."""
    _launch_attempts(_johnk_fill_kernel(record.generator), record, out, threads)


@functools.lru_cache(maxsize=None)
def _multinomial_rows_kernel(generator):
    row = _jitable(maps.multinomial_row(element_function("binomial64", generator)))

    @_kernel(launch_bounds=MAX_THREADS)
    def rows(out, trials, p, k0, k1, k2, k3, lane, start, p0, p1, p2, table, r0, r1, r2, r3):
        i = cuda.grid(1)
        if i < out.shape[0]:
            row(out, i, trials, p, generator, k0, k1, k2, k3, lane, start, table, r0, r1, r2, r3)

    return rows


def multinomial_rows(record, trials, p, out, threads=None):
    """Multinomial counts, a row a thread: ``out[i, j]`` (int64, ``j < k - 1``)
    is element ``(k - 1) i + j`` of ``record``'s fill (kind ``binomial64``) with
    the trials left in the row and ``p[j]``; ``out[i, k - 1]`` is the trials
    left.  The CPU's counts (:func:`tandem.backends.cpu.multinomial_rows`)."""
    threads = _threads(threads)
    kernel = _multinomial_rows_kernel(record.generator)
    kernel[max(-(-out.shape[0] // threads), 1), threads, _stream_of(out)](
        out, np.int64(trials), p, *_args(record))


@functools.lru_cache(maxsize=None)
def _dirichlet_rows_kernel(generator):
    row = _jitable(maps.dirichlet_row(element_function("gamma64", generator)))

    @_kernel(launch_bounds=MAX_THREADS)
    def rows(out, each, k0, k1, k2, k3, lane, start, p0, p1, p2, table, r0, r1, r2, r3):
        i = cuda.grid(1)
        if i < out.shape[0]:
            row(out, i, each, generator, k0, k1, k2, k3, lane, start, table, r0, r1, r2, r3)

    return rows


def dirichlet_rows(record, each, out, threads=None):
    """Dirichlet values, a row a thread: ``out[i, j]`` is element ``k i + j`` of
    ``record``'s fill (kind ``gamma64``) with the parameter words ``each[:, j]``
    (a ``(3, k)`` uint64 device array), divided by the row's sum in the order
    of ``j``.  The values of those elements computed alone, then
    :func:`normalised_rows`."""
    threads = _threads(threads)
    kernel = _dirichlet_rows_kernel(record.generator)
    kernel[max(-(-out.shape[0] // threads), 1), threads, _stream_of(out)](
        out, each, *_args(record))


@functools.lru_cache(maxsize=None)
def _row_kernels():
    fma = core.fmath.fma

    @_kernel(launch_bounds=MAX_THREADS)
    def transformed(z, m, mean, out):
        e = cuda.grid(1)
        if e < out.size:
            i, r = e // out.shape[1], e % out.shape[1]
            acc = mean[r]
            for c in range(m.shape[0]):
                acc = fma(z[i, c], m[c, r], acc)
            out[i, r] = acc

    @_kernel(launch_bounds=MAX_THREADS)
    def normalised(g, out):
        i = cuda.grid(1)
        if i < g.shape[0]:
            total = 0.0
            for j in range(g.shape[1]):
                total += g[i, j]
            for j in range(g.shape[1]):
                out[i, j] = g[i, j] / total

    return transformed, normalised


def transformed_rows(z, m, mean, out, threads=None):
    """``out[i, r] = mean[r] + sum_c z[i, c] m[c, r]``: ``fma`` after ``fma`` in the
    order of ``c``, as the CPU's (2-D f64 device arrays, ``mean`` 1-D)."""
    threads = _threads(threads)
    _row_kernels()[0][max(-(-out.size // threads), 1), threads, _stream_of(out)](z, m, mean,
                                                                                 out)


def normalised_rows(g, out, threads=None):
    """``out[i, j] = g[i, j] / (g[i, 0] + ... + g[i, k - 1])``, the sum in order,
    as the CPU's."""
    threads = _threads(threads)
    _row_kernels()[1][max(-(-g.shape[0] // threads), 1), threads, _stream_of(out)](g, out)
