"""Data sets for structure learning: discrete codes with arities, or Gaussian reals.

A :class:`Dataset` is immutable. A discrete one holds each value as the
integer code of its state (``0 .. arity - 1``); a Gaussian one holds float64
values. Every constructor checks its input completely before it builds
anything, and names the column, the row or the argument that is wrong.

pandas is optional: :meth:`Dataset.from_dataframe` needs a DataFrame, and
nothing else imports pandas.
"""

from __future__ import annotations

import csv
import hashlib
import numbers
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any, Optional, Union

import numpy as np

from .. import checks
from .._types import ArrayLike

#: The kinds of data set.
KINDS = ("discrete", "gaussian")

#: Cells that :meth:`Dataset.from_csv` reads as missing by default.
MISSING_TOKENS = ("", "NA", "N/A", "n/a", "NaN", "nan", "-nan", "NULL", "null", "None",
                  "#N/A", "<NA>")


def _readonly(a):
    a.flags.writeable = False
    return a


def _code_dtype(arities):
    return np.uint8 if max(arities, default=1) <= 256 else np.int32


def _check_names(names, n_vars):
    if names is None:
        return tuple(f"X{j}" for j in range(n_vars))
    if isinstance(names, str):
        raise TypeError("names must be a sequence of strings, not one string")
    names = tuple(names)
    if len(names) != n_vars:
        raise ValueError(f"names has {len(names)} entries for {n_vars} columns")
    for j, name in enumerate(names):
        checks.label(name, f"names[{j}]")
    seen = set()
    for name in names:
        if name in seen:
            raise ValueError(f"column name {name!r} appears more than once")
        seen.add(name)
    return names


def _warn_constant(names, arities, stacklevel):
    for name, arity in zip(names, arities):
        if arity == 1:
            warnings.warn(f"column {name!r} is constant (arity 1)", UserWarning,
                          stacklevel=stacklevel)


