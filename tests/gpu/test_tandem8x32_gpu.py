"""tandem.Tandem on a real GPU: the conformance suite, and the CPU's bits on large fills.

    TANDEM_GPU=1 pytest tests/gpu/test_tandem8x32_gpu.py

Skipped without ``TANDEM_GPU=1``, numba-cuda, CuPy and a GPU.  The last run
is recorded in ``docs/gpu-tests.md``.
"""

import hashlib

import numpy as np
import pytest

import tandem
from test_tandem8x32 import (_case, _cases, _check, _fill_cases, _fixture, _fnv1a, _gen, _key,
                             _TYPES)

cp = pytest.importorskip("cupy")


def _fill_on_gpu(g, case, n):
    kind = case["kind"]
    if kind.startswith("fill_below"):
        return g.below(int(case["range"], 16), n, width=32 if kind.endswith("u32") else 64,
                       device="cuda")
    if kind.startswith("fill_normal"):
        return g.normal(n, dtype=np.float64 if kind.endswith("f64") else np.float32,
                        device="cuda")
    if kind.startswith("fill_exponential"):
        return g.exponential(n, dtype=np.float64 if kind.endswith("f64") else np.float32,
                             device="cuda")
    weights = np.array([int(w, 16) for w in case["weights"]], np.uint64).view(np.float64)
    return g.choice(tandem.ChoiceTable(weights), n, device="cuda")


@pytest.mark.parametrize("case", _fill_cases())
def test_fill_cases(case):
    values, after = _fill_on_gpu(_gen(case), case, case["n"])
    _check(case, cp.asnumpy(values))
    if "end" in case:
        assert after.position == case["end"]


@pytest.mark.parametrize("stream", [pytest.param(s, id=s["file"].split("/")[-1])
                                    for s in _fixture("hashes.json")["streams"]
                                    if s["type"] in ("UInt32", "UInt64", "Float32", "Float64",
                                                     "ComplexF32", "ComplexF64")])
def test_stream_hashes(stream):
    method, dtype = _TYPES[stream["type"]]
    values, _ = getattr(_gen(stream), method)(stream["n"], dtype=dtype, device="cuda")
    assert hashlib.sha256(cp.asnumpy(values).tobytes()).hexdigest() == stream["sha256"]


@pytest.mark.parametrize("dump", [d for d in _fixture("hashes.json")["dumps"]
                                  if d["draws"][0]["kind"] == "fill_normal_f64"
                                  and len(d["draws"]) == 1])
def test_normal_dump_hashes(dump):
    h, total = 0xCBF29CE484222325, 0
    for start in dump["starts"]:
        g = tandem.Tandem.from_key(_key(dump), start, dump["K"])
        values, g = g.normal(dump["draws"][0]["n"], device="cuda")
        data = cp.asnumpy(values).view(np.uint8)
        h, total = _fnv1a(data, h), total + data.size
    assert total == dump["bytes"] and f"{h:016x}" == dump["fnv1a"]


N = 2**22 + 3


@pytest.mark.parametrize("method, dtype", [("bits", np.uint32), ("bits", np.uint64),
                                           ("random", np.float32), ("random", np.float64),
                                           ("normal", np.float32), ("normal", np.float64),
                                           ("exponential", np.float32),
                                           ("exponential", np.float64)])
@pytest.mark.parametrize("start, K", [(0, 32), (32 * 5, 32), (32 * 6, 32), (64 * 7 + 32, 8),
                                      (32 * (2**40 + 7), 32), (2**40, 1024)])
def test_large_fills_equal_cpu(method, dtype, start, K):
    g = tandem.Tandem(2026, K=K).at(start)
    want, end = getattr(g, method)(N, dtype=dtype)
    got, got_end = getattr(g, method)(N, dtype=dtype, device="cuda")
    assert cp.asnumpy(got).tobytes() == want.tobytes() and got_end == end
    out = cp.zeros(N + 1, dtype)[1:]  # not 16-byte aligned
    getattr(g, method)(dtype=dtype, out=out)
    assert cp.asnumpy(out).tobytes() == want.tobytes()


def test_bounded_and_choice_equal_cpu():
    g = tandem.Tandem(7).at(96)
    for bound in (10, 2**31 + 1, 2**40 + 3):
        want, _ = g.below(bound, N)
        got, _ = g.below(bound, N, device="cuda")
        assert cp.asnumpy(got).tobytes() == want.tobytes()
    table = tandem.ChoiceTable(np.arange(1.0, 1001.0))
    assert cp.asnumpy(g.choice(table, N, device="cuda")[0]).tobytes() == \
        g.choice(table, N)[0].tobytes()


def test_pair_rule_case():
    case = _case("normal.json", "CROSS_NORMALF")
    values, after = _fill_on_gpu(_gen(case), case, case["n"])
    _check(case, cp.asnumpy(values))
    assert after.position == 4128
