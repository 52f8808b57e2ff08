"""The per-element core functions that users' kernels and tandem.smc's batch
kernel call equal the fills, misses included (compiled for the CPU here; for
CUDA in tests/test_cuda_sim.py and tests/gpu)."""

import numba
import numpy as np
import pytest

import tandem
from tandem import core

U64 = np.uint64
N = 6000  # about 25 normal64 misses


def _words(stream):
    key = [U64(k) for k in stream.key] + [U64(0)] * (4 - len(stream.key))
    return U64(stream.generator), key, U64(stream.lane)


@numba.njit
def _elements(generator, k, c, lane, n, table, normal64, normal32, uniform64):
    for i in range(n):
        normal64[i] = core.normal64_at(generator, k[0], k[1], k[2], k[3], c[0], c[1], c[2],
                                       c[3], lane, U64(i), table)
        normal32[i] = core.normal32_at(generator, k[0], k[1], k[2], k[3], lane, U64(i))
        uniform64[i] = core.uniform64_at(generator, k[0], k[1], k[2], k[3], lane, U64(i))


@pytest.mark.parametrize("stream", [tandem.Philox(9).split(5), tandem.Threefry(3).split(2**64 - 1),
                                    tandem.Philox(2**64 - 1).sub("x")])
def test_elements_equal_the_fills(stream):
    generator, key, lane = _words(stream)
    word, domain = tandem.purpose_word("tandem.normal64")
    c = np.array(core.retry_key(generator, *key, lane, U64(word), U64(domain)), dtype=U64)
    normal64, normal32, uniform64 = np.empty(N), np.empty(N, np.float32), np.empty(N)
    _elements(generator, np.array(key, dtype=U64), c, lane, N, core.normal.FAST_TABLE,
              normal64, normal32, uniform64)
    assert np.array_equal(normal64, stream.normal(N)[0])
    assert np.array_equal(normal32, stream.normal(N, dtype=np.float32)[0])
    assert np.array_equal(uniform64, stream.random(N)[0])
    # the range holds misses, so the continuation key is exercised
    draws = tandem.bits_at(stream, np.arange(N), dtype=np.uint64)
    layer, m = draws & U64(1023), draws >> U64(11)
    assert (m >= core.ziggurat_tables.K[layer]).sum() > 5
