"""Objects, not relays: no function of the package takes 12 or more parameters (a typer command, whose parameters
are its options, excepted). What `train`, `cv`, `tune` and `distill` are given goes as one `DataSource`, one
`RunSettings` and the recipe's keywords (attentive/data/keywords.py); the keywords users write still reach them."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import attentive
from attentive.data.keywords import split_keywords
from attentive.data.source import DataSource
from attentive.errors import AttentiveError
from attentive.util.run_settings import RunSettings

ROOT = Path(attentive.__file__).parent
MOST = 11  # parameters a function may take


def parameter_count(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Positional and keyword-only parameters, *args and **kwargs each one; `self` and `cls` not counted."""
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + (arguments.vararg is not None) + (arguments.kwarg is not None)


def is_command(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a typer command: decorated with `app.command` (or `something.command(...)`)."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "command":
            return True
    return False


def crowded(source: str, name: str = "<source>") -> list[str]:
    """"file:line function (n parameters)" for each function of `source` that takes more than MOST parameters and
    is no typer command."""
    return [f"{name}:{node.lineno} {node.name} ({parameter_count(node)} parameters)"
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and parameter_count(node) > MOST
            and not is_command(node)]


def test_no_function_of_the_package_takes_12_or_more_parameters():
    found = [line for path in sorted(ROOT.rglob("*.py"))
             for line in crowded(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT.parent)))]
    assert found == [], "pass an object (a dataclass) instead of relaying its fields: " + "; ".join(found)


def test_the_count_sees_every_kind_of_parameter_and_spares_typer_commands():
    many = ", ".join(f"p{i}" for i in range(9))
    assert crowded(f"def f(self, {many}, *args, k=1, **kwargs): pass") == ["<source>:1 f (12 parameters)"]
    assert crowded(f"def f(self, {many}, k=1, **kwargs): pass") == []  # self is not counted: 11
    assert crowded(f"@app.command()\ndef f({many}, a, b, c): pass") == []
    assert crowded(f"class A:\n    def f(cls, {many}, a, b, c): pass") == ["<source>:2 f (12 parameters)"]


def test_each_keyword_goes_to_the_data_the_run_or_the_recipe():
    source, settings, recipe = split_keywords(None, None, {"texts": ["a", "b"], "labels": [0, 1], "epochs": 3,
                                                           "device": "cpu", "text_column": "body",
                                                           "data_dir": "here"}, out="runs/x")
    assert source == DataSource(texts=["a", "b"], labels=[0, 1], text_column="body", data_dir="here")
    assert settings == RunSettings(out="runs/x", data_dir="here", device="cpu")
    assert recipe == {"epochs": 3}
    given = RunSettings(device="cuda", overwrite=True, show_progress=False)
    source, settings, _ = split_keywords("sst2_sample", given, {"device": "cpu"})
    assert source.dataset == "sst2_sample" and settings == RunSettings(device="cpu", overwrite=True,
                                                                       show_progress=False)
    assert given.device == "cuda"  # the caller's settings are not changed
    # a command's data takes only its own fields: the rest are left to the recipe, which refuses them by name
    _, _, recipe = split_keywords(None, None, {"train": "a.csv", "dev": "b.csv"}, frozenset({"train"}))
    assert recipe == {"dev": "b.csv"}


def test_a_data_source_with_data_keywords_or_settings_of_another_kind_are_one_line():
    with pytest.raises(AttentiveError, match="give the data one way"):
        split_keywords(DataSource(dataset="sst2_sample"), None, {"texts": ["a"]})
    with pytest.raises(AttentiveError, match="RunSettings"):
        split_keywords("sst2_sample", {"device": "cpu"}, {})
    with pytest.raises(AttentiveError, match="data: give"):
        split_keywords(42, None, {})


def test_an_unknown_keyword_is_still_one_line_before_any_training(tmp_path):
    texts, labels = ["good film", "bad film"] * 10, ["pos", "neg"] * 10
    with pytest.raises(AttentiveError, match="no such setting") as raised:
        attentive.train(texts=texts, labels=labels, out=tmp_path / "m", epoch=3)  # epochs, misspelt
    assert len(str(raised.value).splitlines()) == 1 and not (tmp_path / "m").exists()
    with pytest.raises(AttentiveError, match="no such setting"):
        attentive.cv(texts=texts, labels=labels, dev_texts=texts)  # cv reads no dev split
    with pytest.raises(AttentiveError, match="cv has no resume"):
        attentive.cv(texts=texts, labels=labels, resume=True)
    with pytest.raises(AttentiveError, match="tune has no resume"):
        attentive.tune("sst2_sample", settings=RunSettings(resume=True))


def test_the_settings_and_the_data_reach_train_as_objects(monkeypatch, tmp_path):
    from attentive import api

    seen = {}

    def recording(data, recipe, settings=None, **extras):
        seen.update(data=data, recipe=recipe, settings=settings)
        return "trained"

    monkeypatch.setattr(api, "train_dataset", recording)
    texts, labels = ["good film", "bad film"] * 10, ["pos", "neg"] * 10
    assert attentive.train(texts=texts, labels=labels, recipe="lama_ctx", out=tmp_path, device="cpu",
                           show_progress=False, epochs=1) == "trained"
    assert seen["settings"] == RunSettings(out=tmp_path, device="cpu", show_progress=False)
    assert seen["recipe"].train.epochs == 1 and len(seen["data"].splits["train"]) == 18
    source = DataSource(texts=texts, labels=labels)
    attentive.train(source, "lama_ctx", settings=RunSettings(overwrite=True))
    assert seen["settings"] == RunSettings(overwrite=True) and seen["data"].labels == ["neg", "pos"]
