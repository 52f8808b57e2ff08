"""Checks of scalar arguments, shared by every public function.

Each raises a ``TypeError`` or ``ValueError`` whose message starts with the
argument's name, and returns the value as a plain Python number.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def _unwrapped(value):
    """The element of a 0-d NumPy array, as NumPy's own methods take one."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def real(value, name: str) -> float:
    """``value`` as a float; a ``TypeError`` unless it is a real number (not a bool),
    or a 0-d array of one.

    Examples
    --------
    >>> real(3, "loc")
    3.0
    >>> real(np.array(0.5), "p")
    0.5
    """
    value = _unwrapped(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {value!r:.60}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} is too large for a float, got {value!r:.60}") from None


def real_array(values, name: str, xp=np):
    """``values`` as a float64 array (NumPy's or CuPy's, as ``xp``), converted
    as NumPy's distributions convert a parameter.

    An array (a NumPy or CuPy array, or anything with ``__array__``) must cast
    safely to float64: booleans, integers and floats do, strings and objects
    raise ``TypeError``.  A Python number or sequence converts as
    ``numpy.asarray(values, float64)`` does: an integer of any size, ``None``
    in a list as NaN, a string in it that is no number a ``ValueError``.  A
    ``str``, ``bytes`` or ``None`` alone raises ``TypeError`` (the Generator
    first applies NumPy's rule for strings, :func:`refuse_text`).

    Examples
    --------
    >>> real_array([1, 2**70], "loc")
    array([1.00000000e+00, 1.18059162e+21])
    """
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a real number, got {values!r:.60}")
    if isinstance(values, xp.ndarray) or hasattr(values, "__array__"):
        values = xp.asarray(values)
        if values.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {values.dtype}")
        return values.astype(np.float64)
    try:
        return xp.asarray(np.asarray(values, dtype=np.float64))
    except ValueError as error:  # a string in the sequence that is no number
        raise ValueError(f"{name}: {error}") from None


def refuse_text(value, name: str) -> None:
    """NumPy's ``ValueError`` for a string that is no number where a number is
    wanted (a number's text goes on to the checks' ``TypeError``, as in NumPy).

    Examples
    --------
    >>> refuse_text("x", "loc")
    Traceback (most recent call last):
    ...
    ValueError: loc must be a number, got the string 'x'
    """
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            raise ValueError(f"{name} must be a number, got the string {value!r:.60}") from None


def finite(value, name: str) -> float:
    """``value`` as a finite float.

    Examples
    --------
    >>> finite(-1.5, "loc")
    -1.5
    """
    value = real(value, name)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def positive(value, name: str) -> float:
    """``value`` as a positive finite float.

    Examples
    --------
    >>> positive(2, "scale")
    2.0
    """
    value = finite(value, name)
    if not value > 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def integer(value, name: str) -> int:
    """``value`` as an int; a ``TypeError`` unless it is an integer (not a bool),
    or a 0-d array of one.

    Examples
    --------
    >>> integer(np.int8(3), "low")
    3
    >>> integer(np.array(4), "length")
    4
    """
    value = _unwrapped(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r:.60}")
    return int(value)


def dtype(value, name: str = "dtype") -> np.dtype:
    """``value`` as a NumPy dtype; a ``TypeError`` naming ``name`` if it is none.

    Examples
    --------
    >>> dtype("float32")
    dtype('float32')
    """
    try:
        return np.dtype(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a NumPy dtype, got {value!r:.60}") from None


def _unwritable(character: str) -> bool:
    """Whether ``character`` cannot stand in a name: a control character (Unicode
    category Cc), a lone surrogate, or a noncharacter that XML 1.0 refuses."""
    code = ord(character)
    return code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF or code in (
        0xFFFE, 0xFFFF)


def label(value, name: str) -> str:
    """``value`` as a name that every file tandem writes can hold: a non-empty
    ``str`` without control characters, lone surrogates or the noncharacters
    U+FFFE and U+FFFF (which GraphML, as XML 1.0, cannot hold even escaped).

    Examples
    --------
    >>> label("smoker", "names[0]")
    'smoker'
    >>> label("a\\x01b", "names[0]")
    Traceback (most recent call last):
    ...
    ValueError: names[0] ('a\\x01b') holds the character U+0001, which a name may not hold
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} is empty")
    bad = next((c for c in value if _unwritable(c)), None)
    if bad is not None:
        raise ValueError(f"{name} ({value!r:.60}) holds the character U+{ord(bad):04X}, which "
                         f"a name may not hold")
    return value
