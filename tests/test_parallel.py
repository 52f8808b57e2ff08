"""tandem's pool of threads (tandem.parallel.in_pieces), on which fills run their pieces."""

import threading
import time

import numpy as np
import pytest

import tandem
from tandem import parallel


def test_every_piece_runs_once_and_piece_0_on_the_calling_thread():
    seen = []
    lock = threading.Lock()

    def work(p):
        with lock:
            seen.append((p, threading.get_ident()))

    parallel.in_pieces(work, 5)
    assert sorted(p for p, _ in seen) == [0, 1, 2, 3, 4]
    assert dict(seen)[0] == threading.get_ident()


def test_an_error_is_raised_after_every_piece_has_finished():
    finished = []

    def work(p):
        if p == 0:
            raise ValueError("piece 0")
        time.sleep(0.05)
        finished.append(p)

    with pytest.raises(ValueError, match="piece 0"):
        parallel.in_pieces(work, 3)
    assert sorted(finished) == [1, 2]  # nothing is left writing after the error


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_a_fill_cut_into_any_number_of_pieces_is_the_same(threads):
    # pieces of Tandem8x32's kernels and of a kind's fill (gamma) at several cuts
    n = 3 * 2**16 + 5
    for stream in (tandem.Tandem(9), tandem.Philox(9)):
        whole = stream.normal(n, threads=1)[0]
        np.testing.assert_array_equal(stream.normal(n, threads=threads)[0], whole)
    whole = tandem.Tandem(9).gamma(2.0, size=n, threads=1)[0]
    np.testing.assert_array_equal(tandem.Tandem(9).gamma(2.0, size=n, threads=threads)[0],
                                  whole)
