"""The model2vec peer (benchmarks/harness/model2vec_peer.py) and the unseen-word breakdown the baselines report."""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks.harness.baselines import run_baseline
from benchmarks.harness.unseen_words import accuracy_by_unseen, unseen_shares


@pytest.mark.slow  # distils MiniLM to a static model once (about 20 s, then cached), fits model2vec's classifier
def test_model2vec_fits_on_dev_and_scores_test(sst2_small, tmp_path, monkeypatch):
    from model2vec.train import StaticModelForClassification

    from benchmarks import model2vec_peer

    fitted = []
    fit = model2vec_peer.fit_classifier
    monkeypatch.setattr(model2vec_peer, "fit_classifier", lambda *args: fitted.append(fit(*args)) or fitted[-1])
    # two epochs, not the dozen its early stopping runs to on 600 sentences: the test checks the peer's wiring
    fit_epochs = StaticModelForClassification.fit
    monkeypatch.setattr(StaticModelForClassification, "fit", lambda self, *args, **kwargs: fit_epochs(
        self, *args, **{**kwargs, "max_epochs": 2}))
    path, payload = run_baseline(sst2_small, "model2vec", seed=0, results_dir=tmp_path)
    assert path.name == "model2vec-sst2_small-s0.json" and payload["grid"] == [] and len(fitted) == 1
    assert payload["hyperparameters"]["pca_dims"] == 256 and payload["hyperparameters"]["validation"] == "dev split"
    assert payload["test"]["accuracy"] > 0.6 and payload["dev"]["accuracy"] > 0.6  # two balanced classes
    assert sum(row["texts"] for row in payload["test"]["by_unseen"]) == len(sst2_small.splits["test"])
    assert 0.1 < model2vec_peer.saved_megabytes(fitted[0], tmp_path / "pipeline") < 100


def test_model2vec_probabilities_come_in_our_label_order():
    from benchmarks.harness.model2vec_peer import probabilities

    class Fitted:  # as model2vec's classifier answers: its own class order, labels as strings
        classes_ = ["pos", "neg", "neutral"]

        def predict_proba(self, texts):
            return np.array([[0.7, 0.2, 0.1]] * len(texts))

    assert probabilities(Fitted(), ["a", "b"], ["neg", "neutral", "pos"]).tolist() == [[0.2, 0.1, 0.7]] * 2


def test_the_unseen_share_counts_words_no_training_text_holds():
    shares = unseen_shares(["The film was good", "a bad film"], ["the FILM was good", "good zzz", "qq rr ss tt",
                                                                  "film film film film film film film film film zz",
                                                                  "..."])
    assert shares.tolist() == [0.0, 0.5, 1.0, 0.1, 0.0]  # case folded; a text of no word counts as all seen
    buckets = accuracy_by_unseen(shares, [True, False, True, False, False])
    assert buckets == [{"bucket": "none unseen", "texts": 2, "accuracy": 0.5},
                       {"bucket": "<= 10% unseen", "texts": 1, "accuracy": 0.0},
                       {"bucket": "> 20% unseen", "texts": 2, "accuracy": 0.5}]  # an empty bucket is left out
    with pytest.raises(ValueError, match="2 shares for 1 answers"):
        accuracy_by_unseen(np.array([0.0, 0.1]), [True])
