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
from attentive.recipes import load_recipe

from .conftest import TINY, tiny_overrides
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
    [unsure] = model.predict("a gorgeous , witty film", threshold=1.01)
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


def test_unknown_recipe_keys_are_errors_naming_them():
    with pytest.raises(AttentiveError, match="--set train.epoch=3: unknown setting train.epoch"):
        load_recipe("lama_ctx", ["train.epoch=3"])
    with pytest.raises(AttentiveError, match="unknown setting tokenizer.min_freq"):
        load_recipe({**load_recipe("lama_ctx"), "tokenizer": {"min_freq": 2}})


def test_a_dict_recipe_takes_overrides_and_is_never_changed():
    recipe = load_recipe("ssan_rpr")
    before = copy.deepcopy(recipe)
    assert load_recipe(recipe, ["train.epochs=2"])["train"]["epochs"] == 2
    build_model(recipe, vocab_size=50, classes=2)
    assert recipe == before, "build_model and load_recipe work on copies"
    assert isinstance(recipe["head"]["hidden"], str) and "d_model" in recipe["head"]["hidden"]


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
    assert load_recipe("lama_ctx", TINY)["train"]["epochs"] == 2


def test_a_model_saved_in_the_first_format_still_loads_and_predicts_the_same():
    """tests/fixtures/model-format-1 was saved by the code before model ids, checkpoints and the API changes."""
    import json

    folder = Path(__file__).parent / "fixtures" / "model-format-1"
    expected = json.loads((folder / "expected.json").read_text())
    model = attentive.load(folder)
    assert "model_id" not in model.config
    for text, want in zip(expected["texts"], expected["predictions"]):
        [got] = model.predict(text)
        assert got.label == want["label"] and got.top_words[0][0] == want["top_words"][0][0]
        assert got.probabilities == pytest.approx(want["probabilities"], abs=1e-6)


def test_the_default_recipe_follows_the_data():
    from attentive.data.example import Dataset, Example
    from attentive.training.pipeline import default_recipe_for

    def data(dev_aspect: str | None = None, **fields):
        dev = [Example("a dev text", "x", aspect=dev_aspect)] if dev_aspect else []
        return Dataset("d", {"train": [Example("a text", "x", **fields)], "dev": dev, "test": []}, ["x"])

    assert default_recipe_for(data()) == "default"
    assert default_recipe_for(data(aspect="food")) == "default_aspect"
    assert default_recipe_for(data("food", aspect="food")) == "default_aspect"
    assert default_recipe_for(data("chicken tikka", aspect="waiter")) == "default_aspect_terms"
    assert default_recipe_for(data(text_pair="another text")) == "default_pair"
    for name in ("default_aspect", "default_aspect_terms", "default_pair"):
        assert load_recipe(name)["description"].startswith("the default for")
