"""Writing files: every file tandem writes goes through :func:`replacing`.

A file is written under a fresh name in its target folder (made by
``tempfile.mkstemp``: created, never opened through a link) and moved onto
the target with ``os.replace``, which replaces a link planted there instead of
writing through it.  A reader sees the old file or the whole new one, never a
part, and a failure leaves the target as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere: set and put back at once
    os.umask(mask)
    return mask


def target(path, name: str, what: str = "a file") -> str:
    """``path`` as an absolute path that :func:`replacing` can write: its folder
    exists and it is not a folder; a ``TypeError`` or ``ValueError`` naming ``name``
    otherwise.

    Examples
    --------
    >>> target("/", "out")
    Traceback (most recent call last):
    ...
    ValueError: out: '/' is a folder, not a file
    """
    try:
        absolute = os.path.abspath(os.fspath(path))
    except TypeError:
        raise TypeError(f"{name} must be a path to {what} (a str or os.PathLike), got "
                        f"{type(path).__name__}") from None
    if os.path.isdir(absolute):
        raise ValueError(f"{name}: {absolute!r} is a folder, not a file")
    if not os.path.isdir(os.path.dirname(absolute)):
        raise ValueError(f"{name}: the folder of {absolute!r} does not exist")
    return absolute


@contextlib.contextmanager
def replacing(path, mode: str = "w", **open_options):
    """A new file object whose file becomes ``path`` when the block ends without error.

    Parameters
    ----------
    path : str or os.PathLike
        The target; its folder must exist.  A file or a link there is
        replaced (a link's own target is never written).
    mode : str
        ``"w"``, ``"wb"`` or ``"w+b"``, as for :func:`open`.
    **open_options
        ``encoding``, ``newline`` and the like, as for :func:`open`.

    Yields
    ------
    file object
        Open on the temporary file, at its start; closed before the move.

    The new file gets the permissions an ``open(path, "w")`` would give it
    (``0o666`` less the umask).  On an error the temporary file is removed
    and ``path`` is left as it was.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "note.txt")
    >>> with replacing(path) as f:
    ...     _ = f.write("whole or nothing")
    >>> open(path).read()
    'whole or nothing'
    """
    if mode not in ("w", "wb", "w+b"):
        raise ValueError(f"mode must be 'w', 'wb' or 'w+b', got {mode!r}")
    target = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(target))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(descriptor, 0o666 & ~_umask())
            f = open(descriptor, mode, **open_options)
        except BaseException:
            os.close(descriptor)
            raise
        with f:
            yield f
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`replacing`."""
    with replacing(path, "w", encoding="utf-8") as f:
        f.write(text)
