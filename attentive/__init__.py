"""attentive: compact, interpretable attention-based text classifiers trained from scratch.

    model = attentive.train("sst2_sample", recipe="lama_ctx", out="runs/demo")
    model = attentive.train(texts=reviews, labels=stars, epochs=3)
    model.predict(["a gorgeous, witty film"]); model.predict_proba(["a gorgeous, witty film"])
    attentive.load("runs/demo").evaluate("sst2_sample", split="test")

scikit-learn users: `attentive.sklearn.AttentiveClassifier`.
"""
from .api import Explanation, Model, Prediction, load, train
from .errors import AttentiveError, DataError
from .version import __version__

__all__ = ["AttentiveError", "DataError", "Explanation", "Model", "Prediction", "load", "train", "__version__"]
