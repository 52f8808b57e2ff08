"""The generator axis of the CPU kernels: each generator's tile functions, and one
kernel a kind for every generator."""

import ast
import pathlib

import numpy as np
import pytest
from numba import njit

import tandem
from tandem import oracle
from tandem.backends import cpu, tiles
from tandem.core import generators

U64 = np.uint64
T = tiles.TILE_BLOCKS
KEY = (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344)  # pi's first words


@njit
def _tile(address, key, lane, first, count):
    words = np.zeros(4 * T, dtype=tiles.WORD)
    tiles.call(address, key[0], key[1], key[2], key[3], lane, first, count, words)
    return words


def oracle_blocks(generator, key, at):
    """Rows ``(x0, x1, x2, x3)`` of the blocks at ``(lane, block)`` pairs ``at``,
    by :func:`tandem.oracle.words` (NumPy, not compiled)."""
    return np.array([oracle.words(generator, key, lane, 4 * U64(b) + np.arange(4, dtype=U64))
                     for lane, b in at])


def _rows(words, count):
    """The tile's blocks, one row each (word r of block j is words[r * T + j])."""
    return words.reshape(4, T)[:, :count].T.astype(np.uint64)


@pytest.mark.parametrize("generator", generators.GENERATORS, ids=lambda g: g.name)
def test_each_tile_function_gives_the_generators_blocks(generator):
    """run, gather and across against Random123's bijection computed in Python
    (tandem.oracle), at blocks and lanes with high words set."""
    key = np.array(KEY, dtype=np.uint64)
    lane, first = U64(2**40 + 7), U64(2**33 - 3)
    want = oracle_blocks(generator.index, KEY, [(lane, first + U64(j)) for j in range(5)])
    got = _rows(_tile(tiles.address(generator.index, "run"), key, lane, first, U64(5)), 5)
    assert np.array_equal(got, want)

    blocks = np.zeros(T, dtype=np.uint64)
    blocks[:3] = [U64(9), U64(2**50), U64(0)]
    want = oracle_blocks(generator.index, KEY, [(lane, b) for b in blocks[:3]])
    got = _rows(_tile(tiles.address(generator.index, "gather"), key, lane, blocks, U64(3)), 3)
    assert np.array_equal(got, want)

    lanes = np.zeros(T, dtype=np.uint64)
    lanes[:4] = [U64(0), U64(1), U64(2**63), U64(12345)]
    want = oracle_blocks(generator.index, KEY, [(s, U64(3)) for s in lanes[:4]])
    got = _rows(_tile(tiles.address(generator.index, "across"), key, lanes, U64(3), U64(4)), 4)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("log2_k", [0, 5, 7])
def test_tandem_run_crosses_chunks_and_rows_as_the_specification_orders_them(log2_k):
    """Tandem8x32's run (rows of eight lanes, restarted at each chunk group) against
    the oracle's transcription of SPEC.md section 4, its own lane and a split
    child's, from a block inside a row and a chunk."""
    key = np.array([KEY[0] | log2_k << 32, *KEY[1:]], dtype=np.uint64)
    first = U64(8 * 45 + 3)
    for lane in (generators.tandem8x32.OWN_LANE, U64(6)):
        positions = 4 * first + np.arange(4 * T, dtype=U64)
        want = oracle.words(2, tuple(int(k) for k in key), lane, positions).reshape(T, 4)
        got = _rows(_tile(tiles.address(2, "run"), key, lane, first, U64(T)), T)
        assert np.array_equal(got, want)


def test_a_tile_function_writes_count_blocks_and_no_more():
    key = np.array(KEY, dtype=np.uint64)
    words = _tile(tiles.address(0, "run"), key, U64(0), U64(0), U64(T - 1))
    assert not words.reshape(4, T)[:, T - 1].any()
    assert words.reshape(4, T)[:, : T - 1].any(axis=0).all()


def test_one_kernel_a_kind_serves_every_generator():
    """Fills of Philox and Threefry take the same compiled kernels (the generator
    is an argument), and each still gives its own generator's values."""
    cpu._kernels.cache_clear()
    philox, threefry = tandem.Philox(3), tandem.Threefry(3)
    for stream in (philox, threefry):
        stream.normal(2000)
        stream.normal(5)
    assert cpu._kernels.cache_info().currsize == 1
    assert not np.array_equal(philox.normal(5)[0], threefry.normal(5)[0])


def test_no_kernel_of_the_cpu_backend_names_a_generator():
    """Adding a generator touches no kernel: the backend never reads a
    generator's block function (tandem.core.generators is the one place)."""
    source = pathlib.Path(cpu.__file__).read_text()
    names = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(ast.parse(source))
              if isinstance(node, ast.Attribute)}
    assert not names & {"philox_block_at", "threefry_block_at", "block_at_philox"}
    assert "GENERATORS" not in names
