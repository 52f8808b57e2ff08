"""A second copy of tandem's modules, for numba-cuda: ``tandem._cuda.<module>``.

numba-cuda 0.30 and Numba share one typing registry per Python function.
Once the CPU backend has compiled a function that it inlines at Numba's IR
level, numba-cuda picks up that CPU inlining for the same function and fails
to type it (seen on the project's H200: ``and_(omitted, omitted)``).  So the
CUDA backend compiles a copy of the modules it needs, loaded a second time
from the same files under another package name: every function is a
distinct object, registered for CUDA alone.
"""

import importlib
import sys
import types

PACKAGE = "tandem._cuda"


def module(name):
    """The copy of ``tandem.<name>`` (for example ``"core"``), loaded once."""
    if PACKAGE not in sys.modules:
        import tandem

        package = types.ModuleType(PACKAGE)
        package.__path__ = list(tandem.__path__)
        package.__package__ = PACKAGE
        sys.modules[PACKAGE] = package
    return importlib.import_module(f"{PACKAGE}.{name}")
