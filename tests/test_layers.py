"""The package's layers (DESIGN.md, "Layers"): no module imports a module of a higher layer, and benchmarks/ imports
only the public API. Imports inside functions count (tests/import_graph.py reads every import statement)."""
from __future__ import annotations

from pathlib import Path

import pytest

import attentive

from .import_graph import module_imports, names_imported_from

PACKAGE = "attentive"
ROOT = Path(attentive.__file__).parent
BENCHMARKS = ROOT.parent / "benchmarks"

# Bottom to top. A module belongs to the layer of the longest entry that names it or a package above it; the bare
# package name stands for attentive/__init__.py alone. A module may import its own layer and the layers below it.
LAYERS = [
    ("base", ["attentive.errors", "attentive.version", "attentive.util"]),
    ("models", ["attentive.models"]),
    ("text", ["attentive.text"]),
    ("data", ["attentive.data"]),
    ("recipes", ["attentive.recipes"]),
    ("folders", ["attentive.folders"]),
    ("answering", ["attentive.answer", "attentive.explain", "attentive.onnx_format"]),
    ("training", ["attentive.training"]),
    ("entry points", ["attentive", "attentive.training.pipeline", "attentive.api", "attentive.opening",
                      "attentive.distill", "attentive.sklearn", "attentive.scoring",
                      "attentive.serving", "attentive.selection", "attentive.fewlabels", "attentive.cli",
                      "attentive.sample",
                      "attentive.__main__"]),
]

# What benchmarks/ may import: attentive's __all__, and these modules with their names not starting with "_".
PUBLIC_MODULES = ["attentive.api", "attentive.answer.onnx_backend", "attentive.onnx_format.write", "attentive.sklearn",
                  "attentive.distill", "attentive.scoring.ray_batch", "attentive.fewlabels", "attentive.answer.abstain"]

# benchmarks/ imports the public API only: a name the experiments need is made public (attentive.api), never listed
# here. The test fails on a new private import and on a listed one that is gone.
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str]] = set()


def layer_of(module: str) -> int:
    """The index in LAYERS of the module's layer; KeyError for a module no layer names."""
    best, length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            names_it = module == prefix or (prefix != PACKAGE and module.startswith(prefix + "."))
            if names_it and len(prefix) > length:
                best, length = index, len(prefix)
    if best is None:
        raise KeyError(f"{module} is in no layer: add it to LAYERS (and to DESIGN.md)")
    return best


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import of `graph` from a module to a module of a higher layer, as "a (layer) -> b (layer)"."""
    return sorted(f"{module} ({LAYERS[layer_of(module)][0]}) -> {other} ({LAYERS[layer_of(other)][0]})"
                  for module, imported in graph.items() for other in imported if layer_of(other) > layer_of(module))


def is_public(name: str) -> bool:
    """Whether a name benchmarks/ imports ("attentive.x.y", written in full) is attentive's public API."""
    if name == PACKAGE or name in PUBLIC_MODULES:
        return True
    module, _, last = name.rpartition(".")
    return (module == PACKAGE and (last in attentive.__all__ or f"{module}.{last}" in PUBLIC_MODULES)) \
        or (module in PUBLIC_MODULES and not last.startswith("_"))


def private_imports(folder: Path) -> set[tuple[str, str]]:
    """(file, name) for each private name of the package that a .py file of `folder` imports."""
    return {(str(path.relative_to(folder)), name) for path in sorted(folder.rglob("*.py"))
            for name in names_imported_from(path, PACKAGE) if not is_public(name)}


def test_every_module_of_the_package_is_in_a_layer():
    for module in module_imports(ROOT, PACKAGE):
        layer_of(module)
    with pytest.raises(KeyError):
        layer_of("attentive_other.errors")
    assert layer_of("attentive.training.pipeline") > layer_of("attentive.training.loop")  # the longest entry wins


def test_no_module_imports_a_higher_layer():
    assert upward_imports(module_imports(ROOT, PACKAGE)) == []
    # the check sees an upward import
    graph = {"attentive.errors": {"attentive.models.parts"}, "attentive.models.parts": {"attentive.errors"}}
    assert upward_imports(graph) == ["attentive.errors (base) -> attentive.models.parts (models)"]


def test_benchmarks_import_no_private_name_beyond_the_known_ones():
    found = private_imports(BENCHMARKS)
    assert found - KNOWN_PRIVATE_IMPORTS == set(), "new private imports: use the public API"
    assert KNOWN_PRIVATE_IMPORTS - found == set(), "gone: remove them from KNOWN_PRIVATE_IMPORTS"


def test_public_means_the_package_s_all_and_the_public_modules(tmp_path):
    assert is_public("attentive.load") and is_public("attentive.answer.onnx_backend")
    assert is_public("attentive.onnx_format.write.export")
    assert not is_public("attentive.folders.saved.WEIGHTS") and not is_public("attentive.api._private")
    (tmp_path / "a.py").write_text("import attentive\nfrom attentive import Model\n"
                                   "def f():\n    from attentive.training.pipeline import new_model\n")
    assert private_imports(tmp_path) == {("a.py", "attentive.training.pipeline.new_model")}


def test_the_tests_are_laid_out_like_the_package():
    """tests/FOLDER/ holds the tests of attentive/FOLDER/ (an experiment's tests live beside it in benchmarks/, out of
    `make test`); the tests of the package's root modules, the layers and the docs stay in tests/ itself, beside
    conftest.py and helpers.py."""
    tests = Path(__file__).parent
    folders = {path.name for path in tests.iterdir() if path.is_dir() and path.name not in ("fixtures", "__pycache__")}
    package_folders = {path.name for path in ROOT.iterdir() if (path / "__init__.py").exists()}
    assert folders <= package_folders, folders - package_folders
    assert all((tests / folder / "__init__.py").exists() for folder in folders)
    helpers = {path.name for path in tests.glob("*.py") if not path.name.startswith("test_")}
    assert helpers == {"__init__.py", "conftest.py", "helpers.py", "import_graph.py", "cli_zygote.py"}
