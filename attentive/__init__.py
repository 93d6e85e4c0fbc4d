"""attentive: compact, interpretable attention-based text classifiers trained from scratch.

    model = attentive.train("sst2_sample", recipe="lama_ctx", out="runs/demo")
    model.predict(["a gorgeous, witty film"])
    attentive.load("runs/demo").evaluate("sst2_sample", split="test")
"""
__version__ = "0.1.0"

from .api import Model, Prediction, load, train  # noqa: E402

__all__ = ["Model", "Prediction", "load", "train", "__version__"]
