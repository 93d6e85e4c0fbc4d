"""The linear model fitted after training and folded into the n-gram channel (attentive/training/prior.py, recipe
`wide.prior`, as in the default): the folded model answers exactly log p_model + r · log p_linear, r fitted on
dev, on a hand-made channel and after a real training."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import attentive
from attentive.errors import AttentiveError
from attentive.models.heads import MLPHead
from attentive.models.wide import NgramChannel
from attentive.text.encoding import Item
from attentive.training.prior import (
    WEIGHT_BOUNDS,
    add_prior,
    feature_counts,
    fit_linear,
    fitted_weight,
    fitted_weights,
    kept_columns,
    smoothed_idf,
    training_features,
)

from ..helpers import tiny_overrides, write_tsv

VOCAB, BUCKETS = 40, 13


def texts(count: int, classes: int, rng) -> tuple[list[Item], list[int]]:
    """Texts of 3-9 token ids whose label is told by which third of the vocabulary their first word is in, noisily."""
    items, labels = [], []
    for _ in range(count):
        ids = rng.integers(1, VOCAB, size=rng.integers(3, 10))
        label = int(ids[0] * classes // VOCAB) if rng.random() < 0.8 else int(rng.integers(classes))
        items.append(Item(ids.tolist()))
        labels.append(label)
    return items, labels


def logits_of(channel: NgramChannel, head: MLPHead, items: list[Item]) -> np.ndarray:
    """The channel's logits plus the head's on a zero pooled vector (its bias alone), one row per text."""
    rows = []
    for item in items:
        ids = torch.tensor([item.ids])
        rows.append(channel(ids, ids != 0) + head(torch.zeros(1, head.net[-1].in_features)))
    return torch.cat(rows).detach().numpy()


def log_softmax(values: np.ndarray) -> np.ndarray:
    shifted = values - values.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


@pytest.mark.parametrize("classes, sigmoid", [(3, False), (2, False), (2, True)])
def test_the_folded_rows_answer_the_product_of_the_two_models(classes, sigmoid):
    rng = np.random.default_rng(0)
    train, train_labels = texts(300, classes, rng)
    dev, dev_labels = texts(80, classes, rng)
    torch.manual_seed(0)
    channel, head = NgramChannel(VOCAB, classes, BUCKETS, prior=True), MLPHead(4, classes, sigmoid=sigmoid)
    for table in (channel.unigrams, channel.bigrams):
        torch.nn.init.normal_(table.weight, std=0.3)  # a trained channel's rows, which the prior adds to
    temperature, before = 1.7, logits_of(channel, head, dev)

    report = add_prior(channel, head, train, train_labels, dev, dev_labels, before, temperature)

    *_, linear, _ = fit_linear(train, train_labels, dev, dev_labels, VOCAB, BUCKETS, classes)
    after = logits_of(channel, head, dev)
    a, b = fitted_weights(log_softmax(before / temperature), log_softmax(linear), dev_labels)
    assert report["weight"] == pytest.approx(b / a) and b / a > 0.1  # the linear model reads the labels' words
    assert b / a <= WEIGHT_BOUNDS[1] / WEIGHT_BOUNDS[0]  # finite where the model's answers are noise (sigmoid)
    unsharpened = 1 / max(a, b, 1)
    expected = unsharpened * (a * log_softmax(before / temperature) + b * log_softmax(linear))  # the product
    assert np.allclose(log_softmax(after), log_softmax(expected), atol=1e-5)  # at a scale sharpening neither part
    assert report["network_scale"] == pytest.approx(unsharpened * a / temperature)
    assert report["linear_scale"] == pytest.approx(unsharpened * b)
    assert report["C"] in (8, 32, 128)
    assert report["dev_accuracy"] == pytest.approx(float((after.argmax(1) == np.array(dev_labels)).mean()))


def test_the_weight_is_near_zero_for_a_linear_model_that_knows_nothing_and_above_one_for_a_better_one():
    rng = np.random.default_rng(1)
    gold = rng.integers(3, size=400)
    model = log_softmax(rng.normal(size=(400, 3)) + 2.0 * np.eye(3)[gold])  # informative
    assert fitted_weight(model, log_softmax(rng.normal(size=(400, 3))), gold) < 0.05  # noise: no say
    linear = log_softmax(rng.normal(size=(400, 3)) + 3.0 * np.eye(3)[gold])  # a better model
    assert fitted_weight(model, linear, gold) > 1.0


def test_the_grid_fitted_side_by_side_gives_what_it_gives_one_fit_after_another():
    rng = np.random.default_rng(0)
    train, train_labels = texts(300, 3, rng)
    dev, dev_labels = texts(100, 3, rng)
    found = {}
    threads = torch.get_num_threads()
    try:
        for count in (1, 3):
            torch.set_num_threads(count)
            found[count] = fit_linear(train, train_labels, dev, dev_labels, VOCAB, BUCKETS, 3)
    finally:
        torch.set_num_threads(threads)
    for one, several in zip(found[1][:5], found[3][:5]):
        assert np.array_equal(one, several)
    assert found[1][5] == found[3][5]  # the same C chosen, the same dev accuracy at each


def test_features_count_unigrams_and_the_channels_hashed_bigrams():
    counts = feature_counts([Item([3, 4, 3, 4]), Item([5])], vocab=10, buckets=7).toarray()
    bigram = lambda a, b: 10 + (a * 1_000_003 + b) % 7  # noqa: E731
    assert counts[0, 3] == 2 and counts[0, 4] == 2 and counts[0, bigram(3, 4)] == 2 and counts[0, bigram(4, 3)] == 1
    assert counts[1].sum() == 1 and counts[1, 5] == 1
    idf = smoothed_idf(feature_counts([Item([3, 4]), Item([3])], vocab=10, buckets=7))
    assert idf[3] == pytest.approx(1.0) and idf[4] == pytest.approx(np.log(3 / 2) + 1)


def test_the_linear_model_fits_the_features_two_training_texts_hold_and_gives_the_others_no_weight():
    train = [Item([3, 4, 5]), Item([3, 4, 6]), Item([7, 8])]  # 5, 6, 7, 8 and three bigrams: one text each
    columns, idf, x_train, features = training_features(train, vocab=10, buckets=101)  # 101: no bucket shared
    bigram = 10 + (3 * 1_000_003 + 4) % 101
    assert sorted(columns) == sorted({3, 4, bigram})  # the unigrams 3, 4 and the bigram (3, 4): two texts each
    assert idf == pytest.approx([np.log(4 / 3) + 1] * 3)  # idf as before, over the kept columns
    assert x_train.shape == (3, 3) and x_train[2].nnz == 0  # the third text holds none of them
    assert features([Item([5, 6, 3])]).toarray()[0, list(columns).index(3)] == pytest.approx(idf[0] / 3)
    channel, head = NgramChannel(10, 2, 101, prior=True), MLPHead(4, 2)
    labels = [0, 0, 1]
    dev = [Item([3, 4]), Item([7, 8])]
    add_prior(channel, head, train, labels, dev, [0, 1], np.zeros((2, 2)), 1.0)
    assert channel.unigrams.weight[[5, 6, 7, 8]].abs().sum() == 0  # held by one text: nothing folded in


def test_where_no_feature_is_held_by_two_texts_the_linear_model_reads_those_one_text_holds():
    counts = feature_counts([Item([1, 2]), Item([3])], vocab=5, buckets=3)
    assert sorted(kept_columns(counts)) == sorted(np.flatnonzero(counts.getnnz(0)))


@pytest.mark.slow  # trains three models
def test_training_folds_the_prior_and_the_saved_model_answers_with_it(sst2_small, tmp_path):
    overrides = tiny_overrides("lama_ctx") + ["wide.type=ngrams", "wide.buckets=4096", "wide.prior=true"]
    model = attentive.train(sst2_small, "lama_ctx", tmp_path / "m", overrides=overrides, show_progress=False)
    prior = model.config["prior"]
    assert prior["features"] > 1000 and f"{prior['C']:g}" in prior["dev_accuracy_by_C"]
    temperature = model.config["calibration"]["temperature"]
    assert prior["weight"] > 0 and prior["network_scale"] > 0 and prior["linear_scale"] > 0 and temperature > 0
    dev = sst2_small.splits["dev"]
    answers = np.array(model.labels)[model.predict_proba([ex.text for ex in dev]).argmax(1)]
    assert prior["dev_accuracy"] == pytest.approx(float(np.mean(answers == np.array([ex.label for ex in dev]))))
    texts_ = [ex.text for ex in sst2_small.splits["test"][:20]]
    assert np.allclose(attentive.load(tmp_path / "m").predict_proba(texts_), model.predict_proba(texts_), atol=1e-6)
    plain = attentive.train(sst2_small, "lama_ctx", None, overrides=overrides[:-1], show_progress=False)
    assert "prior" not in plain.config
    assert not np.allclose(plain.predict_proba(texts_), model.predict_proba(texts_), atol=1e-3)
    short = attentive.train(sst2_small, "lama_ctx", None, overrides=[*overrides, "wide.prior_min_tokens=1000"],
                            show_progress=False)  # the sentences average far fewer tokens: no linear model
    assert short.config["prior"]["skipped"].startswith("the training texts average ")
    assert short.config["prior"]["skipped"].endswith(" tokens, fewer than wide.prior_min_tokens (1000)")
    assert np.array_equal(short.predict_proba(texts_), plain.predict_proba(texts_))


def test_the_default_fits_its_linear_model_on_short_texts_too_and_says_what_dev_said(sst2_small):
    model = attentive.train(sst2_small, "default", None, overrides=tiny_overrides("default"), show_progress=False)
    average = np.mean([len(item.ids) for item in model.encode_examples(sst2_small.splits["train"])])
    assert average < 100  # the sample's sentences
    prior = model.config["prior"]
    assert set(prior) >= {"kept", "dev_accuracy_without", "dev_accuracy_with_crossfitted", "dev_accuracy_linear"}
    assert ("weight" in prior) == prior["kept"]


def test_the_folding_check_keeps_an_informative_linear_model_and_a_worthless_one_costs_nothing():
    from scipy.special import log_softmax

    from attentive.training.prior import folding_check

    rng = np.random.default_rng(0)
    gold = rng.integers(0, 3, size=400)
    truth = np.eye(3)[gold]
    weak = log_softmax(truth * 0.3 + rng.normal(size=(400, 3)), axis=1)  # a model right about half the time
    strong = log_softmax(truth * 3 + rng.normal(size=(400, 3)), axis=1)
    noise = log_softmax(rng.normal(size=(400, 3)) * 5, axis=1)  # a confident linear model that knows nothing
    kept = folding_check(weak, strong, gold)
    assert kept["kept"] and kept["dev_accuracy_with_crossfitted"] > kept["dev_accuracy_without"] + 0.2
    assert folding_check(strong, strong, gold)["kept"]  # within noise: kept
    worthless = folding_check(strong, noise, gold)  # its weight, fitted on the other half, goes near 0
    assert worthless["dev_accuracy_linear"] < 0.45
    assert worthless["dev_accuracy_with_crossfitted"] == pytest.approx(worthless["dev_accuracy_without"], abs=0.02)


def test_train_says_what_the_linear_model_fitted_after_training_brought(sst2_small, tmp_path, capsys):
    from attentive.cli import main

    files = [write_tsv(tmp_path / f"{split}.tsv", sst2_small.splits[split]) for split in ("train", "dev")]
    settings = tiny_overrides("lama_ctx") + ["wide.type=ngrams", "wide.buckets=4096", "wide.prior=true"]
    assert main(["train", "--train", str(files[0]), "--dev", str(files[1]), "--recipe", "lama_ctx",
                 "--out", str(tmp_path / "m"), *[arg for item in settings for arg in ("--set", item)]]) == 0
    prior = attentive.load(tmp_path / "m").config["prior"]
    said = f"with the linear model fitted after training (C {prior['C']:g}, weight {prior['weight']:.2f}): dev " \
           f"accuracy {prior['dev_accuracy']:.4f}"
    assert said in " ".join(capsys.readouterr().out.split())


def test_a_prior_needs_an_mlp_head_with_a_bias():
    from attentive.models.classifier import build_model
    from attentive.recipes.loader import load_recipe

    recipe = load_recipe("lama_ctx", ["wide.type=ngrams", "wide.prior=true", "head.bias=false",
                                      "embedder.vectors=random"])
    with pytest.raises(AttentiveError, match="wide.prior needs an MLP head with a bias"):
        build_model(recipe, 50, 3)
    with pytest.raises(AttentiveError, match="wide.prior must be true or false"):
        load_recipe("default", ["wide.prior=0.5"])


def test_the_linear_part_alone_is_scored_as_the_fitted_one_answered_dev(sst2_small):
    from attentive.api import linear_part_accuracy

    model = attentive.train(sst2_small, "default", None, overrides=tiny_overrides("default"), show_progress=False)
    scored = linear_part_accuracy(model, sst2_small)
    prior = model.config["prior"]
    assert scored["C"] == prior["C"]
    assert scored["dev"] == pytest.approx(prior["dev_accuracy_linear"])  # the same model, refitted
    assert 0.5 < scored["test"] <= 1.0