def _array(value, what):
    """``numpy.asarray(value)``, its failures naming the argument."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError, OverflowError) as error:
        raise type(error)(f"{what} is not an array: {error}") from None


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


class Dataset:
    """Discrete or Gaussian data: ``n_rows`` observations of ``n_vars`` named variables.

    Build one with :meth:`from_dataframe`, :meth:`from_csv`, :meth:`from_codes`
    or :meth:`gaussian`, which check their input completely first; the
    constructor itself is the trusted one they call, and checks nothing.

    Parameters
    ----------
    values : numpy.ndarray, shape (n_rows, n_vars)
        Discrete: the state codes. Gaussian: the float64 values. Kept as a
        read-only C-contiguous array.
    names : sequence of str
        The column names.
    arities : sequence of int, optional
        The number of states of each column; None (the default) makes a
        Gaussian data set.
    states : sequence of sequence, optional
        ``states[j][c]`` is the state of code ``c`` of column ``j``; None for
        Gaussian data.
    n_dropped : int, default 0
        The rows that ``dropna=True`` removed.

    Attributes
    ----------
    kind : str
        ``"discrete"`` or ``"gaussian"``.
    values : numpy.ndarray, shape (n_rows, n_vars), read-only, C-contiguous
        Discrete: the state codes, uint8 when every arity is at most 256,
        else int32. Gaussian: float64.
    names : tuple of str
        The column names, unique.
    arities : tuple of int or None
        Discrete: the number of states of each column (at least 1). Gaussian: None.
    states : tuple of tuple or None
        Discrete: ``states[j][c]`` is the state of code ``c`` of column ``j``
        (a str, int, float or bool as read). Gaussian: None.
    n_dropped : int
        The rows that ``dropna=True`` removed (0 otherwise).

    See Also
    --------
    tandem.bn.Network.sample : Forward-sample a discrete data set from a network.

    Examples
    --------
    >>> from tandem.bn import Dataset
    >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
    >>> data
    Dataset(discrete, 3 rows, 2 variables)
    >>> data.kind, data.names, data.arities, data.states
    ('discrete', ('a', 'b'), (2, 3), ((0, 1), (0, 1, 2)))
    >>> data.values.dtype, data.values.flags.writeable
    (dtype('uint8'), False)
    """

    __slots__ = ("_columns", "_fingerprint", "arities", "kind", "n_dropped", "names", "states",
                 "values")

    def __init__(self, values: np.ndarray, names: Sequence[str],
                 arities: Optional[ArrayLike] = None,
                 states: Optional[Sequence[Sequence[str]]] = None, *,
                 n_dropped: int = 0) -> None:
        # Trusted constructor: the public classmethods check everything first.
        self.kind = "gaussian" if arities is None else "discrete"
        self.values = _readonly(np.ascontiguousarray(values))
        self.names = tuple(names)
        self.arities = None if arities is None else tuple(int(a) for a in arities)
        self.states = None if states is None else tuple(tuple(s) for s in states)
        self.n_dropped = int(n_dropped)
        self._fingerprint = None
        self._columns = None

    # -- shape and lookup -----------------------------------------------------
    @property
    def n_rows(self) -> int:
        """The number of rows (observations); also ``len(data)``.

        Returns
        -------
        int
            ``values.shape[0]``.

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> data.n_rows, len(data)
        (3, 3)
        """
        return self.values.shape[0]

    @property
    def n_vars(self) -> int:
        """The number of variables (columns).

        Returns
        -------
        int
            ``values.shape[1]``.

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> data.n_vars
        2
        """
        return self.values.shape[1]

    @property
    def shape(self) -> tuple:
        """The shape ``(n_rows, n_vars)`` of ``values``.

        Returns
        -------
        tuple of int
            ``(n_rows, n_vars)``.

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> data.shape
        (3, 2)
        """
        return self.values.shape

    @property
    def codes(self) -> np.ndarray:
        """The state codes of a discrete data set (the same array as ``values``).

        Returns
        -------
        numpy.ndarray, shape (n_rows, n_vars)
            ``values`` itself: read-only, uint8 when every arity is at most
            256, else int32.

        Raises
        ------
        TypeError
            For a Gaussian data set, which has no codes.

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> data.codes.tolist()
        [[0, 1], [1, 0], [1, 1]]
        >>> data.codes is data.values
        True
        """
        if self.kind != "discrete":
            raise TypeError("a Gaussian data set has no codes")
        return self.values

    def __len__(self):
        return self.n_rows

    def __repr__(self):
        return f"Dataset({self.kind}, {self.n_rows} rows, {self.n_vars} variables)"

    def index(self, column: str | int) -> int:
        """The position of ``column`` (a name or an index) among the columns.

        Parameters
        ----------
        column : str or int
            A column name, or an index in ``range(n_vars)``.

        Returns
        -------
        int
            The column's index.

        Raises
        ------
        ValueError
            For an unknown name or an index out of range.
        TypeError
            For anything but a str or an integer (a bool included).

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> data.index("b"), data.index(0)
        (1, 0)
        """
        if isinstance(column, str):
            try:
                return self.names.index(column)
            except ValueError:
                raise ValueError(f"no column named {column!r}") from None
        if isinstance(column, (bool, np.bool_)) or not isinstance(column, numbers.Integral):
            raise TypeError(f"a column is a name or an index, got {type(column).__name__}")
        if not 0 <= column < self.n_vars:
            raise ValueError(f"column index {column} outside range({self.n_vars})")
        return int(column)

    @property
    def fingerprint(self) -> str:
        """SHA-256 (hex) of the kind, names, arities, states and values.

        Equal data sets have equal fingerprints on every platform.

        Returns
        -------
        str
            64 hexadecimal digits, computed once.

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> len(data.fingerprint)
        64
        >>> same = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> same.fingerprint == data.fingerprint
        True
        """
        if self._fingerprint is None:
            h = hashlib.sha256()
            h.update(repr((self.kind, self.shape, self.names, self.arities,
                           self.states)).encode())
            dtype = np.int32 if self.kind == "discrete" else np.float64
            h.update(np.ascontiguousarray(self.values, dtype=np.dtype(dtype).newbyteorder("<"))
                     .tobytes())
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def columns(self) -> np.ndarray:
        """The values column by column, as the score kernels read them.

        Returns
        -------
        numpy.ndarray, shape (n_vars, n_rows)
            A read-only C-contiguous copy of ``values.T``, made once.

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> data.columns().tolist()
        [[0, 1, 1], [1, 0, 1]]
        >>> data.columns().flags.writeable
        False
        """
        if self._columns is None:
            self._columns = _readonly(np.ascontiguousarray(self.values.T))
        return self._columns

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__ if name != "_columns"}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)
        self._columns = None

    def __eq__(self, other):
        if not isinstance(other, Dataset):
            return NotImplemented
        return (self.kind, self.names, self.arities, self.states) == (
            other.kind, other.names, other.arities, other.states) and np.array_equal(
            self.values, other.values)

    __hash__ = None

    def to_dataframe(self):
        """The data as a pandas DataFrame (needs pandas).

        Returns
        -------
        pandas.DataFrame
            One column per variable, named by ``names``. Discrete columns are
            Categoricals of the states (every state a category, observed or
            not); Gaussian columns are float64.

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], arities=[2, 3], names=["a", "b"])
        >>> frame = data.to_dataframe()
        >>> frame.shape, frame["b"].cat.categories.tolist()
        ((3, 2), [0, 1, 2])
        """
        import pandas as pd

        if self.kind == "gaussian":
            return pd.DataFrame(np.array(self.values), columns=list(self.names))
        columns = {}
        for j, name in enumerate(self.names):
            columns[name] = pd.Categorical.from_codes(self.values[:, j].astype(np.int64),
                                                      categories=list(self.states[j]))
        return pd.DataFrame(columns)

    # -- constructors -----------------------------------------------------------
    @classmethod
    def from_codes(cls, codes: ArrayLike, arities: ArrayLike,
                   names: Optional[Sequence[str]] = None) -> Dataset:
        """Discrete data from integer codes.

        Parameters
        ----------
        codes : array_like of int, shape (n_rows, n_vars)
            ``codes[i, j]`` in ``range(arities[j])``; at least one row and
            one column.
        arities : sequence of int
            The number of states of each column, at least 1 (and at most
            ``2**31 - 1``); a column of arity 1 gets a ``UserWarning``.
        names : sequence of str, optional
            Unique column names; default ``"X0", "X1", ...``.

        Returns
        -------
        Dataset
            Discrete; the states of column ``j`` are the integers
            ``0 .. arities[j] - 1``, and the codes are uint8 when every arity
            is at most 256, else int32.

        Raises
        ------
        TypeError
            For codes that are not integers, or arities that are not a
            sequence of integers.
        ValueError
            For codes that are not two-dimensional or are empty, arities of
            the wrong length or out of range, repeated names, or a code
            outside its column's range (naming the column and the row).

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.from_codes([[0, 2], [1, 0]], arities=[2, 3])
        >>> data.names, data.states, data.values.dtype
        (('X0', 'X1'), ((0, 1), (0, 1, 2)), dtype('uint8'))
        """
        a = _array(codes, "codes")
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"codes must be integers, got dtype {a.dtype}")
        if a.ndim != 2:
            raise ValueError(f"codes must be two-dimensional (rows, columns), got shape {a.shape}")
        n_rows, n_vars = a.shape
        if n_rows == 0 or n_vars == 0:
            raise ValueError(f"codes must have at least one row and one column, got shape {a.shape}")
        if isinstance(arities, (str, bytes, Mapping, Set)) or not hasattr(arities, "__len__"):
            raise TypeError(f"arities must be a sequence of integers, got "
                            f"{type(arities).__name__}")
        if len(arities) != n_vars:
            raise ValueError(f"arities has {len(arities)} entries for {n_vars} columns")
        checked = []
        for j, r in enumerate(arities):
            if isinstance(r, (bool, np.bool_)) or not isinstance(r, numbers.Integral):
                raise TypeError(f"arities[{j}] must be an integer, got {r!r}")
            if not 1 <= r <= 2**31 - 1:
                raise ValueError(f"arities[{j}] must be at least 1 and at most 2**31 - 1, "
                                 f"got {r}")
            checked.append(int(r))
        names = _check_names(names, n_vars)
        for j, r in enumerate(checked):
            column = a[:, j]
            bad = np.flatnonzero((column < 0) | (column >= r))
            if bad.size:
                raise ValueError(f"column {names[j]!r}: code {column[bad[0]]} at row {bad[0]} "
                                 f"is outside range({r})")
        _warn_constant(names, checked, 3)
        values = a.astype(_code_dtype(checked))
        return cls(values, names, checked, [tuple(range(r)) for r in checked])

    @classmethod
    def gaussian(cls, array: ArrayLike, names: Optional[Sequence[str]] = None) -> Dataset:
        """Gaussian (real-valued) data.

        Parameters
        ----------
        array : array_like of real numbers, shape (n_rows, n_vars)
            Finite values; copied to float64. A constant column gets a
            ``UserWarning``.
        names : sequence of str, optional
            Unique column names; default ``"X0", "X1", ...``.

        Returns
        -------
        Dataset
            Gaussian: float64 values, ``arities`` and ``states`` None.

        Raises
        ------
        TypeError
            For values that are not real numbers (bools included).
        ValueError
            For an array that is not two-dimensional or is empty, repeated
            names, or a NaN or infinite value (naming the column and the row).

        Examples
        --------
        >>> from tandem.bn import Dataset
        >>> data = Dataset.gaussian([[0.5, 1.0], [1.5, -2.0], [2.5, 0.25]])
        >>> data.kind, data.names, data.arities, data.values.dtype
        ('gaussian', ('X0', 'X1'), None, dtype('float64'))
        """
        a = _array(array, "array")
        if a.dtype == object or a.dtype == np.bool_ or not (
                np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
            raise TypeError(f"array must hold real numbers, got dtype {a.dtype}")
        if a.ndim != 2:
            raise ValueError(f"array must be two-dimensional (rows, columns), got shape {a.shape}")
        if a.shape[0] == 0 or a.shape[1] == 0:
            raise ValueError(f"array must have at least one row and one column, got shape {a.shape}")
        names = _check_names(names, a.shape[1])
        values = a.astype(np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            what = "a missing value (NaN)" if np.isnan(values[i, j]) else "an infinite value"
            raise ValueError(f"column {names[j]!r} has {what} at row {i}")
        _warn_gaussian_constant(names, values, 3)
        return cls(values, names)

    @classmethod
    def from_dataframe(cls, df: Any, *, kind: str | None = None, dropna: bool = False) -> Dataset:
        """Discrete or Gaussian data from a pandas DataFrame.

        Parameters
        ----------
        df : pandas.DataFrame
            One column per variable; column names become ``names`` (as str).
        kind : {"discrete", "gaussian", None}
            None infers it: Gaussian when every column is floating point and
            some value is not a whole number, discrete when no value is a
            non-whole float; anything else raises ``TypeError`` asking for
            ``kind``.
        dropna : bool, default False
            Drop the rows with a missing value; by default a missing value
            raises ``ValueError`` naming its column and row.

        Returns
        -------
        Dataset
            Discrete or Gaussian as ``kind`` says; ``n_dropped`` counts the
            rows that ``dropna`` removed.

        Raises
        ------
        TypeError
            For a ``df`` that is not a DataFrame, a column that mixes value
            types, or a kind that cannot be inferred.
        ValueError
            For a missing value without ``dropna``, repeated column names, or
            a bad ``kind``.

        Notes
        -----
        Discrete states: a Categorical column keeps its categories in their
        order (unobserved ones included); any other column gets its observed
        values, sorted. Whole-number floats become ints. A column that mixes
        value types (say str and int) raises ``TypeError`` naming the column
        and the row. A column with one state gets a ``UserWarning``.

        Examples
        --------
        >>> import pandas as pd
        >>> from tandem.bn import Dataset
        >>> frame = pd.DataFrame({"smoke": ["yes", "no", "yes"], "cancer": [1, 0, 0]})
        >>> data = Dataset.from_dataframe(frame)
        >>> data.kind, data.states
        ('discrete', (('no', 'yes'), (0, 1)))
        >>> data.codes.tolist()
        [[1, 1], [0, 0], [1, 0]]
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is in the test extra
            raise ImportError("Dataset.from_dataframe needs pandas") from None
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
        names = _check_names([str(c) for c in df.columns], df.shape[1])
        labels = list(df.index)
        columns, missing = [], []
        for j in range(df.shape[1]):
            series = df.iloc[:, j]
            missing.append(np.asarray(series.isna(), dtype=bool))
            if isinstance(series.dtype, pd.CategoricalDtype):
                columns.append(("categorical", series.cat.codes.to_numpy(np.int64),
                                [_python(c) for c in series.cat.categories]))
            elif isinstance(series.dtype, np.dtype) and (
                    series.dtype == np.bool_ or np.issubdtype(series.dtype, np.number)):
                columns.append(("array", series.to_numpy(), None))
            else:
                columns.append(("array", series.to_numpy(dtype=object), None))
        return _build(columns, missing, names, lambda i: f"row {labels[i]!r}", kind, dropna,
                      "df")

    @classmethod
    def from_csv(cls, path: Union[str, os.PathLike], *, kind: str | None = None,
                 dropna: bool = False, delimiter: str = ",",
                 missing: Iterable[str] = MISSING_TOKENS, encoding: str = "utf-8-sig") -> Dataset:
        """Discrete or Gaussian data from a CSV file with a header line.

        Read with the standard ``csv`` module in its strict mode (the same
        result whether or not pandas is installed): a quoted cell that is
        never closed, or that has more after its closing quote, is refused,
        never read as one long cell. A column whose cells all parse as
        integers holds ints (exactly, however large), else one whose cells
        all parse as floats holds floats, else one where no cell parses as a
        number holds the strings as written; a column that mixes numbers and other strings
        raises ``ValueError`` naming the column and the two lines. Then the
        rules of :meth:`from_dataframe` apply (``kind``, ``dropna``, states);
        errors name the column and the line of the file.

        Parameters
        ----------
        path : str or os.PathLike
            The CSV file; its first line names the columns.
        kind : {"discrete", "gaussian", None}
            As for :meth:`from_dataframe`: None infers it.
        dropna : bool, default False
            As for :meth:`from_dataframe`: drop the rows with a missing value
            instead of refusing them.
        delimiter : str, default ","
            One character.
        missing : iterable of str, default MISSING_TOKENS
            Cells (after stripping spaces) that count as missing.
        encoding : str, default "utf-8-sig"
            The default reads UTF-8 with or without a byte order mark; a mark
            left by another encoding is dropped from the first column's name
            too.

        Returns
        -------
        Dataset
            Discrete or Gaussian as ``kind`` says; ``n_dropped`` counts the
            rows that ``dropna`` removed.

        Raises
        ------
        ValueError
            For a file that is not text in ``encoding``, that the ``csv``
            module cannot parse (a quote never closed, a cell longer than
            ``csv.field_size_limit()`` characters, say), with rows of the
            wrong length, or with values that break the rules above; the
            message names the file and the line.

        Examples
        --------
        >>> import os, tempfile
        >>> from tandem.bn import Dataset
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = os.path.join(folder, "data.csv")
        ...     with open(path, "w", encoding="utf-8") as f:
        ...         _ = f.write("smoke,cancer\\nyes,1\\nno,0\\nyes,NA\\n")
        ...     data = Dataset.from_csv(path, dropna=True)
        >>> data.states, data.n_dropped
        ((('no', 'yes'), (0, 1)), 1)
        """
        name = _check_path(path)
        missing = _check_missing(missing)
        if not isinstance(encoding, str):
            raise TypeError(f"encoding must be a str, got {type(encoding).__name__}")
        try:
            with open(name, newline="", encoding=encoding) as f:
                header, rows, lines = _read_rows(csv.reader(f, delimiter=delimiter, strict=True),
                                                 name)
        except LookupError:
            raise ValueError(f"encoding: unknown encoding {encoding!r}") from None
        except UnicodeDecodeError as error:
            raise ValueError(f"{name!r} is not {encoding} text: {error}") from None
        names = _check_names(header, len(header))
        columns, masks = [], []
        for j, column in enumerate(names):
            cells = [row[j] for row in rows]
            mask = np.fromiter((c in missing for c in cells), dtype=bool, count=len(cells))
            columns.append(("array", _parse_cells(cells, mask, column, lines), None))
            masks.append(mask)
        return _build(columns, masks, names, lambda i: f"line {lines[i]}", kind, dropna,
                      repr(name))


