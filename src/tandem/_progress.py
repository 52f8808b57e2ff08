"""A tiny progress bar: tqdm when it is installed, else a minimal one on stderr.

``progress=True`` shows the bar only when stderr is a terminal,
``progress="always"`` shows it anyway, ``progress=False`` never.
"""

from __future__ import annotations

import sys
import time


def _enabled(progress):
    if progress not in (True, False, "always"):
        raise ValueError(f"progress must be True, False or 'always', got {progress!r}")
    if progress == "always":
        return True
    return bool(progress) and sys.stderr is not None and sys.stderr.isatty()


class _Plain:
    def __init__(self, total, desc):
        self.total, self.desc, self.n, self._last = total, desc, 0, 0.0

    def update(self, n=1):
        self.n += n
        now = time.monotonic()
        if now - self._last > 0.1 or self.n >= self.total:
            self._last = now
            filled = int(30 * self.n / max(self.total, 1))
            sys.stderr.write(f"\r{self.desc}: [{'#' * filled}{'.' * (30 - filled)}] "
                             f"{self.n}/{self.total}")
            sys.stderr.flush()

    def close(self):
        sys.stderr.write("\n")
        sys.stderr.flush()


class _Off:
    def update(self, n=1):
        pass

    def close(self):
        pass


class bar:
    """``with bar(total, desc, progress) as b: b.update(n)``; see the module docstring."""

    def __init__(self, total, desc="", progress=True):
        self._bar = _Off()
        if _enabled(progress):
            try:
                from tqdm import tqdm
            except ImportError:
                self._bar = _Plain(total, desc)
            else:
                self._bar = tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True)

    def __enter__(self):
        return self._bar

    def __exit__(self, *exc):
        self._bar.close()
        return False
