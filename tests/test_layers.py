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
    ("answer", ["attentive.answer"]),
    ("recipes", ["attentive.recipes"]),
    ("folders", ["attentive.folders"]),
    ("answering", ["attentive.explain", "attentive.model", "attentive.runtime"]),
    ("training", ["attentive.training"]),
    ("entry points", ["attentive", "attentive.training.pipeline", "attentive.api", "attentive.opening",
                      "attentive.distill", "attentive.export", "attentive.sklearn", "attentive.batch",
                      "attentive.serving", "attentive.selection", "attentive.cli", "attentive.sample",
                      "attentive.__main__"]),
]

# What benchmarks/ may import: attentive's __all__, and these modules with their names not starting with "_".
PUBLIC_MODULES = ["attentive.api", "attentive.runtime", "attentive.export", "attentive.sklearn", "attentive.distill",
                  "attentive.batch"]

# Issue 32: benchmarks/ imports the public API only, but for these names, each kept for the reason above it: a script
# that measures something the public API deliberately does not offer. The test fails on a new private import and on
# a listed one that is gone.
KNOWN_PRIVATE_IMPORTS = {
    # bf16 autocast on the lent GPU wraps the training loop's forward pass: an experiment no recipe asks for.
    ("gpu_precision.py", "attentive.training.loop"),
    # The Ave baseline looks GloVe up through attentive's own tokenizer and GloVe reader, so that its coverage is
    # the neural recipes'; the public API has no word-vector reader, nor should it.
    ("baselines.py", "attentive.text.embeddings.load_glove"),
    ("baselines.py", "attentive.text.tokenizer.build_tokenizer"),
    # Result files are read under the names their recipes have today (`student` became `default` at a798496): the
    # package's own table of renamed recipes, which a user never needs (the old name simply loads).
    ("results_io.py", "attentive.recipes.retired.RENAMED_RECIPES"),
    # The model2vec peer keeps the static model it distils under attentive's own cache folder (ATTENTIVE_CACHE).
    ("model2vec_peer.py", "attentive.text.embeddings.cache_dir"),
    # The SSAN table times the network alone on encoded texts; Model.predict_proba also times tokenizing and answers.
    ("characteristics.py", "attentive.answer.inference.predict_probabilities"),
    # One-off analyses of how the IMDB reader cuts dev from train (they chose attentive/data/readers/imdb.py's
    # DEV_BLOCK): they read review ids and cut with other block sizes, which no public call does.
    ("imdb_dev_leak.py", "attentive.data.paths.resolve_data_dir"),
    ("imdb_dev_leak.py", "attentive.data.readers.imdb.read_imdb"),
    ("imdb_dev_leak.py", "attentive.data.readers.imdb.read_imdb_train_dev"),
    ("imdb_dev_leak.py", "attentive.data.splits.carve_dev"),
    ("imdb_id_adjacency.py", "attentive.data.paths.resolve_data_dir"),
    ("imdb_id_adjacency.py", "attentive.data.readers.imdb.read_imdb_with_ids"),
    # Sizes of untrained networks (the folder of the model training would start from; parameter counts of every
    # recipe and of SAN's heads): the public API builds a network only by training it.
    ("model_size.py", "attentive.training.pipeline.new_model"),
    # The reduced-width probe gives the folded network (the per-word tables an export holds) rank-k vectors and
    # measures what it answers on encoded texts: a graph no public call builds.
    ("width_at_export.py", "attentive.models.folding.fold"),
    ("width_at_export.py", "attentive.answer.inference.predict_probabilities"),
    # Which words explain an export: the deletion test's own sampling and removal (the faithfulness record's), with
    # rankings no public call gives (the linearised evidence computed by autograd, as the reference of its closed
    # form), on texts encoded by the model.
    ("top_words_evidence.py", "attentive.answer.deletion.FRACTION"),
    ("top_words_evidence.py", "attentive.answer.deletion.TEXTS"),
    ("top_words_evidence.py", "attentive.answer.deletion.removal_rows"),
    ("top_words_evidence.py", "attentive.answer.deletion.sample"),
    ("top_words_evidence.py", "attentive.answer.deletion.word_spans"),
    ("top_words_evidence.py", "attentive.data.batching.collate"),
    # The linear prior's trial reads the features `wide.prior` fits (the n-gram channel's, counted and weighted), and
    # its weight, beside forms no public call computes (unit length, one weight for every set).
    ("linear_prior.py", "attentive.training.prior.feature_counts"),
    ("linear_prior.py", "attentive.training.prior.fitted_weight"),
    ("linear_prior.py", "attentive.training.prior.length_scaled"),
    ("linear_prior.py", "attentive.training.prior.smoothed_idf"),
    ("model_size.py", "attentive.training.seed.seed_everything"),
    ("params.py", "attentive.models.classifier.build_model"),
    ("render_pruned.py", "attentive.models.classifier.build_model"),
    # Head redundancy on the seeded sample `attentive analyze` reads, by the analysis' own measure: the same number
    # without writing the whole report (Model.analyze).
    # The held part of dev in old sweeps: the library's own seeded dev cut, so that a sweep holds out what a
    # training run would (a copy in benchmarks/ would drift from it).
    ("run.py", "attentive.data.splits.carve_dev"),
    ("run.py", "attentive.explain.corpus.head_redundancy"),
    ("run.py", "attentive.explain.report.sample"),
}


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
    assert is_public("attentive.load") and is_public("attentive.runtime") and is_public("attentive.export.export")
    assert not is_public("attentive.folders.saved.WEIGHTS") and not is_public("attentive.api._private")
    (tmp_path / "a.py").write_text("import attentive\nfrom attentive import Model\n"
                                   "def f():\n    from attentive.training.pipeline import new_model\n")
    assert private_imports(tmp_path) == {("a.py", "attentive.training.pipeline.new_model")}


def test_the_tests_are_laid_out_like_the_package():
    """tests/FOLDER/ holds the tests of attentive/FOLDER/ (tests/benchmarks/ those of benchmarks/); the tests of the
    package's root modules, the layers and the docs stay in tests/ itself, beside conftest.py and helpers.py."""
    tests = Path(__file__).parent
    folders = {path.name for path in tests.iterdir() if path.is_dir() and path.name not in ("fixtures", "__pycache__")}
    package_folders = {path.name for path in ROOT.iterdir() if (path / "__init__.py").exists()}
    assert folders <= package_folders | {"benchmarks"}, folders - package_folders
    assert all((tests / folder / "__init__.py").exists() for folder in folders)
    helpers = {path.name for path in tests.glob("*.py") if not path.name.startswith("test_")}
    assert helpers == {"__init__.py", "conftest.py", "helpers.py", "import_graph.py", "cli_zygote.py"}
