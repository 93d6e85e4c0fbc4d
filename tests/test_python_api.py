"""The Python API a practitioner expects: texts and labels in memory or a file, keyword settings checked by name,
`predict_proba` and an abstaining threshold, recipes never changed by building or overriding, a scikit-learn
estimator, documented public names, and no import circle in the package."""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

import attentive
from attentive.errors import AttentiveError
from attentive.models.classifier import build_model
from attentive.recipes.loader import load_recipe

from .helpers import TINY, tiny_overrides
from .import_graph import find_circle, module_imports

OVERRIDES = tiny_overrides("lama_ctx")


@pytest.fixture(scope="module")
def texts_and_labels(sst2_small):
    examples = sst2_small.splits["train"][:400]
    return [ex.text for ex in examples], [int(ex.label == "positive") for ex in examples]


def test_train_on_texts_and_labels_in_memory_with_keyword_settings(texts_and_labels):
    texts, labels = texts_and_labels
    model = attentive.train(texts=texts + ["   "], labels=labels + [1], recipe="lama_ctx", overrides=OVERRIDES,
                            epochs=1, heads=2, show_progress=False)
    assert model.labels == ["0", "1"] and model.config["recipe"]["pooler"]["heads"] == 2
    assert model.config["training"]["epochs_run"] == 1
    probabilities = model.predict_proba(["a gorgeous , witty film", "dull and lifeless"])
    assert probabilities.shape == (2, 2) and np.allclose(probabilities.sum(1), 1, atol=1e-5)
    [sure] = model.predict("a gorgeous , witty film", threshold=0.0)
    [unsure] = model.predict("a gorgeous , witty film", threshold=1.0)
    assert sure.label in ("0", "1") and unsure.label is None and "below the threshold" in unsure.headline
    assert model.explain("a gorgeous , witty film")[0].words == ["a", "gorgeous", ",", "witty", "film"]
    with pytest.raises(AttentiveError, match="without an aspect"):  # refused, not silently dropped
        model.predict("a gorgeous , witty film", aspects="acting")
    with pytest.raises(AttentiveError, match="takes no second text"):
        model.predict("a gorgeous , witty film", "another film")


