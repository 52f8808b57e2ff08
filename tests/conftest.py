import numpy as np
import pytest
from hypothesis import settings

# Deterministic property tests: the same examples on every run.
settings.register_profile("tandem", derandomize=True, deadline=None, max_examples=40,
                          print_blob=True)
settings.load_profile("tandem")


@pytest.fixture(params=["philox", "threefry"])
def root(request):
    import tandem

    return tandem.Philox(20261129) if request.param == "philox" else tandem.Threefry(20261129)


def kat_lines(path):
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] in ("philox4x32", "threefry4x32"):
            name, rounds, *hexwords = fields
            words = [int(h, 16) for h in hexwords]
            key_words = 2 if name == "philox4x32" else 4
            yield name, int(rounds), words[:4], words[4:4 + key_words], words[4 + key_words:]


np.set_printoptions(linewidth=120)