def _check_path(path):
    if not isinstance(path, (str, bytes, os.PathLike)):  # not a file descriptor either
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    return os.fsdecode(os.fspath(path))


def _check_missing(missing):
    if isinstance(missing, (str, bytes)) or not hasattr(missing, "__iter__"):
        raise TypeError(f"missing must be an iterable of str (not one str), got {missing!r}")
    missing = frozenset(missing)
    for token in missing:
        if not isinstance(token, str):
            raise TypeError(f"missing must hold str, got {token!r}")
    return missing


def _read_rows(reader, name):
    """``(header, rows, lines)`` from a strict ``csv.reader``: cells stripped, blank lines
    skipped, a leading byte order mark dropped; a ``csv.Error`` (a quote never closed, a
    character after a closing quote) becomes ``ValueError`` naming the line where the
    record starts."""
    start = 1
    try:
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"{name!r} is empty: expected a header line") from None
        header = [h.strip() for h in header]
        if header:
            header[0] = header[0].lstrip("\ufeff").strip()
        rows, lines = [], []
        start = reader.line_num + 1
        for row in reader:
            if row and not (len(row) == 1 and not row[0].strip()):
                if len(row) != len(header):
                    raise ValueError(f"{name!r}: line {start} has {len(row)} cells, the "
                                     f"header has {len(header)}")
                rows.append([c.strip() for c in row])
                lines.append(start)
            start = reader.line_num + 1
    except csv.Error as error:
        limit = csv.field_size_limit()
        if "field limit" in str(error):
            why = f"a cell is longer than the csv module's limit of {limit} characters"
        elif "unexpected end of data" in str(error):
            why = "a quoted cell is never closed (an opening quote without its closing one)"
        else:
            why = str(error)
        raise ValueError(f"{name!r}: cannot read line {start}: {why}") from None
    return header, rows, lines


