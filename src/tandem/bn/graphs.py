"""The graphs of structure learning: Markov equivalence classes (CPDAGs), an
acyclic graph from edge posteriors, and export to DOT, GraphML and networkx.

Adjacency matrices are indexed ``[parent, child]``. A partially directed
graph (PDAG) is a bool matrix in which an undirected edge ``a - b`` holds
both ``[a, b]`` and ``[b, a]``; a DAG is a PDAG without undirected edges or
cycles. :func:`tandem.bn.diagnostics.structural_hamming_distance` compares
PDAGs too: an undirected edge against a directed one counts once.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np

from .. import checks, files
from .diagnostics import _adjacency, _square
from .._types import ArrayLike

__all__ = ["is_acyclic", "cpdag", "thresholded_dag", "to_dot", "write_graphml",
           "to_networkx"]


def is_acyclic(adjacency) -> bool:
    """Whether the directed graph ``adjacency`` (``[parent, child]``) has no cycle.

    Examples
    --------
    >>> import numpy as np
    >>> is_acyclic(np.array([[0, 1], [0, 0]], dtype=bool))
    True
    >>> is_acyclic(np.array([[0, 1], [1, 0]], dtype=bool))
    False
    """
    a = _adjacency(adjacency, "adjacency")
    indegree = a.sum(axis=0)
    ready = list(np.flatnonzero(indegree == 0))
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for child in np.flatnonzero(a[v]):
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    return seen == a.shape[0]


def _orient(pdag, a, b):
    """Make the undirected edge ``a - b`` the arc ``a -> b``; whether it was undirected."""
    if pdag[a, b] and pdag[b, a]:
        pdag[b, a] = False
        return True
    return False


def _meek_pass(g):
    """One pass of Meek's rules 1 to 3 over the undirected edges of the PDAG
    ``g`` (in place); whether any edge was oriented."""
    directed = g & ~g.T
    undirected = g & g.T
    adjacent = g | g.T
    changed = False
    for a, b in zip(*np.nonzero(np.triu(undirected))):
        for x, y in ((a, b), (b, a)):
            if not (g[x, y] and g[y, x]):
                continue
            # rule 1: c -> x - y with c, y not adjacent: x -> y
            rule1 = np.any(directed[:, x] & ~adjacent[:, y])
            # rule 2: x -> c -> y and x - y: x -> y
            rule2 = np.any(directed[x, :] & directed[:, y])
            # rule 3: x - c -> y and x - d -> y with c, d not adjacent: x -> y
            cs = np.flatnonzero(undirected[x] & directed[:, y])
            rule3 = any(not adjacent[c, d] for i, c in enumerate(cs) for d in cs[i + 1:])
            if rule1 or rule2 or rule3:
                _orient(g, x, y)
                directed[x, y], undirected[x, y], undirected[y, x] = True, False, False
                changed = True
                break
    return changed


def cpdag(dag: ArrayLike) -> np.ndarray:
    """The completed PDAG (essential graph) of the Markov equivalence class of ``dag``.

    Arcs in v-structures ``a -> c <- b`` (``a``, ``b`` not adjacent) stay
    directed, as does every arc that Meek's rules 1 to 3 then compel; the
    other edges become undirected. Markov-equivalent DAGs have the same
    CPDAG (Chickering 1995; Meek 1995).

    Parameters
    ----------
    dag : array_like of bool, shape (n, n)
        An acyclic ``[parent, child]`` adjacency.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        The CPDAG: an undirected edge holds both ``[a, b]`` and ``[b, a]``.

    Examples
    --------
    >>> import numpy as np
    >>> from tandem.bn import cpdag
    >>> d = np.zeros((3, 3), dtype=bool)
    >>> d[0, 1] = d[1, 2] = True          # a chain 0 -> 1 -> 2
    >>> cpdag(d).astype(int).tolist()     # equivalent to 0 <- 1 <- 2: undirected
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    >>> d[1, 2], d[2, 1] = False, True    # a collider 0 -> 1 <- 2
    >>> cpdag(d).astype(int).tolist()
    [[0, 1, 0], [0, 0, 0], [0, 1, 0]]
    """
    d = _adjacency(dag, "dag")
    if not is_acyclic(d):
        raise ValueError("dag has a cycle")
    n = d.shape[0]
    adjacent = d | d.T
    g = adjacent.copy()  # every edge undirected ...
    for c in range(n):  # ... but those of v-structures
        parents = np.flatnonzero(d[:, c])
        for i, a in enumerate(parents):
            for b in parents[i + 1:]:
                if not adjacent[a, b]:
                    g[c, a] = g[c, b] = False
    while _meek_pass(g):
        pass
    return g


def thresholded_dag(probabilities: ArrayLike, threshold: float = 0.5) -> np.ndarray:
    """An acyclic graph of the edges whose posterior probability passes ``threshold``.

    The edges above ``threshold`` are added from the most probable down (ties
    by index, row-major); an edge that would close a directed cycle is left
    out. Where both directions pass, the more probable comes first and the
    other then closes a cycle.

    Parameters
    ----------
    probabilities : array_like, shape (n, n)
        Edge probabilities ``[parent, child]``, for example
        :attr:`OrderMCMCResult.edge_probabilities`.
    threshold : float, default 0.5
        Edges with a probability strictly above it are candidates.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        The acyclic graph ``[parent, child]`` of the edges kept.

    Examples
    --------
    >>> import numpy as np
    >>> from tandem.bn import thresholded_dag
    >>> p = np.array([[0, .9, .6], [0, 0, .7], [.55, 0, 0]])
    >>> thresholded_dag(p).astype(int).tolist()   # 2 -> 0 would close 0 -> 1 -> 2
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    p = np.asarray(_square(probabilities, "probabilities"), dtype=np.float64)
    if np.isnan(p).any():
        raise ValueError("probabilities hold NaN")
    n = p.shape[0]
    dag = np.zeros((n, n), dtype=bool)
    reach = np.eye(n, dtype=bool)  # reach[a, b]: a path from a to b
    above = np.argwhere((p > threshold) & ~np.eye(n, dtype=bool))
    order = np.lexsort((above[:, 1], above[:, 0], -p[above[:, 0], above[:, 1]]))
    for a, b in above[order]:
        if reach[b, a]:
            continue
        dag[a, b] = True
        reach |= np.outer(reach[:, a], reach[b])
    return dag


