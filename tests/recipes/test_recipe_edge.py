"""The recipe is typed where a user's recipe enters (the Python API and the CLI: attentive/recipes/for_data.py) and
carried as a `Recipe` from there: one `attentive train` parses its recipe once and resolves it once, and only the
edge and the recipes package call `load_recipe`."""
from __future__ import annotations

import sys
from pathlib import Path

import attentive
from attentive.cli import main
from attentive.recipes import loader
from attentive.recipes.types import Recipe

from ..helpers import tiny_overrides

PACKAGE = Path(attentive.__file__).parent
# Where a user's recipe enters (the package's own docstring names the public function), and the recipes package
EDGE = ("recipes/", "cli/", "__init__.py")


def _count_calls(monkeypatch, name: str) -> list:
    """Every call of recipes.loader's `name` from now on, from every attentive module that imported it."""
    calls, original = [], getattr(loader, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    for module in [module for key, module in sys.modules.items() if key.startswith("attentive")]:
        if getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, spy)
    return calls


def test_one_attentive_train_parses_its_recipe_once_and_resolves_it_once(sst2_small, tmp_path, monkeypatch):
    import attentive.training.pipeline  # noqa: F401 (imported before the spies go in, as the CLI imports it)

    path = tmp_path / "train.tsv"
    rows = sst2_small.splits["train"][:120] + sst2_small.splits["dev"][:40]
    path.write_text("text\tlabel\n" + "".join(f"{ex.text}\t{ex.label}\n" for ex in rows))
    overrides = [arg for item in [*tiny_overrides("default"), "train.epochs=1"] for arg in ("--set", item)]
    parsed = _count_calls(monkeypatch, "load_recipe")
    resolved, resolve = [], Recipe.resolved

    def counted(recipe, *args, **kwargs):
        caller = sys._getframe(1).f_globals["__name__"]
        resolved.append(caller)
        return resolve(recipe, *args, **kwargs)

    monkeypatch.setattr(Recipe, "resolved", counted)
    assert main(["train", "--train", str(path), "--out", str(tmp_path / "run"), *overrides]) == 0
    assert len(parsed) == 1 and parsed[0][0] == "default"
    assert resolved.count("attentive.training.pipeline") == 1, resolved  # the model's recipe (size and build: copies)
    assert attentive.load(tmp_path / "run").config["recipe"]["name"] == "default"


def test_a_resumed_run_reads_its_recipe_from_the_checkpoint_without_parsing_one(sst2_small, tmp_path, monkeypatch):
    from ..helpers import stopped_then_resumed

    overrides = [*tiny_overrides("lama_ctx"), "train.epochs=2"]
    parsed = _count_calls(monkeypatch, "load_recipe")
    read_back = _count_calls(monkeypatch, "recipe_from_config")
    model = stopped_then_resumed(sst2_small, "lama_ctx", tmp_path / "run", overrides, 1, monkeypatch)
    assert len(parsed) == 2 and len(read_back) == 1  # the first half's recipe, and the checkpoint's (read back)
    assert model.config["training"]["epochs_run"] == 2


def test_only_the_edge_and_the_recipes_package_call_load_recipe():
    callers = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     if "load_recipe(" in path.read_text(encoding="utf-8"))
    assert callers and all(caller.startswith(EDGE) for caller in callers), callers
    for inner in ("training/pipeline.py", "selection/cv.py", "selection/tune.py", "distill/__init__.py", "api.py"):
        assert "load_recipe" not in (PACKAGE / inner).read_text(encoding="utf-8").replace("recipes.load_recipe", "")
