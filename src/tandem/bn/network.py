"""Discrete Bayesian networks: the BIF reader, the shipped networks, forward sampling.

:func:`read_bif` reads the Bayesian Interchange Format (plain or gzipped) into
a :class:`Network`; :func:`load_network` reads one of the networks shipped in
``tandem/bn/networks`` (see its README for their sources and licence).
:meth:`Network.sample` draws a :class:`~tandem.bn.data.Dataset` on tandem
streams: the same stream gives the same data, bit for bit, everywhere.
"""

from __future__ import annotations

import gzip
import math
import numbers
import os
import re
import zlib
from dataclasses import dataclass
from importlib import resources
from collections.abc import Sequence
from typing import Optional

import numpy as np

from ..stream import Philox, Stream
from .data import Dataset, _code_dtype

#: The names of the networks shipped with tandem, smallest first: from the
#: bnlearn repository (CC BY-SA 3.0; ``tandem/bn/networks/README.md`` gives
#: their sources and checksums), each read by :func:`tandem.bn.load_network`.
NETWORKS = ("cancer", "earthquake", "asia", "survey", "sachs", "child", "insurance", "alarm")

#: Purpose of the stream that :meth:`Network.sample` derives; node ``i`` draws
#: its uniforms from ``stream.sub(PURPOSE_SAMPLE).split(i)``.
PURPOSE_SAMPLE = "tandem.bn.sample"

#: How far a CPT row's sum may stray from 1 before :func:`read_bif` refuses it.
ROW_SUM_TOLERANCE = 1e-4


