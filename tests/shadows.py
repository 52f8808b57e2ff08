"""A helper of the tests that start Python processes."""

import contextlib
import os
import sys


@contextlib.contextmanager
def path_without_shadows():
    """``sys.path`` without the folders (benchmarks/, which another test may have put
    there) whose dask.py would hide the package from the processes started inside."""
    path = sys.path[:]
    sys.path[:] = [p for p in path if not os.path.isfile(os.path.join(p or os.curdir,
                                                                      "dask.py"))]
    try:
        yield
    finally:
        sys.path[:] = path