def test_train_on_a_file(sst2_small, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("review,stars\n" + "".join(f'"{ex.text}",{ex.label}\n' for ex in sst2_small.splits["train"][:300]))
    model = attentive.train(train=path, text_column="review", label_column="stars", recipe="lama_ctx",
                            overrides=OVERRIDES, epochs=1, show_progress=False)
    assert model.labels == ["negative", "positive"]


@pytest.mark.parametrize("settings, message", [
    ({"bogus": 1}, "bogus: no such setting"),
    ({"dropout": 0.1}, "several sections hold it (embedder, head): say which, e.g. embedder__dropout"),
    ({"epochs": "three"}, "epochs='three': train.epochs must be an integer ≥ 1"),
])
def test_keyword_settings_are_checked_by_name(texts_and_labels, settings, message):
    texts, labels = texts_and_labels
    with pytest.raises(AttentiveError) as error:
        attentive.train(texts=texts, labels=labels, recipe="lama_ctx", **settings)
    assert message in str(error.value)


def test_the_data_is_given_one_way(texts_and_labels):
    texts, labels = texts_and_labels
    with pytest.raises(AttentiveError, match="give the data one way"):
        attentive.train("sst2_sample", texts=texts, labels=labels)
    with pytest.raises(AttentiveError, match="3 texts but 2 labels"):
        attentive.train(texts=["a", "b", "c"], labels=[0, 1])


@pytest.mark.parametrize("data, message", [
    ({"texts": "good bad", "labels": [0, 1, 0, 1, 0, 1, 0, 1]}, "texts is a single str, 'good bad': give a list"),
    ({"texts": ["good", "bad"], "labels": "01"}, "labels is a single str, '01': give a list"),
    ({"texts": ["good", "bad"], "labels": [1, 0], "dev_texts": "fine", "dev_labels": [1]}, "dev_texts is a single str"),
    ({"texts": ["good", "bad"], "labels": [1, 0], "dev_texts": b"fine", "dev_labels": [1]},
     "dev_texts is a single bytes"),
    ({"texts": ["good", "bad", "fine", "dull"], "labels": [1, 0, None, 0]},
     r"labels\[2\] is None: every text needs a label"),
    ({"texts": ["good", "bad", "fine"], "labels": [1.0, float("nan"), 0.0]}, r"labels\[1\] is nan"),
    ({"texts": ["good", "bad", "fine"], "labels": np.array([1.0, 0.0, np.nan])}, r"labels\[2\] is nan"),
    ({"texts": ["good", "bad"], "labels": ["pos", " "]}, r"labels\[1\] is blank"),
    ({"texts": ["good", "bad"], "labels": [1, 0], "dev_texts": ["fine"], "dev_labels": [None]},
     r"dev_labels\[0\] is None"),
    ({"texts": ["good", None], "labels": [1, 0]}, r"texts\[1\] is None, not a string"),
    ({"texts": ["good", "bad"], "labels": [1, 0, 1]}, "train: 2 texts but 3 labels"),
])
def test_texts_and_labels_in_memory_are_checked_before_training(data, message):
    """A string where a list belongs would be taken apart into characters, and a missing label would become a class
    'None' or 'nan': each is one line naming the argument (and the index), an AttentiveError and a ValueError."""
    with pytest.raises(AttentiveError, match=message) as error:
        attentive.train(**data)
    assert isinstance(error.value, ValueError) and "\n" not in str(error.value)


def test_one_override_may_be_given_as_one_string(texts_and_labels):
    texts, labels = texts_and_labels
    # not taken apart into 't', 'r', ...
    with pytest.raises(AttentiveError, match="train.bogus must be left out .train takes optimizer, lr, "):
        attentive.train(texts=texts, labels=labels, recipe="lama_ctx", overrides="train.bogus=1")


FORMAT_1 = Path(__file__).parent / "fixtures" / "model-format-1"


@pytest.fixture(scope="module")
def both_paths(tmp_path_factory):
    """The saved fixture model, and its export run by ONNX Runtime."""
    from attentive.answer import onnx_backend
    from attentive.onnx_format.write import export

    model = attentive.load(FORMAT_1)
    out = export(model, tmp_path_factory.mktemp("export") / "onnx")
    return {"torch": model, "onnx": onnx_backend.load(out)}


@pytest.mark.parametrize("path", ["torch", "onnx"])
@pytest.mark.parametrize("method, arguments, message", [
    ("predict", {"batch_size": 0}, "batch_size=0: must be an integer ≥ 1"),
    ("predict_proba", {"batch_size": 2.5}, "batch_size=2.5: must be an integer ≥ 1"),
    ("explain", {"batch_size": True}, "batch_size=True: must be an integer ≥ 1"),
    ("predict", {"threshold": 2}, "threshold=2: must be None or a number from 0 to 1"),
    ("predict", {"threshold": float("nan")}, "threshold=nan: must be None or a number from 0 to 1"),
    ("predict", {"top_k": -1}, "top_k=-1: must be an integer ≥ 0"),
    ("explain", {"top_k": -1}, "top_k=-1: must be an integer ≥ 0"),
    ("predict", {"texts": None}, "texts is None: give a string or a list of strings"),
    ("predict_proba", {"texts": None}, "texts is None: give a string or a list of strings"),
    ("explain", {"texts": b"a film"}, "texts is a bytes: give a string or a list of strings"),
    ("predict", {"texts": 3}, "texts is an int: give a string or a list of strings"),
    ("predict", {"texts": ["a film", 3]}, r"texts\[1\] is an int, not a string"),
])
def test_call_arguments_are_checked_alike_by_both_paths(both_paths, path, method, arguments, message):
    arguments = {"texts": ["a gorgeous film"], **arguments}
    with pytest.raises(AttentiveError, match=message) as error:
        getattr(both_paths[path], method)(**arguments)
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize("path", ["torch", "onnx"])
def test_no_texts_get_no_answers_of_the_same_shape_in_both_paths(both_paths, path):
    model = both_paths[path]
    assert model.predict_proba([]).shape == (0, len(model.labels)) == (0, 2)
    assert model.predict([]) == [] and model.explain([]) == []


def test_loading_nothing_is_one_line():
    from attentive.answer import onnx_backend

    for load in (attentive.load, onnx_backend.load):
        with pytest.raises(AttentiveError, match="folder=None: give the path of a model folder"):
            load(None)


def test_unknown_recipe_keys_are_errors_naming_them():
    with pytest.raises(AttentiveError, match=r"--set train.epoch=3: train.epoch must be left out \(did you mean "
                                             r"'epochs'\?\) \(train takes optimizer, "):
        load_recipe("lama_ctx", ["train.epoch=3"])
    with pytest.raises(AttentiveError, match=r"tokenizer.min_freq must be left out \(did you mean 'min_frequency'\?\) "
                                             r"\(tokenizer takes type, min_frequency, "):
        load_recipe({**load_recipe("lama_ctx").as_dict(), "tokenizer": {"min_freq": 2}})


def test_a_dict_recipe_takes_overrides_and_is_never_changed():
    recipe = load_recipe("ssan_rpr")
    before = copy.deepcopy(recipe)
    assert load_recipe(recipe.as_dict(), ["train.epochs=2"]).train.epochs == 2
    build_model(recipe, vocab_size=50, classes=2)
    assert recipe == before and recipe.as_dict() == before.as_dict(), "build_model and load_recipe make new ones"
    assert isinstance(recipe.head.hidden, str) and "d_model" in recipe.head.hidden


def test_the_sklearn_estimator_passes_cross_val_score(texts_and_labels):
    from sklearn.model_selection import cross_val_score

    from attentive.sklearn import AttentiveClassifier

    texts, labels = texts_and_labels
    estimator = AttentiveClassifier(recipe="lama_ctx", overrides=OVERRIDES, epochs=2)
    scores = cross_val_score(estimator, texts, np.array(labels) * 10 + 3, cv=3)  # labels 3 and 13, as given
    assert scores.shape == (3,) and all(0.0 <= s <= 1.0 for s in scores)
    fitted = estimator.fit(texts, np.array(labels) * 10 + 3)
    assert list(fitted.classes_) == [3, 13] and set(fitted.predict(texts[:5])) <= {3, 13}
    assert fitted.predict_proba(texts[:5]).shape == (5, 2)


def test_every_public_name_is_documented():
    for name in attentive.__all__:
        if name != "__version__":
            assert (getattr(attentive, name).__doc__ or "").strip(), name
    for method in ("train", "load"):
        assert "Args" not in getattr(attentive, method).__doc__  # prose docstrings, not boilerplate


def test_the_package_has_no_import_circle():
    root = Path(attentive.__file__).parent
    assert find_circle(module_imports(root, "attentive")) is None
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]  # the finder finds one