def _parse_cells(cells, mask, column, lines):
    """One column's present cells as int64, exact Python ints (beyond int64), float64 or
    str values; ``ValueError`` when numbers and other strings mix."""
    present = [c for c, m in zip(cells, mask) if not m]
    for convert in (int, float):
        try:
            parsed = [convert(c) for c in present]
        except (ValueError, OverflowError):
            continue
        if convert is float:
            out = np.full(len(cells), np.nan)
        elif not parsed or -2**63 <= min(parsed) <= max(parsed) < 2**63:
            out = np.zeros(len(cells), dtype=np.int64)
        else:  # beyond int64: exact ints, never a wrapped or rounded code
            out = np.zeros(len(cells), dtype=object)
        out[~mask] = parsed
        return out
    _check_not_mixed(cells, mask, column, lines)
    out = np.empty(len(cells), dtype=object)
    out[:] = [None if m else c for c, m in zip(cells, mask)]
    return out


def _number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _check_not_mixed(cells, mask, column, lines):
    """Refuse a column where some cells are numbers and others are not."""
    first = {}  # is a number -> the first such cell
    for i, (cell, m) in enumerate(zip(cells, mask)):
        if not m:
            first.setdefault(_number(cell), i)
    if len(first) == 2:
        number, string = first[True], first[False]
        raise ValueError(f"column {column!r} mixes types: the number {cells[number]!r} at "
                         f"line {lines[number]}, the string {cells[string]!r} at line "
                         f"{lines[string]}")


