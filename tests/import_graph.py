"""The import graph of a package, read from its source with `ast` (lazy imports inside functions included), and the
circle finder the import-circle tests of tests/test_python_api.py and tests/benchmarks/test_benchmarks.py share, and
the names a file outside the package imports from it (tests/test_layers.py)."""
from __future__ import annotations

import ast
from pathlib import Path


def module_imports(folder: Path, package: str) -> dict[str, set[str]]:
    """Each module of `package` (the .py files of `folder`, subpackages included) -> the modules of the package it
    imports anywhere in its code: imports inside functions count, relative imports are resolved, and
    `from package import module` names the module."""
    paths = {}
    for path in folder.rglob("*.py"):
        parts = [package, *path.relative_to(folder).with_suffix("").parts]
        paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in paths.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]  # the module's package
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
                found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base for alias in node.names}
        graph[name] = {module for module in found if module in paths and module != name}
    return graph


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import circle of `graph` as [a, b, ..., a], or None."""
    done, path = set(), []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        path.append(name)
        for other in sorted(graph.get(name, ())):
            if circle := visit(other):
                return circle
        path.pop()
        done.add(name)
        return None

    return next((circle for name in sorted(graph) if (circle := visit(name))), None)


def names_imported_from(path: Path, package: str) -> set[str]:
    """The names a file outside `package` imports from it, anywhere in its code (inside functions too), written in
    full: `import package.a` gives "package.a", `from package.a import b` gives "package.a.b"."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == package}
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == package:
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found
