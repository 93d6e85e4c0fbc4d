"""One `attentive.load` for saved folders and exports, `Model.export`, and the estimator's `save` and `export`."""
from __future__ import annotations

import attentive
from attentive.answer import onnx_backend
from attentive.sklearn import AttentiveClassifier

from .helpers import tiny_overrides


def test_a_model_exports_itself_and_load_opens_the_export(tiny_run, tmp_path):
    model = attentive.load(tiny_run)
    folder = model.export(tmp_path / "onnx", int8=True)
    opened = attentive.load(folder)
    assert isinstance(opened, onnx_backend.RuntimeModel) and opened.labels == model.labels
    assert (folder / "model.int8.onnx").is_file()
    assert opened.predict("a gorgeous , witty film")[0].label == model.predict("a gorgeous , witty film")[0].label


def test_the_estimator_saves_and_exports(sst2_small, tmp_path):
    train = sst2_small.splits["train"][:200]
    estimator = AttentiveClassifier(overrides=tiny_overrides("default") + ["train.epochs=1"])
    estimator.fit([ex.text for ex in train], [ex.label for ex in train])
    estimator.save(tmp_path / "m")
    exported = estimator.export(tmp_path / "m-onnx")
    texts = ["a gorgeous film", "a dull , tedious film"]
    assert [p.label for p in attentive.load(tmp_path / "m").predict(texts)] == list(estimator.predict(texts))
    assert [p.label for p in attentive.load(exported).predict(texts)] == list(estimator.predict(texts))
