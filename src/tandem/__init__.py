"""tandem: reproducible parallel random numbers.

Counter-based streams (Philox4x32-10 and Threefry4x32-20, exactly
Random123's) that give one value for one (key, lane, position) on every
device, at any thread count and chunking.

>>> import tandem
>>> root = tandem.Philox(123456)
>>> x, nxt = root.sub("init").random(4)

``import tandem`` compiles nothing and does not import Numba; kernels
compile on first use and are cached on disk.
"""

from .alias import AliasTable
from .blocks import philox4x32, threefry4x32
from .distributions import (
    bernoulli_at,
    bits_at,
    choice_at,
    exponential_at,
    integers_at,
    normal_at,
    random_at,
)
from .bitgen import StreamBitGenerator, StreamSeedSequence
from .choice_table import ChoiceTable
from .generator import Generator
from .parametric import AT_FUNCTIONS as _AT_FUNCTIONS
from .stream import Philox, Stream, Threefry, purpose_word
from .tandem8x32 import Tandem

__version__ = "1.0.0"

__all__ = [
    "AliasTable",
    "ChoiceTable",
    "Generator",
    "Philox",
    "Stream",
    "StreamBitGenerator",
    "StreamSeedSequence",
    "Tandem",
    "Threefry",
    "bernoulli_at",
    "bits_at",
    "choice_at",
    "exponential_at",
    "integers_at",
    "normal_at",
    "philox4x32",
    "purpose_word",
    "random_at",
    "threefry4x32",
]

# tandem.gamma_at, tandem.poisson_at, ...: one a law (tandem.laws.LAWS)
globals().update(_AT_FUNCTIONS)
__all__ += sorted(_AT_FUNCTIONS)


def __getattr__(name):
    if name == "core":
        import importlib

        core = importlib.import_module(".core", __name__)
        core.register()
        return core
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
