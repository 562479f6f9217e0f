"""The package's shape, read from its own code: layers, no circles, no private imports, small modules.

The import graph is built with :mod:`ast` from every module of ``stations_generator``,
counting imports inside functions and under ``TYPE_CHECKING`` too: a lazy import is
still a dependency. The layers, lowest first::

    errors, settings                       the bottom: anything may import them
    core                                   pure computation
    formats                                file formats, read and written
    osm, pages                             getting OSM data; HTML pages
    board                                  the board game
    app                                    the use cases
    api, cli, commands, serve, __main__    the surfaces, each on app/
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = "stations_generator"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE
MAX_LINES = 800
#: Lines of one function, its ``def`` line counted and its docstring not.
MAX_FUNCTION_LINES = 80
MAX_LOOSE_MODULES = 8

BASE = {"errors", "settings"}
#: What each group may import (besides itself and BASE).
ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "core": set(),
    "formats": {"core"},
    "osm": {"core", "formats"},
    "pages": {"core", "formats"},
    "board": {"core", "formats", "osm", "pages"},
    "app": {"core", "formats", "osm", "pages", "board"},
    "api": {"core", "formats", "osm", "pages", "board", "app"},
    # The `serve` command starts the server; the package's __init__ gives __version__.
    "commands": {"core", "formats", "osm", "pages", "board", "app", "serve", "package"},
    "serve": {"core", "formats", "osm", "pages", "board", "app", "package"},
    "cli": {"core", "formats", "osm", "pages", "board", "app", "commands", "package"},
    "__main__": {"cli"},
    "package": set(),
}
#: Libraries of the surfaces that pure computation must never reach for.
NOT_IN_CORE = ("click", "fastapi", "starlette", "uvicorn", "folium", "http", "urllib", "socket")


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def group(module: str) -> str:
    """The layer a module belongs to: its first name under the package."""
    parts = module.split(".")
    if len(parts) == 1:
        return "package"
    top = parts[1]
    if top in BASE:
        return "base"
    return top


def _target(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _owner(name: str) -> str | None:
    """The package module that ``name`` (a module or a name in one) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


class Imports:
    """Every package-internal import of every module, with the names it takes."""

    def __init__(self) -> None:
        self.edges: dict[str, set[str]] = defaultdict(set)
        self.private: list[str] = []
        self.external: dict[str, set[str]] = defaultdict(set)
        for module, path in MODULES.items():
            self._read(module, ast.parse(path.read_text(encoding="utf-8")))

    def _read(self, module: str, tree: ast.Module) -> None:
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self._edge(module, alias.name)
                    if _owner(alias.name) == alias.name and alias.asname:
                        aliases[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                target = _target(module, node)
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    if full in MODULES:
                        self._edge(module, full)
                        aliases[alias.asname or alias.name] = full
                        continue
                    self._edge(module, target)
                    owner = _owner(target)
                    if owner and owner != module and _is_private(alias.name):
                        self.private.append(f"{module} imports {owner}.{alias.name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _is_private(node.attr)
            ):
                owner = aliases[node.value.id]
                if owner != module:
                    self.private.append(f"{module} uses {owner}.{node.attr}")

    def _edge(self, module: str, name: str) -> None:
        if name.split(".")[0] != PACKAGE:
            self.external[module].add(name.split(".")[0])
            return
        owner = _owner(name)
        if owner and owner != module:
            self.edges[module].add(owner)


IMPORTS = Imports()


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_the_package():
    # The checks below mean something only if the reader finds the modules and their imports.
    assert len(MODULES) > 50
    assert f"{PACKAGE}.core.geo.geodesy" in IMPORTS.edges[f"{PACKAGE}.core.geo.shapes"]
    assert f"{PACKAGE}.cli" in IMPORTS.edges[f"{PACKAGE}.__main__"]


def test_no_import_circles():
    assert _cycles(IMPORTS.edges) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_point_down_the_layers():
    wrong = [
        f"{module} ({group(module)}) imports {target} ({group(target)})"
        for module, targets in sorted(IMPORTS.edges.items())
        for target in sorted(targets)
        if group(target) not in {"base", group(module)} | ALLOWED[group(module)]
    ]
    assert wrong == []


def test_no_module_takes_another_modules_private_names():
    assert IMPORTS.private == []


def test_core_stays_pure():
    reached = {
        f"{module} imports {lib}"
        for module, libs in IMPORTS.external.items()
        if group(module) == "core"
        for lib in libs
        if lib in NOT_IN_CORE
    }
    assert sorted(reached) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_stay_small(module):
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{module} has {lines} lines (at most {MAX_LINES})"


def _long_functions(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        lines = node.end_lineno - node.lineno + 1
        if ast.get_docstring(node) is not None:
            doc = node.body[0]
            lines -= doc.end_lineno - doc.lineno + 1
        if lines > MAX_FUNCTION_LINES:
            found.append(f"{node.name} ({lines} lines)")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_functions_stay_short(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    assert _long_functions(tree) == []


def test_the_length_check_counts_code_not_docstrings():
    body = "\n".join(f"    x{k} = {k}" for k in range(MAX_FUNCTION_LINES - 1))
    doc = '    """' + "\n" * 30 + '    """\n'
    assert _long_functions(ast.parse(f"def f():\n{doc}{body}\n")) == []
    assert _long_functions(ast.parse(f"def f():\n{body}\n    y = 0\n")) == ["f (81 lines)"]


def test_few_loose_modules_at_the_top():
    loose = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, loose


def test_every_package_says_what_it_holds():
    for init in ROOT.rglob("__init__.py"):
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init