def _edges(pdag):
    """``(directed arcs, undirected edges)`` of the PDAG as index pairs (an
    undirected edge once, with its lower index first)."""
    g = _adjacency(pdag, "pdag")
    undirected = g & g.T
    return np.argwhere(g & ~g.T), np.argwhere(np.triu(undirected))


def _names(names, n):
    names = [str(x) for x in (range(n) if names is None else names)]
    if len(names) != n:
        raise ValueError(f"names has {len(names)} entries for {n} nodes")
    for j, name in enumerate(names):
        checks.label(name, f"names[{j}]")
    return names


def to_dot(pdag, names=None, probabilities=None) -> str:
    """The PDAG in Graphviz's DOT language: arcs as ``a -> b``, undirected edges
    with ``dir=none``, each labelled with its probability when given.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.array([[0, 1], [0, 0]], dtype=bool)
    >>> print(to_dot(g, ["rain", "wet"]))
    digraph {
      "rain";
      "wet";
      "rain" -> "wet";
    }
    """
    arcs, lines = _edges(pdag)
    names = _names(names, np.shape(pdag)[0])

    def quoted(i):
        return '"' + names[i].replace("\\", "\\\\").replace('"', '\\"') + '"'

    def label(a, b):
        if probabilities is None:
            return ""
        return f' [label="{float(np.asarray(probabilities)[a, b]):.3f}"]'

    out = ["digraph {"] + [f"  {quoted(i)};" for i in range(len(names))]
    out += [f"  {quoted(a)} -> {quoted(b)}{label(a, b)};" for a, b in arcs]
    out += [f"  {quoted(a)} -> {quoted(b)} [dir=none"
            + (f', label="{float(np.asarray(probabilities)[a, b]):.3f}/'
               f'{float(np.asarray(probabilities)[b, a]):.3f}"' if probabilities is not None
               else "") + "];" for a, b in lines]
    return "\n".join(out + ["}"])


def _xml(text):
    return escape(text, {'"': "&quot;"})


def write_graphml(pdag, path, names=None, probabilities=None) -> None:
    """Write the PDAG as GraphML: a directed graph whose edges carry
    ``undirected`` (an undirected edge is written once) and, when given,
    ``probability`` (of the edge as written).

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> g = np.array([[0, 1], [1, 0]], dtype=bool)        # one undirected edge
    >>> path = os.path.join(tempfile.mkdtemp(), "g.graphml")
    >>> write_graphml(g, path, ["a", "b"])
    >>> "undirected" in open(path).read()
    True
    """
    arcs, lines = _edges(pdag)
    names = _names(names, np.shape(pdag)[0])
    p = None if probabilities is None else np.asarray(probabilities, dtype=np.float64)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
           '  <key id="undirected" for="edge" attr.name="undirected" attr.type="boolean"/>']
    if p is not None:
        out.append('  <key id="probability" for="edge" attr.name="probability" '
                   'attr.type="double"/>')
    out.append('  <graph id="G" edgedefault="directed">')
    out += [f'    <node id="{_xml(name)}"/>' for name in names]
    for pairs, undirected in ((arcs, "false"), (lines, "true")):
        for a, b in pairs:
            out.append(f'    <edge source="{_xml(names[a])}" target="{_xml(names[b])}">')
            out.append(f'      <data key="undirected">{undirected}</data>')
            if p is not None:
                out.append(f'      <data key="probability">{float(p[a, b])!r}</data>')
            out.append("    </edge>")
    out += ["  </graph>", "</graphml>", ""]
    files.write_text(path, "\n".join(out))


def to_networkx(pdag, names=None, probabilities=None):
    """The PDAG as a ``networkx.DiGraph`` (networkx must be installed): nodes
    named by ``names``, an undirected edge as two arcs marked
    ``undirected=True``, and each arc's ``probability`` when given.

    Examples
    --------
    >>> import numpy as np
    >>> g = to_networkx(np.array([[0, 1], [0, 0]], dtype=bool), ["a", "b"])
    >>> list(g.edges(data=True))
    [('a', 'b', {'undirected': False})]
    """
    import networkx as nx

    g = _adjacency(pdag, "pdag")
    names = _names(names, g.shape[0])
    p = None if probabilities is None else np.asarray(probabilities, dtype=np.float64)
    out = nx.DiGraph()
    out.add_nodes_from(names)
    for a, b in np.argwhere(g):
        attributes = {"undirected": bool(g[b, a])}
        if p is not None:
            attributes["probability"] = float(p[a, b])
        out.add_edge(names[a], names[b], **attributes)
    return out