def test_tiny_settings_stay_valid():
    assert load_recipe("lama_ctx", TINY).train.epochs == 2


def test_a_model_saved_in_the_first_format_still_loads_and_predicts_the_same():
    """tests/fixtures/model-format-1 was saved by the code before model ids, checkpoints and the API changes."""
    import json

    folder = Path(__file__).parent / "fixtures" / "model-format-1"
    expected = json.loads((folder / "expected.json").read_text())
    model = attentive.load(folder)
    assert "model_id" not in model.config
    for text, want in zip(expected["texts"], expected["predictions"]):
        [got] = model.predict(text, top_words_by="attention")  # as its answers were recorded, before the evidence
        assert got.label == want["label"] and got.top_words[0][0] == want["top_words"][0][0]
        assert got.probabilities == pytest.approx(want["probabilities"], abs=1e-6)


def test_the_default_recipe_follows_the_data():
    from attentive.data.example import Dataset, Example
    from attentive.recipes.for_data import default_recipe_for

    def data(dev_aspect: str | None = None, **fields):
        dev = [Example("a dev text", "x", aspect=dev_aspect)] if dev_aspect else []
        return Dataset("d", {"train": [Example("a text", "x", **fields)], "dev": dev, "test": []}, ["x"])

    assert default_recipe_for(data()) == "default"
    assert default_recipe_for(data(aspect="food")) == "default_aspect"
    assert default_recipe_for(data("food", aspect="food")) == "default_aspect"
    assert default_recipe_for(data("chicken tikka", aspect="waiter")) == "default_aspect_terms"
    assert default_recipe_for(data(text_pair="another text")) == "default_pair"
    for name in ("default_aspect", "default_aspect_terms", "default_pair"):
        assert load_recipe(name).description.startswith("the default for")
