"""attentive: compact, interpretable attention-based text classifiers trained from scratch.

    model = attentive.train("sst2_sample", recipe="lama_ctx", out="runs/demo")
    model = attentive.train(texts=reviews, labels=stars, epochs=3)
    model.predict(["a gorgeous, witty film"]); model.predict_proba(["a gorgeous, witty film"])
    attentive.load("runs/demo").evaluate("sst2_sample", split="test")
    attentive.cv("mr", folds=10, out="runs/mr-cv")   # cross-validation and a label-error report
    attentive.tune("sst2", out="runs/sst2-tune", budget="10m")   # a search of the recipe's tune: settings

scikit-learn users: `attentive.sklearn.AttentiveClassifier`. Exported models run without PyTorch:
`attentive.runtime.load(folder)` (onnxruntime, tokenizers and numpy only). The names below are imported on first
use, so that `import attentive.runtime` does not import PyTorch.
"""
from __future__ import annotations

import importlib

from .errors import AttentiveError, DataError
from .version import __version__

__all__ = ["AttentiveError", "DataError", "Explanation", "Model", "Prediction", "cv", "load", "train", "tune",
           "__version__"]
_FROM = {"Explanation": ".answers", "Prediction": ".answers", "Model": ".model", "load": ".api", "train": ".api",
         "cv": ".cross_validation", "tune": ".tuning"}


def __getattr__(name: str):
    if name in _FROM:
        return getattr(importlib.import_module(_FROM[name], __name__), name)
    if name in ("api", "model", "sklearn", "runtime", "cli"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'attentive' has no attribute {name!r}")
