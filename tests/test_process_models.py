"""Fork, spawn and threads: no hang, no abort, no changed value (tandem.parallel).

Fills run on tandem's pool of threads; the raw bijections
(``tandem.philox4x32``) are a ``parallel=True`` kernel under Numba's layer.
Each case runs in a subprocess with a time bound, so that a hang or an abort
fails the test instead of stalling the suite.
"""

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import pytest

TIMEOUT_S = 240
N = 2**17  # above the size where fills run in parallel

POOL = textwrap.dedent(f"""
    import multiprocessing, sys
    import numpy as np
    import tandem

    COUNTERS = np.arange(4 * {N}, dtype=np.uint32).reshape({N}, 4)

    def fill(seed):
        blocks = tandem.philox4x32(COUNTERS, [seed, 1])  # a parallel region
        return np.concatenate([tandem.Philox(seed).normal({N})[0], blocks.ravel()])

    if __name__ == "__main__":
        expected = [fill(seed) for seed in range(4)]   # parallel regions in the parent
        with multiprocessing.get_context(sys.argv[1]).Pool(2) as pool:
            got = pool.map_async(fill, range(4)).get(timeout=60)
        assert all(np.array_equal(a, b) for a, b in zip(expected, got)), "values changed"
        print("ok")
""")

THREADS = textwrap.dedent(f"""
    import threading
    import numba
    import numpy as np
    import tandem

    COUNTERS = np.arange(4 * {N}, dtype=np.uint32).reshape({N}, 4)
    expected = [tandem.Philox(seed).normal({N})[0] for seed in range(4)]
    blocks = [tandem.philox4x32(COUNTERS, [seed, 1]) for seed in range(4)]
    wrong = []

    def work(seed):
        out = np.empty({N})
        for _ in range(8):
            tandem.Philox(seed).normal(out=out)  # pieces on tandem's pool
            if not np.array_equal(out, expected[seed]):
                wrong.append(seed)
            if not np.array_equal(tandem.philox4x32(COUNTERS, [seed, 1]), blocks[seed]):
                wrong.append(seed)  # a parallel region

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong, wrong
    print("ok", numba.threading_layer())
""")


def _run(script, *args, layer=None, tmp_path=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_THREADING_LAYER", "NUMBA_THREADING_LAYER_PRIORITY")}
    if layer:
        env["NUMBA_THREADING_LAYER"] = layer
    command = [sys.executable, "-c", script]
    if tmp_path is not None:  # spawn and forkserver import the functions from a file
        path = tmp_path / "script.py"
        path.write_text(script)
        command = [sys.executable, str(path)]
    done = subprocess.run([*command, *args], env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_pool_after_a_fill_in_the_parent_gives_the_same_values(method, tmp_path):
    assert _run(POOL, method, tmp_path=tmp_path) == ["ok"]


def test_a_fork_pool_works_under_workqueue_too(tmp_path):
    assert _run(POOL, "fork", layer="workqueue", tmp_path=tmp_path) == ["ok"]


@pytest.mark.parametrize("layer", [None, "workqueue"])
def test_four_threads_filling_at_once_neither_abort_nor_change_a_value(layer):
    status, used = _run(THREADS, layer=layer)
    assert status == "ok"
    assert used == (layer or used)


def test_the_default_layer_is_never_gnu_openmp():
    script = ("import numba, numpy, tandem; "
              "tandem.philox4x32(numpy.zeros((2**17, 4), numpy.uint32), [1, 2]); "
              "print(numba.threading_layer())")
    used = _run(script)[0]
    try:
        importlib.metadata.version("tbb")  # installed with tandem on x86-64
    except importlib.metadata.PackageNotFoundError:
        assert used == "workqueue"
    else:
        assert used == "tbb"


def test_a_layer_the_user_chose_is_kept():
    script = ("import numba, numpy, tandem; "
              "tandem.philox4x32(numpy.zeros((2**17, 4), numpy.uint32), [1, 2]); "
              "print(numba.threading_layer())")
    assert _run(script, layer="workqueue") == ["workqueue"]
