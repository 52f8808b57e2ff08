"""The package's imports point one way: no module imports, at any depth and
from any function, a module that imports it back."""

import ast
import pathlib

import tandem

ROOT = pathlib.Path(tandem.__file__).resolve().parent


def _module_name(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, name):
    """The tandem modules that ``path`` (module ``name``) imports anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.level and node.module else (
                base if node.level else node.module or "")
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _graph():
    paths = {_module_name(p): p for p in ROOT.rglob("*.py")}
    return {name: {m for m in _imports(path, name) if m in paths and m != name}
            for name, path in paths.items()}


def _cycle(graph):
    """One import cycle as a list of modules, or None."""
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return trail[trail.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, trail + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


# ``from . import x`` names the package as well as ``x``; the package's
# __init__ imports its submodules (re-exports), so a module's edges to its
# own ancestor packages are left out, and the edge that matters, to ``x``, is
# kept.
def _without_package_inits(graph):
    return {name: {m for m in targets if not name.startswith(m + ".")}
            for name, targets in graph.items()}


def test_stream_distributions_and_sampling_import_one_way():
    graph = _graph()
    assert "tandem.distributions" not in graph["tandem.stream"]
    assert "tandem.sampling" not in graph["tandem.stream"]
    assert "tandem.stream" in graph["tandem.distributions"]


def test_the_package_has_no_import_cycle():
    graph = _without_package_inits(_graph())
    assert _cycle(graph) is None, _cycle(graph)


def test_the_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
