"""Bad input: a ValueError or TypeError that names the argument, and ``out`` untouched."""

import numpy as np
import pytest

import tandem

S = tandem.Philox(1)


@pytest.mark.parametrize("seed,error,match", [
    (-1, ValueError, "seed"), (-(2**70), ValueError, "non-negative"), (1.5, TypeError, "seed"),
    ("1", TypeError, "seed"), (True, TypeError, "seed"), ([], TypeError, "seed"),
    ([1, -2], ValueError, "non-negative"), ([1.5], TypeError, "seed"), ([[1]], TypeError, "seed"),
])
def test_bad_seeds(seed, error, match):
    with pytest.raises(error, match=match):
        tandem.Philox(seed)


def test_bad_threefry_seed_and_key():
    tandem.Threefry(2**128 - 1)
    assert tandem.Threefry(2**128) == tandem.Threefry(np.random.SeedSequence(2**128))
    with pytest.raises(ValueError, match="key"):
        tandem.Philox(key=(1, 2, 3))
    with pytest.raises(ValueError, match="key word"):
        tandem.Philox(key=(1, 2**32))


@pytest.mark.parametrize("call,error,match", [
    (lambda: S.random(-1), ValueError, "size"),
    (lambda: S.random((2, -3)), ValueError, "size"),
    (lambda: S.random(2.5), TypeError, "size"),
    (lambda: S.words(-4), ValueError, "size"),
    (lambda: S.integers(5, 5), ValueError, "low must be below high"),
    (lambda: S.integers(5, 2), ValueError, "low must be below high"),
    (lambda: S.integers(0, 2**40, dtype=np.int32), ValueError, "within dtype"),
    (lambda: S.integers(-1, 3, dtype=np.uint32), ValueError, "within dtype"),
    (lambda: S.integers(0.5, 3), TypeError, "low"),
    (lambda: S.integers(0, 3, dtype=np.float64), TypeError, "dtype"),
    (lambda: S.bernoulli(1.5), ValueError, "p must be in"),
    (lambda: S.bernoulli(-0.1), ValueError, "p must be in"),
    (lambda: S.bernoulli(float("nan")), ValueError, "p must be in"),
    (lambda: S.bernoulli("a"), TypeError, "p"),
    (lambda: S.random(3, dtype=np.int32), TypeError, "dtype"),
    (lambda: S.random(3, interval="[0,1]"), ValueError, "interval"),
    (lambda: S.bits(3, dtype=np.int64), TypeError, "dtype"),
    (lambda: S.random(3, threads=0), ValueError, "threads"),
    (lambda: S.sub(-1), ValueError, "purpose"),
    (lambda: S.sub(1.0), TypeError, "purpose"),
    (lambda: S.split(-1), ValueError, "g"),
    (lambda: S.at(2**64 + 1), ValueError, "position"),
    (lambda: S.skip(-1), ValueError, "position"),
    (lambda: tandem.random_at(S, [-1]), ValueError, "index"),
    (lambda: tandem.random_at(S, [0.5]), TypeError, "index"),
    (lambda: tandem.random_at("not a stream", [0]), TypeError, "stream"),
    (lambda: tandem.philox4x32([1, 2, 3], [1, 2]), ValueError, "counter"),
    (lambda: tandem.philox4x32([1, 2, 3, 4], [1, 2, 3]), ValueError, "key"),
    (lambda: tandem.threefry4x32([1, 2, 3, 2**32], [1, 2, 3, 4]), ValueError, "counter"),
    (lambda: tandem.Generator("3"), TypeError, "seed"),
    (lambda: S.normal(3, scale=-1.0), ValueError, "scale must be non-negative"),
    (lambda: S.normal(3, loc=float("nan")), ValueError, "loc must be finite"),
    (lambda: S.normal(3, dtype=np.int32), TypeError, "dtype"),
    (lambda: S.exponential(3, scale=-0.5), ValueError, "scale must be non-negative"),
    (lambda: S.exponential(3, scale=float("inf")), ValueError, "scale must be finite"),
    (lambda: S.exponential(3, scale="1"), TypeError, "scale"),
    (lambda: tandem.AliasTable([1.0, float("nan")]), ValueError, "weights must be finite"),
    (lambda: tandem.AliasTable([1.0, float("inf")]), ValueError, "weights must be finite"),
    (lambda: tandem.AliasTable([1.0, -0.5]), ValueError, "non-negative"),
    (lambda: tandem.AliasTable([0.0, 0.0]), ValueError, "all be zero"),
    (lambda: tandem.AliasTable([]), ValueError, "empty"),
    (lambda: tandem.AliasTable([[1.0, 2.0]]), ValueError, "one-dimensional"),
    (lambda: tandem.AliasTable(["a", "b"]), TypeError, "real numbers"),
    (lambda: S.choice([0.5, 0.5], 3), TypeError, "AliasTable"),
    (lambda: S.sample(5, size=6, replace=False), ValueError, "without replacement"),
    (lambda: S.sample(5, weights=[1, 0, 0, 0, 1], size=3, replace=False), ValueError,
     "non-zero weight"),
    (lambda: S.sample(5, weights=[1, 2]), ValueError, "one entry per member"),
    (lambda: S.sample(5, weights=[1, -2, 0, 0, 0]), ValueError, "non-negative"),
    (lambda: S.sample(0, size=1), ValueError, "empty population"),
    (lambda: S.sample(-1), ValueError, "population"),
    (lambda: S.shuffle([1, 2, 3]), TypeError, "NumPy or CuPy array"),
    (lambda: tandem.Generator(S).choice(np.arange(3), axis=1), ValueError, "axis"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("make,call,error,match", [
    (lambda: np.full(8, 7, np.float32), lambda o: S.random(out=o), TypeError, "dtype float64"),
    (lambda: np.full(8, 7, np.int64), lambda o: S.integers(0, 5, out=o, dtype=np.int32),
     TypeError, "dtype int32"),
    (lambda: np.full(16, 7.0)[::2], lambda o: S.random(out=o), ValueError, "contiguous"),
    (lambda: np.full((4, 6), 7.0)[:, :4], lambda o: S.random(out=o), ValueError, "contiguous"),
    (lambda: np.full(8, 7.0), lambda o: S.random(size=9, out=o), ValueError, "does not match"),
    (lambda: np.full(8, 7.0), lambda o: S.bernoulli(2.0, out=o), ValueError, "p must be in"),
    (lambda: np.full(8, 7, np.int64), lambda o: S.integers(3, 1, out=o), ValueError, "low"),
    (lambda: np.full(8, 7, np.uint32), lambda o: S.at(2**64 - 4).words(8, out=o), ValueError,
     "past the end"),
])
def test_bad_out_is_left_untouched(make, call, error, match):
    out = make()
    before = out.copy()
    with pytest.raises(error, match=match):
        call(out)
    np.testing.assert_array_equal(out, before)


def test_read_only_out_is_refused():
    out = np.full(8, 7.0)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        S.random(out=out)
    assert np.all(out == 7.0)


def test_out_must_be_an_array():
    with pytest.raises(TypeError, match="NumPy or CUDA array"):
        S.random(out=[0.0, 0.0])


def test_bad_device():
    with pytest.raises(ValueError, match="device must be"):
        S.random(3, device="gpu")
    with pytest.raises(ValueError, match="out is on the cpu"):
        S.random(out=np.zeros(3), device="cuda")


@pytest.mark.parametrize("call", [
    lambda pop, w, out: S.sample(pop, size=4, out=out[:4]),
    lambda pop, w, out: S.sample(pop, weights=w, size=4, out=w[:4]),
    lambda pop, w, out: S.sample(pop, size=8, replace=False, out=pop),
])
def test_sample_out_must_not_alias_its_inputs(call):
    pop = np.arange(8.0)
    w = np.ones(8)
    before = pop.copy(), w.copy()
    with pytest.raises(ValueError, match="share memory"):
        call(pop, w, pop)
    np.testing.assert_array_equal(pop, before[0])
    np.testing.assert_array_equal(w, before[1])


def test_bad_weights_write_nothing():
    out = np.full(4, 7, np.int64)
    with pytest.raises(ValueError, match="finite"):
        S.sample(4, weights=[1.0, np.nan, 1.0, 1.0], size=4, out=out)
    assert (out == 7).all()


class FakeCudaArray:
    """Just an ``__cuda_array_interface__``: enough for the checks on ``out``,
    which all run before anything touches the device."""

    def __init__(self, shape, typestr="<f8", strides=None, readonly=False):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "strides": strides, "data": (0, readonly),
                                         "version": 3}


@pytest.mark.parametrize("out,error,match", [
    (FakeCudaArray((4,), typestr="<f4"), TypeError, "dtype float64"),
    (FakeCudaArray((4,), readonly=True), ValueError, "writeable"),
    (FakeCudaArray((4, 4), strides=(8, 32)), ValueError, "C-contiguous"),
    (FakeCudaArray((5,)), ValueError, "does not match"),
])
def test_bad_cuda_out_is_refused_before_any_work(out, error, match):
    with pytest.raises(error, match=match):
        S.random(4 if match == "does not match" else None, out=out)


def test_cuda_out_with_cpu_device_is_refused():
    with pytest.raises(ValueError, match="out is on the cuda"):
        S.random(out=FakeCudaArray((4,)), device="cpu")


# -- issue 39, item 8: clear errors where there were tracebacks or silence --------------

def _unpickle_class_named(name):
    """Unpickle a stream pickled (as tandem 0.2 did) under the class name ``name``."""
    import pickle

    from tandem.stream import _rebuild

    class Pickled:
        def __reduce__(self):
            return _rebuild, (name, (1, 2), 0, 0)

    return pickle.loads(pickle.dumps(Pickled()))


@pytest.mark.parametrize("call,error,match", [
    (lambda: tandem.parametric.fill(S, "laplace", [0.0] * 6, 1.0, out=[0.0] * 6), TypeError,
     "out must be a NumPy or CUDA array"),
    (lambda: S.normal(loc=[0.0] * 6, out=(0.0,) * 6), TypeError, "out must be"),
    (lambda: S.exponential(scale=[1.0] * 6, out="abcdef"), TypeError, "out must be"),
    (lambda: tandem.Generator(1).permuted(np.arange(4.0), out=np.ma.zeros(4)), TypeError,
     "out must be"),
    (lambda: tandem.Generator(1).permuted(np.arange(4.0), out=[0.0] * 4), TypeError,
     "out must be a numpy.ndarray"),
    (lambda: S.sub("\udcff"), ValueError, "purpose must be a string that UTF-8 can encode"),
    (lambda: _unpickle_class_named("Squares"), TypeError, "cannot unpickle a stream of class"),
    (lambda: tandem.Generator(1).uniform(0, -0.0), ValueError, "high - low < 0"),
    (lambda: tandem.parametric.fill(S, "uniform", [0.0, 1.0], [1.0, -0.0]), ValueError,
     "high - low < 0"),
    (lambda: S.normal(4, loc=None, scale=[1.0]), TypeError, "loc"),
    (lambda: S.normal(4, loc=None, scale=1.0), TypeError, "loc"),
    (lambda: tandem.normal_at(S, [1, 2], loc=None, scale=[1.0]), TypeError, "loc"),
])
def test_issue_39_refusals_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_signed_zero_follows_numpy():
    """NumPy takes -0.0 where it compares (Poisson's ``lam``, binomial's ``n`` and ``p``)
    and refuses it where it checks the sign bit (uniform's ``high - low``, a scale)."""
    g = tandem.Generator(3)
    numpy = np.random.default_rng(3)
    for method, args in (("poisson", (-0.0,)), ("binomial", (5, -0.0)),
                         ("binomial", (-0.0, 0.5)), ("poisson", ([-0.0, 0.0],)),
                         ("binomial", (5, [-0.0, 0.0]))):  # every count 0
        np.testing.assert_array_equal(getattr(g, method)(*args), getattr(numpy, method)(*args))
    for method, args in (("uniform", (0.0, -0.0)), ("normal", (0.0, -0.0)),
                         ("exponential", (-0.0,))):
        with pytest.raises(ValueError):
            getattr(numpy, method)(*args)
        with pytest.raises(ValueError):
            getattr(g, method)(*args)
    assert g.uniform(-0.0, 0.0) == 0.0 and g.uniform(0.0, 0.0) == 0.0


BIF = """network tiny { }
variable a { type discrete [ 2 ] { yes, no }; }
probability ( a ) { table 0.2, 0.8; }
"""


def test_bif_files_that_cannot_be_read_are_refused_naming_them(tmp_path):
    import gzip

    from tandem import bn

    whole = tmp_path / "tiny.bif.gz"
    whole.write_bytes(gzip.compress(BIF.encode()))
    assert bn.read_bif(whole).names == ("a",)
    cut = tmp_path / "cut.bif.gz"
    cut.write_bytes(whole.read_bytes()[:-12])
    with pytest.raises(ValueError, match="cut.bif.gz' cannot be read as BIF: EOFError"):
        bn.read_bif(cut)
    plain = tmp_path / "plain.bif.gz"
    plain.write_text(BIF)
    with pytest.raises(ValueError, match="plain.bif.gz' cannot be read as BIF"):
        bn.read_bif(plain)
    latin = tmp_path / "latin.bif"
    latin.write_bytes(BIF.replace("yes", "s\xed").encode("latin-1"))
    with pytest.raises(ValueError, match="latin.bif' cannot be read as BIF: UnicodeDecode"):
        bn.read_bif(latin)
    empty = tmp_path / "empty.bif"
    empty.write_text("")
    for source in (empty, "network x { }\n"):
        with pytest.raises(ValueError, match="no variable blocks"):
            bn.read_bif(source)
    braced = tmp_path / "brace{x}"
    braced.mkdir()
    (braced / "net.bif").write_text(BIF)
    assert bn.read_bif(str(braced / "net.bif")).names == ("a",)  # a path, not BIF text
    with pytest.raises(FileNotFoundError):
        bn.read_bif(str(braced / "missing.bif"))
    assert bn.read_bif(BIF).names == ("a",)


def test_the_cli_refuses_a_cut_bif_file_without_a_traceback(tmp_path):
    import gzip
    import io

    from tandem import cli

    cut = tmp_path / "cut.bif.gz"
    cut.write_bytes(gzip.compress(BIF.encode())[:-12])
    err = io.StringIO()
    assert cli.main(["bn", "learn", "--network", str(cut), "--out", str(tmp_path / "r")],
                    err=err) == 2
    assert "cut.bif.gz' cannot be read as BIF" in err.getvalue()


def test_resume_errors_name_resume(tmp_path):
    from test_bn_exact import synthetic_table

    from tandem import bn

    table = synthetic_table(5, 2, 2)
    path = tmp_path / "run.npz"
    bn.order_mcmc(table, tandem.Philox(1), chains=1, iterations=30, checkpoint=path,
                  progress=False)
    for resume, error, match in ((path, ValueError, r"resume: .*ran 30 iterations, more "
                                  r"than iterations=10"),
                                 (5, TypeError, "resume must be the path of a checkpoint"),
                                 (tmp_path / "none.npz", ValueError, "resume: .*none.npz"),
                                 (tmp_path, ValueError, "resume: ")):
        with pytest.raises(error, match=match):
            bn.order_mcmc(table, tandem.Philox(1), chains=1, iterations=10, resume=resume,
                          progress=False)
