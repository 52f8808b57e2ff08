"""Every ``tandem.Generator`` method near the end of a lane, one call at a time under a
watchdog (run by ``tests/test_fuzz.py`` in a process of its own).

For each method and each ``k`` of :data:`ROOM`, a Generator at position ``2**64 - k``
calls the method until it raises; each call must return within :data:`LIMIT` seconds
(else ``faulthandler`` ends the process with the stack of the call that hung).  One
JSON line a case: the calls that returned, whether their values were finite, the
error and its message, and whether the refused call left the stream where it was.
"""

import faulthandler
import json
import sys

import numpy as np

import tandem

#: Words left in the lane at the start of each case.
ROOM = (0, 1, 2, 3, 5, 8)
#: Seconds one call may take once its kernels are compiled.
LIMIT = 20

#: A call of every method of ``numpy.random.Generator`` that draws, by name
#: (``multinomial numpy``: NumPy's own multinomial, for array ``n``).
CALLS = {
    "beta": lambda g: g.beta(0.5, 0.5),
    "binomial": lambda g: g.binomial(10, 0.3),
    "bytes": lambda g: g.bytes(3),
    "chisquare": lambda g: g.chisquare(2.0),
    "choice": lambda g: g.choice(5),
    "dirichlet": lambda g: g.dirichlet([1.0, 2.0]),
    "exponential": lambda g: g.exponential(),
    "f": lambda g: g.f(2.0, 3.0),
    "gamma": lambda g: g.gamma(2.0),
    "geometric": lambda g: g.geometric(0.3),
    "gumbel": lambda g: g.gumbel(),
    "hypergeometric": lambda g: g.hypergeometric(5, 5, 3),
    "integers": lambda g: g.integers(0, 10),
    "laplace": lambda g: g.laplace(),
    "logistic": lambda g: g.logistic(),
    "lognormal": lambda g: g.lognormal(),
    "logseries": lambda g: g.logseries(0.5),
    "multinomial": lambda g: g.multinomial(5, [0.2, 0.8]),
    "multinomial numpy": lambda g: g.multinomial([5, 6], [0.2, 0.8]),
    "multivariate_hypergeometric": lambda g: g.multivariate_hypergeometric([3, 4, 5], 4),
    "multivariate_normal": lambda g: g.multivariate_normal([0.0, 0.0], np.eye(2)),
    "negative_binomial": lambda g: g.negative_binomial(3, 0.5),
    "noncentral_chisquare": lambda g: g.noncentral_chisquare(2.0, 1.0),
    "noncentral_f": lambda g: g.noncentral_f(2.0, 3.0, 1.0),
    "normal": lambda g: g.normal(),
    "pareto": lambda g: g.pareto(2.0),
    "permutation": lambda g: g.permutation(4),
    "permuted": lambda g: g.permuted([1, 2, 3]),
    "poisson": lambda g: g.poisson(3.0),
    "power": lambda g: g.power(2.0),
    "random": lambda g: g.random(),
    "rayleigh": lambda g: g.rayleigh(),
    "shuffle": lambda g: g.shuffle([1, 2, 3]),
    "standard_cauchy": lambda g: g.standard_cauchy(),
    "standard_exponential": lambda g: g.standard_exponential(),
    "standard_gamma": lambda g: g.standard_gamma(2.0),
    "standard_normal": lambda g: g.standard_normal(),
    "standard_t": lambda g: g.standard_t(3.0),
    "triangular": lambda g: g.triangular(0.0, 0.5, 1.0),
    "uniform": lambda g: g.uniform(),
    "vonmises": lambda g: g.vonmises(0.0, 1.0),
    "wald": lambda g: g.wald(1.0, 1.0),
    "weibull": lambda g: g.weibull(2.0),
    "zipf": lambda g: g.zipf(2.0),
}


def case(name, room):
    """The record of one method from ``room`` words before the end of the lane."""
    call = CALLS[name]
    g = tandem.Generator(tandem.Philox(7).split(3).at(2**64 - room))
    record = {"method": name, "room": room, "returned": 0, "finite": True}
    for _ in range(room + 2):  # each call takes a word at least
        before = g.stream
        faulthandler.dump_traceback_later(LIMIT, exit=True)
        try:
            value = call(g)
        except (OverflowError, ValueError) as error:
            record.update(error=type(error).__name__, message=str(error),
                          kept=g.stream == before)
            break
        finally:
            faulthandler.cancel_dump_traceback_later()
        record["returned"] += 1
        if value is not None and not isinstance(value, bytes):
            record["finite"] &= bool(np.isfinite(np.asarray(value, dtype=np.float64)).all())
    return record


def main():
    for name, call in CALLS.items():
        call(tandem.Generator(tandem.Philox(1)))  # compiles, with no watchdog
    for name in CALLS:
        for room in ROOM:
            print(json.dumps(case(name, room)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
