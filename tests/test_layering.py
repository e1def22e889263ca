"""Data flows one way: no albert_tf package imports one that imports it back.

The import graph of `albert_tf`'s stage packages (`albert_tf/*/`) and top-level modules is read
from the source (every `import`, inside functions too) and must have no cycle. Run this file as
a script to print the graph.
"""

from __future__ import annotations

import ast
import collections
import itertools
import pathlib
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "albert_tf"


def _unit(module: str) -> str | None:
    """The stage package (or top-level module) `albert_tf.x.y...` belongs to; None outside."""
    parts = module.split(".")
    if parts[0] != "albert_tf" or len(parts) == 1:
        return None
    return parts[1]


def _imported_modules(tree: ast.AST, module: str) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # Relative: resolve against this module's package.
                base = module.split(".")[: -node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((name, node.lineno))
    return found


def import_graph(package: pathlib.Path = PACKAGE) -> dict[str, dict[str, list[str]]]:
    """unit -> imported unit -> the `file:line`s importing it."""
    graph: dict[str, dict[str, list[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent).with_suffix("")
        module = ".".join(relative.parts)
        source = _unit(module.removesuffix(".__init__"))
        for imported, line in _imported_modules(ast.parse(path.read_text()), module):
            target = _unit(imported)
            if source and target and target != source:
                graph[source][target].append(f"{relative}.py:{line}")
    return graph


def find_cycle(graph: dict[str, dict[str, list[str]]]) -> list[str] | None:
    """One cycle of units (first unit repeated at the end), or None."""
    state: dict[str, str] = {}  # "open" while on the DFS path, "done" after.
    path: list[str] = []

    def visit(unit: str) -> list[str] | None:
        state[unit] = "open"
        path.append(unit)
        for target in sorted(graph.get(unit, {})):
            if state.get(target) == "open":
                return path[path.index(target) :] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[unit] = "done"
        return None

    for unit in sorted(graph):
        if unit not in state and (cycle := visit(unit)):
            return cycle
    return None


def test_no_package_imports_one_that_imports_it_back():
    graph = import_graph()
    cycle = find_cycle(graph)
    if cycle:
        steps = [f"{a} -> {b} ({', '.join(graph[a][b][:3])})" for a, b in itertools.pairwise(cycle)]
        raise AssertionError("import cycle:\n  " + "\n  ".join(steps))


def test_nothing_imports_the_command_line():
    # albert_tf.commands is the top of the graph: the commands are the program and define
    # process-wide flags, so no library module may depend on them.
    importers = {unit: files for unit, files in import_graph().items() if "commands" in files}
    assert importers == {}, {unit: files["commands"] for unit, files in importers.items()}


def test_the_graph_sees_imports_inside_functions(tmp_path):
    package = tmp_path / "albert_tf"
    for name, code in {
        "export/a.py": "def f():\n    from albert_tf.finetune import b\n",
        "finetune/b.py": "from albert_tf.export.a import f\n",
    }.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(code)
    graph = import_graph(package)
    assert graph["export"]["finetune"] == ["albert_tf/export/a.py:2"]
    assert find_cycle(graph) == ["export", "finetune", "export"]


if __name__ == "__main__":
    for unit, targets in sorted(import_graph().items()):
        print(f"{unit} -> {', '.join(sorted(targets))}", file=sys.stdout)