@dataclass(frozen=True, eq=False)
class Network:
    """A discrete Bayesian network.

    Usually read by :func:`tandem.bn.read_bif` or :func:`tandem.bn.load_network`.
    Frozen: each parameter is kept as the attribute of the same name (the
    CPTs as read-only float64 copies). Networks compare by identity.

    Parameters
    ----------
    names : tuple of str
        The nodes, in the order of the file; unique.
    states : tuple of tuple of str
        ``states[i]`` are the states of node ``i``, in order; codes index them.
    parents : tuple of tuple of int
        ``parents[i]`` are the parents of node ``i``, in the order of its CPT's axes.
    cpts : tuple of array_like
        ``cpts[i][a_1, ..., a_p, x]`` is ``P(node i = x | parents[i] = (a_1, ..., a_p))``;
        kept as float64, read-only, shape ``(*parent arities, arity of i)``.
    name : str, default "unknown"
        The network's name.

    Raises
    ------
    ValueError
        If the four sequences differ in length, a name repeats, a parent
        index is out of range or the node itself, a CPT has the wrong shape,
        or the parents form a directed cycle.

    See Also
    --------
    tandem.bn.read_bif : Read a network from a BIF file or text.
    tandem.bn.load_network : Read one of the shipped networks.

    Examples
    --------
    >>> from tandem.bn import Network
    >>> network = Network(names=("rain", "wet"), states=(("no", "yes"), ("no", "yes")),
    ...                   parents=((), (0,)), cpts=([0.8, 0.2], [[0.9, 0.1], [0.2, 0.8]]),
    ...                   name="tiny")
    >>> network
    Network('tiny', 2 nodes, 1 arcs)
    >>> network.cpts[1].dtype, network.cpts[1].flags.writeable
    (dtype('float64'), False)
    """

    names: tuple
    states: tuple
    parents: tuple
    cpts: tuple
    name: str = "unknown"

    def __post_init__(self):
        n = len(self.names)
        if not (len(self.states) == len(self.parents) == len(self.cpts) == n):
            raise ValueError("names, states, parents and cpts must have one entry per node")
        if len(set(self.names)) != n:
            raise ValueError("node names must be unique")
        cpts = []
        for i in range(n):
            for p in self.parents[i]:
                if not 0 <= p < n or p == i:
                    raise ValueError(f"node {self.names[i]!r} has an invalid parent index {p}")
            shape = tuple(len(self.states[p]) for p in self.parents[i]) + (len(self.states[i]),)
            cpt = np.array(self.cpts[i], dtype=np.float64)
            if cpt.shape != shape:
                raise ValueError(f"the CPT of {self.names[i]!r} has shape {cpt.shape}, "
                                 f"expected {shape}")
            cpt.flags.writeable = False
            cpts.append(cpt)
        object.__setattr__(self, "cpts", tuple(cpts))
        object.__setattr__(self, "_order", _topological_order(self.names, self.parents))

    @property
    def n_nodes(self) -> int:
        """The number of nodes.

        Returns
        -------
        int
            ``len(names)``.

        Examples
        --------
        >>> from tandem import bn
        >>> bn.load_network("asia").n_nodes
        8
        """
        return len(self.names)

    @property
    def arities(self) -> tuple:
        """The number of states of each node.

        Returns
        -------
        tuple of int
            ``len(states[i])`` for each node ``i``.

        Examples
        --------
        >>> from tandem import bn
        >>> bn.load_network("cancer").arities
        (2, 2, 2, 2, 2)
        """
        return tuple(len(s) for s in self.states)

    @property
    def order(self) -> tuple:
        """A topological order (parents first), ties broken by node index.

        Returns
        -------
        tuple of int
            Every node index once, each after its parents; the order
            :meth:`sample` draws the nodes in.

        Examples
        --------
        >>> from tandem import bn
        >>> network = bn.load_network("cancer")
        >>> network.parents
        ((), (), (0, 1), (2,), (2,))
        >>> network.order
        (0, 1, 2, 3, 4)
        """
        return self._order

    @property
    def edges(self) -> tuple:
        """The arcs as ``(parent name, child name)`` pairs, child by child.

        Returns
        -------
        tuple of tuple of str
            For each node in turn, its arcs from its parents, in the order of
            ``parents``.

        Examples
        --------
        >>> from tandem import bn
        >>> bn.load_network("cancer").edges
        (('Pollution', 'Cancer'), ('Smoker', 'Cancer'), ('Cancer', 'Xray'), ('Cancer', 'Dyspnoea'))
        """
        return tuple((self.names[p], self.names[i])
                     for i in range(self.n_nodes) for p in self.parents[i])

    def index(self, node: str | int) -> int:
        """The index of ``node`` (a name or an index).

        Parameters
        ----------
        node : str or int
            A node name, or an index in ``range(n_nodes)``.

        Returns
        -------
        int
            The node's index in ``names``.

        Raises
        ------
        ValueError
            For an unknown name or an index out of range.
        TypeError
            For anything but a str or an integer (a bool included).

        Examples
        --------
        >>> from tandem import bn
        >>> network = bn.load_network("asia")
        >>> network.index("lung"), network.index(3)
        (3, 3)
        """
        if isinstance(node, str):
            try:
                return self.names.index(node)
            except ValueError:
                raise ValueError(f"network {self.name!r} has no node {node!r}") from None
        if isinstance(node, (bool, np.bool_)) or not isinstance(node, numbers.Integral):
            raise TypeError(f"a node is a name or an index, got {type(node).__name__}")
        if not 0 <= node < self.n_nodes:
            raise ValueError(f"node index {node} outside range({self.n_nodes})")
        return int(node)

    def adjacency(self, names: Optional[Sequence[str]] = None) -> np.ndarray:
        """The arcs as a bool matrix, ``A[parent, child]``.

        Parameters
        ----------
        names : sequence of str, optional
            The order of rows and columns (for example a data set's
            ``names``): a permutation of the network's node names. Default:
            the network's order.

        Returns
        -------
        numpy.ndarray of bool, shape (n_nodes, n_nodes)
            ``A[p, c]`` is True when ``p`` is a parent of ``c``, rows and
            columns in the order of ``names``.

        Raises
        ------
        ValueError
            If ``names`` is not a permutation of the node names.

        Examples
        --------
        >>> from tandem import bn
        >>> network = bn.load_network("cancer")
        >>> network.adjacency().astype(int).tolist()
        [[0, 0, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
        >>> a = network.adjacency(["Cancer", "Xray", "Dyspnoea", "Pollution", "Smoker"])
        >>> a[0].astype(int).tolist()
        [0, 1, 1, 0, 0]
        """
        if names is None:
            perm = np.arange(self.n_nodes)
        else:
            names = tuple(names)
            if sorted(names) != sorted(self.names):
                raise ValueError("names must be a permutation of the network's node names")
            perm = np.array([self.names.index(s) for s in names])
        a = np.zeros((self.n_nodes, self.n_nodes), dtype=bool)
        for i in range(self.n_nodes):
            for p in self.parents[i]:
                a[p, i] = True
        return a[np.ix_(perm, perm)]

    def sample(self, n: int, stream: Stream | int) -> Dataset:
        """Forward-sample ``n`` rows.

        Parameters
        ----------
        n : int
            Number of rows, at least 1.
        stream : tandem.Stream or int
            The stream (an int is the seed of a :class:`tandem.Philox`).
            Node ``i`` takes ``n`` float64 uniforms from
            ``stream.sub(PURPOSE_SAMPLE).split(i)`` and maps them by inverse
            CDF through its CPT row (states in order); so the data depend only
            on the stream, ``n`` and the network, and row ``j`` is the same
            for every ``n > j``.

        Returns
        -------
        Dataset
            Discrete, with the network's names, states and arities.

        Raises
        ------
        TypeError
            If ``n`` is not an integer, or ``stream`` neither a stream nor an
            integer.
        ValueError
            If ``n`` is less than 1.

        Examples
        --------
        >>> import tandem
        >>> from tandem import bn
        >>> network = bn.load_network("asia")
        >>> data = network.sample(200, tandem.Philox(1))
        >>> data
        Dataset(discrete, 200 rows, 8 variables)
        >>> data.names == network.names
        True
        >>> bool((network.sample(5, tandem.Philox(1)).codes == data.codes[:5]).all())
        True
        """
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
            raise TypeError(f"n must be an integer, got {type(n).__name__}")
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        if not isinstance(stream, Stream):
            if isinstance(stream, (bool, np.bool_)) or not isinstance(stream, numbers.Integral):
                raise TypeError(f"stream must be a tandem Stream or an integer seed, got "
                                f"{type(stream).__name__}")
            stream = Philox(stream)
        n = int(n)
        base = stream.sub(PURPOSE_SAMPLE)
        codes = np.empty((n, self.n_nodes), dtype=_code_dtype(self.arities))
        for i in self._order:
            u, _ = base.split(i).random(n)
            arity = len(self.states[i])
            cpt = self.cpts[i].reshape(-1, arity)
            config = np.zeros(n, dtype=np.int64)
            for p in self.parents[i]:
                config *= len(self.states[p])
                config += codes[:, p]
            thresholds = _thresholds(cpt)
            x = np.zeros(n, dtype=np.int64)
            for k in range(arity - 1):
                x += u >= thresholds[config, k]
            codes[:, i] = x
        return Dataset(codes, self.names, self.arities, self.states)

    def __repr__(self):
        n_arcs = sum(len(p) for p in self.parents)
        return f"Network({self.name!r}, {self.n_nodes} nodes, {n_arcs} arcs)"


