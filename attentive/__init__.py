"""attentive: compact, interpretable attention-based text classifiers trained from scratch.

    model = attentive.train("sst2_sample", recipe="lama_ctx", out="runs/demo")
    model = attentive.train(texts=reviews, labels=stars, epochs=3)
    model.predict(["a gorgeous, witty film"]); model.predict_proba(["a gorgeous, witty film"])
    attentive.load("runs/demo").evaluate("sst2_sample", split="test")
    attentive.cv("mr", folds=10, out="runs/mr-cv")   # cross-validation and a label-error report
    attentive.tune("sst2", out="runs/sst2-tune", budget="10m")   # a search of the recipe's tune: settings

What a program around training needs is here too, none of it importing PyTorch: the data `train` takes
(`Dataset`, named splits of `Example`s; `load_dataset(name)` reads a named one; `DataSource`, the data as a name,
texts and labels or files, read when the run starts), how a run goes (`RunSettings`: out, device, threads,
overwrite, resume, progress; `train`, `cv`, `tune` and `distill` take it as `settings=`, or its fields as
keywords), the shipped recipes (`load_recipe(name, overrides)`) and `compute_metrics(gold, predicted, labels)`,
the metrics `Model.evaluate` reports, to score another model the same way.

scikit-learn users: `attentive.sklearn.AttentiveClassifier`. Exported models run without PyTorch:
`attentive.answer.onnx_backend.load(folder)` (onnxruntime, tokenizers and numpy only). The names below are imported
on first use, so that `import attentive.answer.onnx_backend` does not import PyTorch.
"""
from __future__ import annotations

import importlib

from .errors import AttentiveError, DataError
from .version import __version__

__all__ = ["AttentiveError", "DataError", "DataSource", "Dataset", "Example", "Explanation", "Model", "Prediction",
           "RunSettings", "available_recipes", "compute_metrics", "cv", "load", "load_dataset", "load_recipe", "train",
           "tune", "__version__"]
_FROM = {"Explanation": ".answer.types", "Prediction": ".answer.types", "Model": ".answer.torch_backend",
         "load": ".api", "train": ".api",
         "cv": ".selection.cv", "tune": ".selection.tune", "Dataset": ".data.example", "Example": ".data.example",
         "DataSource": ".data.source", "RunSettings": ".util.run_settings",
         "load_dataset": ".data.registry", "load_recipe": ".recipes.loader", "available_recipes": ".recipes.loader",
         "compute_metrics": ".answer.metrics"}


def __getattr__(name: str):
    if name in _FROM:
        return getattr(importlib.import_module(_FROM[name], __name__), name)
    if name in ("api", "sklearn", "cli"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'attentive' has no attribute {name!r}")
