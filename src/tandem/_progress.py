"""A tiny progress bar: tqdm when it is installed, else a minimal one on stderr.

``progress=True`` shows it only when stderr is a terminal, ``"always"`` anyway,
``False`` never. Use: ``with bar(total, desc, progress) as b: b.update(n)``.
"""

import sys
import time


def _enabled(progress):
    if progress not in (True, False, "always"):
        raise ValueError(f"progress must be True, False or 'always', got {progress!r}")
    return progress == "always" or (progress and sys.stderr is not None and sys.stderr.isatty())


class _Plain:
    def __init__(self, total, desc):
        self.total, self.desc, self.n, self.last = total, desc, 0, 0.0

    def update(self, n=1):
        self.n += n
        if time.monotonic() - self.last > 0.1 or self.n >= self.total:
            self.last = time.monotonic()
            done = int(30 * self.n / max(self.total, 1))
            sys.stderr.write(f"\r{self.desc}: [{'#' * done}{'.' * (30 - done)}] {self.n}/{self.total}")

    def close(self):
        sys.stderr.write("\n")


class _Off:
    def update(self, n=1):
        pass

    close = update


class bar:
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