def _thresholds(cpt):
    """Inverse-CDF thresholds per row: state ``x`` is the number of thresholds ``<= u``.

    Rows are normalised by their sum; thresholds from the last state of
    positive probability on are infinite, so a state of probability zero is
    never drawn, whatever the rounding of the cumulative sums.
    """
    total = cpt.sum(axis=1, keepdims=True)
    cdf = np.cumsum(cpt, axis=1) / total
    arity = cpt.shape[1]
    last = arity - 1 - np.argmax(cpt[:, ::-1] > 0, axis=1)
    cdf[np.arange(arity)[None, :] >= last[:, None]] = np.inf
    return cdf[:, :-1]


def _topological_order(names, parents):
    n = len(names)
    children = [[] for _ in range(n)]
    indegree = [len(p) for p in parents]
    for i in range(n):
        for p in parents[i]:
            children[p].append(i)
    import heapq

    ready = [i for i in range(n) if indegree[i] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for c in children[i]:
            indegree[c] -= 1
            if indegree[c] == 0:
                heapq.heappush(ready, c)
    if len(order) != n:
        stuck = [names[i] for i in range(n) if indegree[i] > 0]
        raise ValueError(f"the network has a directed cycle through {stuck[:5]}")
    return tuple(order)


# -- BIF -------------------------------------------------------------------------------

_TOKEN = re.compile(r'\s+|//[^\n]*|/\*.*?\*/|"([^"]*)"|([{}()\[\],;|])|((?:[^\s{}()\[\],;|"/]|/(?![/*]))+)|(.)',
                    re.DOTALL)


class _Line:
    """A token's line number, counted only when a message prints it."""

    __slots__ = ("offset", "tokens")

    def __init__(self, tokens, offset):
        self.tokens, self.offset = tokens, offset

    def __format__(self, spec):
        return format(self.tokens.line(self.offset), spec)

    __str__ = __repr__ = lambda self: str(self.tokens.line(self.offset))


class _Tokens:
    def __init__(self, text):
        self.text = text
        self.items = []  # (kind, value, offset): kind "word" or "punct"
        append = self.items.append
        for m in _TOKEN.finditer(text):
            group = m.lastindex
            if group is None:
                continue
            if group == 2:
                append(("punct", m.group(2), m.start()))
            elif group == 4:
                raise ValueError(f"BIF line {self.line(m.start())}: cannot read "
                                 f"{text[m.start():m.start() + 20]!r}")
            else:
                append(("word", m.group(group), m.start()))
        self.i = 0

    def line(self, offset):
        return self.text.count("\n", 0, offset) + 1

    def peek(self):
        return self.items[self.i] if self.i < len(self.items) else ("end", None, -1)

    def next(self):
        """The next (kind, value, line)."""
        item = self.peek()
        if item[0] == "end":
            raise ValueError("BIF: unexpected end of text")
        self.i += 1
        return item[0], item[1], _Line(self, item[2])

    def expect(self, value):
        _kind, v, line = self.next()
        if v != value:
            raise ValueError(f"BIF line {line}: expected {value!r}, found {v!r}")

    def word(self):
        kind, v, line = self.next()
        if kind != "word":
            raise ValueError(f"BIF line {line}: expected a name, found {v!r}")
        return v

    def skip_statement(self):
        while self.next()[1] != ";":
            pass

    def words_until(self, stop, keep=()):
        """Words (and the punctuation in ``keep``) up to the punctuation ``stop``,
        commas ignored; consumes ``stop``."""
        out = []
        while True:
            kind, v, line = self.next()
            if v == stop and kind == "punct":
                return out
            if v == "," and kind == "punct":
                continue
            if kind != "word" and v not in keep:
                raise ValueError(f"BIF line {line}: unexpected {v!r}")
            out.append(v)


def _numbers(words, line, what):
    try:
        return [float(w) for w in words]
    except ValueError:
        raise ValueError(f"BIF line {line}: {what} has a value that is not a number") from None


def _is_bif_text(source):
    """Whether ``source`` is BIF text, not a path: a ``str`` holding ``{`` and a
    space or line break that names no file."""
    return (isinstance(source, str) and "{" in source and any(c.isspace() for c in source)
            and not os.path.exists(source))


def _read_text(path):
    """The text of the BIF file ``path`` (gunzipped when it ends in ``.gz``); a file
    that is not gzip or UTF-8, or is cut short, raises ``ValueError`` naming it."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            return f.read()
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as error:
        raise ValueError(f"{path!r} cannot be read as BIF: {type(error).__name__}: "
                         f"{error}") from None


def read_bif(source: str | os.PathLike) -> Network:
    """Read a network in the Bayesian Interchange Format.

    Parameters
    ----------
    source : str or os.PathLike
        A path (``.gz`` files are decompressed) or the BIF text itself (a
        string holding ``{`` and a space or line break, that names no file).

    Returns
    -------
    Network
        Nodes in the order of their ``variable`` blocks; parents in the order
        of each ``probability`` header. Conditional entries ``(states) p ...;``,
        ``table`` (child state slowest, last parent fastest, as pgmpy reads it)
        and ``default`` rows are understood; ``property`` lines are skipped.

    Raises
    ------
    ValueError
        Naming the file: one cut short, or not gzip or UTF-8 text.  Naming
        the line or node: text with no variable, syntax errors, unknown nodes
        or states, a missing or repeated CPT, a CPT row that is incomplete, negative, or
        whose sum strays from 1 by more than ``ROW_SUM_TOLERANCE``, a cycle.

    Examples
    --------
    >>> from tandem.bn import read_bif
    >>> network = read_bif('''
    ... network tiny { }
    ... variable rain { type discrete [ 2 ] { no, yes }; }
    ... variable wet { type discrete [ 2 ] { no, yes }; }
    ... probability ( rain ) { table 0.8, 0.2; }
    ... probability ( wet | rain ) { (no) 0.9, 0.1; (yes) 0.2, 0.8; }
    ... ''')
    >>> network, network.edges
    (Network('tiny', 2 nodes, 1 arcs), (('rain', 'wet'),))
    >>> network.cpts[1].tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """
    name = "unknown"
    if _is_bif_text(source):
        text = source
    else:
        path = os.fspath(source)
        text = _read_text(path)
        name = os.path.basename(path).split(".")[0]
    tokens = _Tokens(text)
    variables, declared_lines = {}, {}
    blocks = []
    while tokens.peek()[0] != "end":
        _kind, keyword, line = tokens.next()
        if keyword == "network":
            found = tokens.word()
            if found != "unknown" or name == "unknown":
                name = found
            tokens.expect("{")
            while tokens.peek()[1] != "}":
                tokens.skip_statement()
            tokens.expect("}")
        elif keyword == "variable":
            var = tokens.word()
            if var in variables:
                raise ValueError(f"BIF line {line}: variable {var!r} declared twice")
            tokens.expect("{")
            states = None
            while tokens.peek()[1] != "}":
                _kind, v, line2 = tokens.next()
                if v == "type":
                    if tokens.word() != "discrete":
                        raise ValueError(f"BIF line {line2}: {var!r} is not discrete")
                    tokens.expect("[")
                    count = tokens.word()
                    tokens.expect("]")
                    tokens.expect("{")
                    states = tuple(tokens.words_until("}"))
                    tokens.expect(";")
                    if not count.isdigit() or int(count) != len(states):
                        raise ValueError(f"BIF line {line2}: {var!r} declares {count} states "
                                         f"and lists {len(states)}")
                    if len(set(states)) != len(states):
                        raise ValueError(f"BIF line {line2}: {var!r} repeats a state")
                elif v == "property":
                    tokens.skip_statement()
                else:
                    raise ValueError(f"BIF line {line2}: unexpected {v!r} in variable {var!r}")
            tokens.expect("}")
            if not states:
                raise ValueError(f"BIF line {line}: variable {var!r} has no states")
            variables[var] = states
            declared_lines[var] = line
        elif keyword == "probability":
            tokens.expect("(")
            header = tokens.words_until(")", keep=("|",))
            if "|" in header:
                cut = header.index("|")
                child, parents = header[:cut], header[cut + 1:]
            else:
                child, parents = header[:1], header[1:]
            if len(child) != 1:
                raise ValueError(f"BIF line {line}: a probability block names one child")
            parents = [p for p in parents if p != "|"]
            tokens.expect("{")
            entries = []
            while tokens.peek()[1] != "}":
                _kind, v, line2 = tokens.next()
                if v == "(":
                    config = tokens.words_until(")")
                    entries.append(("row", config, tokens.words_until(";"), line2))
                elif v in ("table", "default"):
                    entries.append((v, None, tokens.words_until(";"), line2))
                elif v == "property":
                    tokens.skip_statement()
                else:
                    raise ValueError(f"BIF line {line2}: unexpected {v!r} in probability block")
            tokens.expect("}")
            blocks.append((child[0], parents, entries, line))
        else:
            raise ValueError(f"BIF line {line}: unexpected {keyword!r}")

    if not variables:
        raise ValueError("BIF: no variable blocks: the text is not a network")
    names = tuple(variables)
    index = {v: i for i, v in enumerate(names)}
    parents_of = [None] * len(names)
    cpts = [None] * len(names)
    for child, parents, entries, line in blocks:
        for v in [child] + parents:
            if v not in index:
                raise ValueError(f"BIF line {line}: {v!r} is not a declared variable")
        i = index[child]
        if cpts[i] is not None:
            raise ValueError(f"BIF line {line}: a second probability block for {child!r}")
        if len(set(parents)) != len(parents) or child in parents:
            raise ValueError(f"BIF line {line}: {child!r} has a repeated or self parent")
        parents_of[i] = tuple(index[p] for p in parents)
        cpts[i] = _cpt(child, variables[child], [(p, variables[p]) for p in parents],
                       entries, line)
    missing = [v for v, c in zip(names, cpts) if c is None]
    if missing:
        raise ValueError(f"BIF: no probability block for {missing[:5]}")
    return Network(names, tuple(variables[v] for v in names), tuple(parents_of),
                   tuple(cpts), name)


def _cpt(child, states, parents, entries, line):
    arity = len(states)
    shape = tuple(len(s) for _, s in parents)
    q = math.prod(shape)
    rows = np.full((q, arity), np.nan)
    lookups = [{s: c for c, s in enumerate(pstates)} for _, pstates in parents]
    default = None
    for what, config, words, line2 in entries:
        values = _numbers(words, line2, f"the CPT of {child!r}")
        if what == "table":
            if len(values) != q * arity:
                raise ValueError(f"BIF line {line2}: the table of {child!r} has {len(values)} "
                                 f"values, expected {q * arity}")
            rows[:] = np.array(values).reshape(arity, q).T
            continue
        if len(values) != arity:
            raise ValueError(f"BIF line {line2}: a row of {child!r} has {len(values)} values, "
                             f"expected {arity}")
        if what == "default":
            default = values
            continue
        if len(config) != len(parents):
            raise ValueError(f"BIF line {line2}: a row of {child!r} names {len(config)} parent "
                             f"states, expected {len(parents)}")
        j = 0
        for (pname, pstates), lookup, s in zip(parents, lookups, config):
            if s not in lookup:
                raise ValueError(f"BIF line {line2}: {s!r} is not a state of {pname!r}")
            j = j * len(pstates) + lookup[s]
        rows[j] = values
    unset = np.isnan(rows).any(axis=1)
    if unset.any():
        if default is None:
            raise ValueError(f"BIF line {line}: the CPT of {child!r} misses "
                             f"{int(unset.sum())} parent configuration(s)")
        rows[unset] = default
    if (rows < 0).any() or not np.isfinite(rows).all():
        raise ValueError(f"BIF line {line}: the CPT of {child!r} has a negative or "
                         f"non-finite entry")
    sums = rows.sum(axis=1)
    worst = int(np.argmax(np.abs(sums - 1)))
    if abs(sums[worst] - 1) > ROW_SUM_TOLERANCE:
        raise ValueError(f"BIF line {line}: a row of the CPT of {child!r} sums to "
                         f"{float(sums[worst])!r}, not 1")
    return rows.reshape(shape + (arity,))


def load_network(name: str) -> Network:
    """One of the networks shipped with tandem (:data:`NETWORKS`), read by :func:`read_bif`.

    They come from the bnlearn Bayesian network repository (CC BY-SA 3.0);
    ``tandem/bn/networks/README.md`` gives their sources and checksums.

    Parameters
    ----------
    name : str
        One of :data:`NETWORKS`: ``"cancer"``, ``"earthquake"``, ``"asia"``,
        ``"survey"``, ``"sachs"``, ``"child"``, ``"insurance"`` or ``"alarm"``.

    Returns
    -------
    Network
        The network, named ``name``.

    Raises
    ------
    ValueError
        For a name not in :data:`NETWORKS`.

    Examples
    --------
    >>> from tandem import bn
    >>> network = bn.load_network("asia")
    >>> network
    Network('asia', 8 nodes, 8 arcs)
    >>> network.names
    ('asia', 'tub', 'smoke', 'lung', 'bronc', 'either', 'xray', 'dysp')
    """
    if name not in NETWORKS:
        raise ValueError(f"unknown network {name!r}; shipped: {', '.join(NETWORKS)}")
    resource = resources.files(__package__).joinpath("networks", f"{name}.bif.gz")
    with resource.open("rb") as f:
        text = gzip.decompress(f.read()).decode("utf-8")
    network = read_bif(text)
    return Network(network.names, network.states, network.parents, network.cpts, name)


__all__ = ["NETWORKS", "PURPOSE_SAMPLE", "Network", "load_network", "read_bif"]
