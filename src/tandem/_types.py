"""The types of the public signatures: one name for each recurring parameter.

Imported at run time by the modules whose signatures name them, so that
``typing.get_type_hints`` resolves every public function's hints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Optional, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

#: An output's shape: an integer, a tuple of them, or None for one value.
Size = Optional[Union[int, Sequence[int]]]
#: Where values are made: None for where the inputs are.
Device = Optional[Literal["cpu", "cuda"]]
#: A backend by name: None for the output's device's.
Backend = Optional[Literal["cpu", "cuda", "reference"]]
#: A NumPy array or, on the GPU, a CuPy array (CuPy is an optional extra).
Array = Any
#: A seed as NumPy takes it.
Seed = Optional[Union[int, Sequence[int], np.random.SeedSequence]]
#: Dask's chunks of an array.
Chunks = Union[str, int, Sequence[Any]]

__all__ = ["Array", "ArrayLike", "Backend", "Chunks", "DTypeLike", "Device", "Seed", "Size"]
