"""Regression tests for the defects of issue 14 outside tandem.bn (each names its item)."""

import copy
import pickle

import numpy as np
import pytest

import tandem
from tandem import smc


class UserPhilox(tandem.Philox):
    """A user's subclass, importable so that pickle finds it."""


# -- 1. out= an ndarray subclass ------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: np.matrix(np.zeros((1, 8))),
    lambda: np.ma.masked_array(np.zeros(8), mask=[0, 1] * 4),
    lambda: np.zeros(8).view(type("Sub", (np.ndarray,), {})),
])
def test_1_out_of_an_ndarray_subclass_is_refused_before_any_write(make):
    for fill in (lambda out: tandem.Philox(1).random(out=out),
                 lambda out: tandem.Generator(tandem.Philox(1)).random(out=out),
                 lambda out: tandem.Philox(1).normal(out=out)):
        out = make()
        with pytest.raises(TypeError, match="out must be a NumPy or CUDA array"):
            fill(out)
        assert (np.asarray(out) == 0).all()


def test_1_fortran_and_memmap_outs_hold_what_size_would_return(tmp_path):
    expected = tandem.Philox(1).random((3, 5))[0]
    out = np.zeros((3, 5), order="F")
    assert tandem.Philox(1).random(out=out)[0] is out
    assert np.array_equal(out, expected)
    mapped = np.memmap(tmp_path / "x.bin", dtype=np.float64, mode="w+", shape=(3, 5))
    tandem.Generator(tandem.Philox(1)).random(out=mapped)
    assert np.array_equal(mapped, expected)


# -- 2. bootstrap_filter trusts the model's array lengths ------------------------

class ShortLogDensity(smc.LinearGaussian):
    def observation_logpdf(self, x, y, t):
        return super().observation_logpdf(x, y, t)[:10]


@pytest.mark.parametrize("n", [64, 2**20])
def test_2_a_model_returning_too_few_log_densities_is_refused(n):
    with pytest.raises(ValueError, match=r"observation_logpdf at step 0 returned shape \(10,\)"):
        smc.bootstrap_filter(tandem.Philox(1), ShortLogDensity(0.9, 0.3, 0.5), [0.1], n)


# -- 7. sample into an out of the wrong item shape ----------------------------------

def test_7_sample_refuses_an_out_whose_items_do_not_match_the_population():
    population = np.arange(15.0).reshape(5, 1, 3)
    out = np.zeros((2, 4, 3))
    with pytest.raises(ValueError, match="out.shape"):
        tandem.Philox(1).sample(population, out=out)
    assert (out == 0).all()
    good = np.zeros((2, 1, 3))
    tandem.Philox(1).sample(population, out=good)
    assert np.array_equal(good, tandem.Philox(1).sample(population, size=2)[0])


# -- 8. f32 parameters checked after rounding -----------------------------------------

@pytest.mark.parametrize("call", [
    lambda: tandem.Philox(1).normal(4, scale=3.4e38, dtype=np.float32),
    lambda: tandem.Philox(1).normal(4, scale=1e-46, dtype=np.float32),
    lambda: tandem.Philox(1).normal(4, loc=3e38, dtype=np.float32),
    lambda: tandem.Philox(1).exponential(4, scale=1e-46, dtype=np.float32),
    lambda: tandem.Philox(1).exponential(4, scale=3.4e38, dtype=np.float32),
    lambda: tandem.Philox(1).normal(4, scale=1e307),
])
def test_8_scales_that_round_to_zero_or_overflow_are_refused(call):
    with pytest.raises(ValueError, match="scale|loc"):
        call()


def test_8_the_largest_accepted_f32_scale_gives_finite_values():
    values = tandem.Philox(1).normal(2**12, scale=2.6e36, dtype=np.float32)[0]
    assert np.isfinite(values).all()
    values = tandem.Philox(1).exponential(2**12, scale=2.6e36, dtype=np.float32)[0]
    assert np.isfinite(values).all()


# -- 12. messages that name the argument -----------------------------------------------

@pytest.mark.parametrize("call,error,match", [
    (lambda: tandem.Philox(1).random(2**70), ValueError, "size"),
    (lambda: tandem.Philox(1).random((2**40, 2**40)), ValueError, "size"),
    (lambda: tandem.Philox(1).bernoulli(10**400), ValueError, "^p "),
    (lambda: tandem.Generator(tandem.Philox(1)).choice(None), ValueError, "^a must"),
    (lambda: smc.bootstrap_filter(tandem.Philox(1), smc.LinearGaussian(0.9, 0.3, 0.5), [0.0],
                                  8, ess_threshold="abc"), TypeError, "ess_threshold"),
    (lambda: smc.LinearGaussian("x", 0.3, 0.5), TypeError, "transition"),
    (lambda: smc.LinearGaussian(0.9, 0.3, 1e-300), ValueError, "observation_sd"),
    (lambda: smc.MultivariateLinearGaussian("x", 1, 1, 1, 0, 1), TypeError, "^A "),
    (lambda: tandem.Philox(1).at(2**64 + 1), ValueError, r"\[0, 2\*\*64\]"),
    (lambda: tandem.Philox(1).at(2**64 - 4).random(2**33), ValueError, "size.*end of the lane"),
    (lambda: tandem.Philox(1).random(3, dtype=0.0), TypeError, "dtype"),
    (lambda: tandem.Generator(tandem.Philox(1)).choice(3, p="ab"), ValueError, "^p "),
])
def test_12_messages_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


class OneNaN(smc.LinearGaussian):
    def observation_logpdf(self, x, y, t):
        value = super().observation_logpdf(x, y, t)
        value[5] = np.nan
        return value


@pytest.mark.parametrize("device", [None])
def test_12_one_nan_log_density_is_reported_as_such(device):
    with pytest.raises(ValueError, match="NaN at step 0 for particle 5"):
        smc.bootstrap_filter(tandem.Philox(1), OneNaN(0.9, 0.3, 0.5), [0.1], 64, device=device)


# -- 14. value quirks ---------------------------------------------------------------------

def test_14_a_user_subclass_of_philox_round_trips_through_pickle():
    stream = UserPhilox(5).split(3).at(7)
    back = pickle.loads(pickle.dumps(stream))
    assert type(back) is UserPhilox and back == stream


def test_14_old_pickles_that_name_the_class_still_load():
    from tandem.stream import _rebuild

    assert _rebuild("Threefry", (1, 2, 3, 4), 5, 6) == tandem.Threefry(key=(1, 2, 3, 4), lane=5,
                                                                      position=6)
    with pytest.raises(ValueError, match="position"):
        _rebuild(tandem.Philox, (1, 2), 0, 2**65)
    with pytest.raises(TypeError, match="unpickle"):
        _rebuild(dict, (1, 2), 0, 0)


def test_14_alias_tables_stay_read_only_through_copies_and_pickles():
    table = tandem.AliasTable([1.0, 2.0, 3.0])
    for other in (copy.copy(table), copy.deepcopy(table), pickle.loads(pickle.dumps(table))):
        assert not other.table.flags.writeable
        assert np.array_equal(other.table, table.table)
    with pytest.raises(AttributeError):
        table.n = 10
    with pytest.raises(AttributeError):
        table.table = np.zeros(3, dtype=np.uint64)