def _warn_gaussian_constant(names, values, stacklevel):
    for j, name in enumerate(names):
        if np.all(values[:, j] == values[0, j]):
            warnings.warn(f"column {name!r} is constant", UserWarning, stacklevel=stacklevel)


def _family(value):
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (numbers.Integral, numbers.Real)):
        return "number"
    if isinstance(value, str):
        return "str"
    return None


def _non_whole(values):
    """Index of the first finite non-whole float in ``values`` (float array), or None."""
    bad = np.flatnonzero(np.isfinite(values) & (values != np.floor(values)))
    return int(bad[0]) if bad.size else None


def _floats(values, name):
    """``values`` as float64; ``ValueError`` naming the column for an int beyond float64."""
    try:
        return np.asarray(values).astype(np.float64)
    except OverflowError:
        raise ValueError(f"column {name!r} has an integer too large for float64") from None


def _build(columns, missing, names, where, kind, dropna, source):
    """The checks and the coding shared by ``from_dataframe`` and ``from_csv``.

    ``columns[j]`` is ``("categorical", codes, categories)`` or ``("array",
    values, None)``; ``missing[j]`` marks its missing cells; ``where(i)``
    names row ``i`` and ``source`` the input for messages.
    """
    if kind is not None and not isinstance(kind, str):
        raise TypeError(f"kind must be 'discrete', 'gaussian' or None, got {kind!r}")
    if kind not in (None,) + KINDS:
        raise ValueError(f"kind must be 'discrete', 'gaussian' or None, got {kind!r}")
    if not isinstance(dropna, (bool, np.bool_)):
        raise TypeError(f"dropna must be True or False, got {dropna!r}")
    n_vars = len(names)
    if n_vars == 0:
        raise ValueError(f"{source} has no columns")
    n_rows = len(missing[0])
    if n_rows == 0:
        raise ValueError(f"{source} has no rows")
    any_missing = np.zeros(n_rows, dtype=bool)
    for m in missing:
        any_missing |= m
    if any_missing.any():
        if not dropna:
            i = int(np.flatnonzero(any_missing)[0])
            j = next(j for j in range(n_vars) if missing[j][i])
            raise ValueError(f"column {names[j]!r} has a missing value at {where(i)}; pass "
                             f"dropna=True to drop the rows with missing values")
        keep = ~any_missing
        if not keep.any():
            raise ValueError("every row has a missing value: nothing is left after dropna")
    else:
        keep = None
    n_dropped = 0 if keep is None else int(n_rows - keep.sum())

    # Value families, checked on the rows that stay.
    families = []
    for j, (tag, values, _) in enumerate(columns):
        rows = np.flatnonzero(~any_missing) if keep is not None else None
        if tag == "categorical":
            families.append("categorical")
        elif values.dtype == object:
            fam = None
            for i in (rows if rows is not None else range(n_rows)):
                if missing[j][i]:
                    continue
                f = _family(values[i])
                if f is None:
                    raise TypeError(f"column {names[j]!r} has a value of unsupported type "
                                    f"{type(values[i]).__name__} at {where(i)}")
                if fam is None:
                    fam, first = f, i
                elif f != fam:
                    raise TypeError(f"column {names[j]!r} mixes types: {type(values[first]).__name__}"
                                    f" at {where(first)}, {type(values[i]).__name__} at {where(i)}")
            if fam == "number":  # ints, or reals (some of them whole, perhaps)
                present = [values[i] for i in (rows if rows is not None else range(n_rows))
                           if not missing[j][i]]
                whole = all(isinstance(v, numbers.Integral) for v in present)
                fam = "int" if whole else "float"
            families.append(fam)
        elif values.dtype == np.bool_:
            families.append("bool")
        elif not (np.issubdtype(values.dtype, np.floating)
                  or np.issubdtype(values.dtype, np.integer)):
            raise TypeError(f"column {names[j]!r} holds values of dtype {values.dtype}: "
                            f"expected integers, reals, bools or strings")
        elif np.issubdtype(values.dtype, np.floating):
            families.append("float")
        else:
            families.append("int")

    def kept(values):
        return values if keep is None else values[keep]

    if kind is None:
        non_whole = []
        for j, (fam, (tag, values, _)) in enumerate(zip(families, columns)):
            if fam == "float" and _non_whole(_floats(kept(values), names[j])) is not None:
                non_whole.append(j)
        if not non_whole:
            kind = "discrete"
        else:
            other = [j for j, fam in enumerate(families) if fam != "float"]
            if other:
                raise TypeError(f"cannot tell the kind of data: column {names[non_whole[0]]!r} "
                                f"holds real numbers, column {names[other[0]]!r} does not; "
                                f"pass kind='discrete' or kind='gaussian'")
            kind = "gaussian"

    if kind == "gaussian":
        out = np.empty((n_rows - n_dropped, n_vars), dtype=np.float64)
        for j, (fam, (tag, values, _)) in enumerate(zip(families, columns)):
            if fam not in ("float", "int"):
                rows = np.flatnonzero(~any_missing)
                raise TypeError(f"column {names[j]!r} is not numeric ({fam} values, e.g. at "
                                f"{where(int(rows[0]))}): Gaussian data must be real numbers")
            column = _floats(kept(values), names[j])
            bad = np.flatnonzero(~np.isfinite(column))
            if bad.size:
                i = int(np.flatnonzero(~any_missing)[bad[0]])
                raise ValueError(f"column {names[j]!r} has an infinite value at {where(i)}")
            out[:, j] = column
        _warn_gaussian_constant(names, out, 4)
        return Dataset(out, names, n_dropped=n_dropped)

    codes, states = [], []
    for j, (fam, (tag, values, categories)) in enumerate(zip(families, columns)):
        if tag == "categorical":
            codes.append(kept(values))
            states.append(tuple(categories))
            continue
        column = kept(values)
        if fam == "float":
            column = _floats(column, names[j])
            bad = np.flatnonzero(~np.isfinite(column))
            if bad.size:
                i = int(np.flatnonzero(~any_missing)[bad[0]])
                raise ValueError(f"column {names[j]!r} has an infinite value at {where(i)}")
            if _non_whole(column) is None and np.all(np.abs(column) < 2.0**63):
                # whole numbers become ints; beyond int64 they stay distinct floats
                column = column.astype(np.int64)
        uniques, inverse = np.unique(column, return_inverse=True)
        codes.append(inverse.reshape(-1))
        states.append(tuple(_python(u) for u in uniques))
    arities = [max(len(s), 1) for s in states]
    _warn_constant(names, arities, 4)
    values = np.empty((n_rows - n_dropped, n_vars), dtype=_code_dtype(arities))
    for j, c in enumerate(codes):
        values[:, j] = c
    return Dataset(values, names, arities, states, n_dropped=n_dropped)


__all__ = ["KINDS", "MISSING_TOKENS", "Dataset"]
