"""A linear model fitted after training and folded into the n-gram channel's rows (recipe `wide.prior: true`, as in
the default; benchmarks/DECISIONS.md, "A linear model fitted first", "The linear model on every length", "The
default's training time").

Once the attention model is trained and its temperature T fitted, a multinomial logistic regression is fitted on the
training texts over the channel's own features: each unigram id w and each bigram hashed into bucket h as the
channel hashes it (attentive/models/wide.py), kept where at least MIN_TEXTS training texts hold it (as
scikit-learn's TfidfVectorizer's min_df keeps a term), weighted by its smoothed inverse document frequency in the
training texts, idf_f = ln((1 + N) / (1 + df_f)) + 1, and divided by the text's number of tokens n:

    x_f = tf_f · idf_f / n,        z = W x + b        (C, its inverse regularisation, chosen on dev)

The two models are combined as a product of experts (Hinton 2002), log p_model + r · log p_linear, the weight r of
the linear model fitted on dev: the two numbers a, b > 0 minimising the dev log-loss of softmax(a · log p_model +
b · log p_linear) give r = b / a (a logistic-regression stacker of the two models; a alone would be a temperature).
Divided by n as the channel divides its rows' sum, z is itself a channel. The network's logits are linear in its
head's last layer and the channel's rows, so multiplying those by u · a / T and then adding u · b · idf_w · W_w to
the unigram row of w, u · b · idf_h · W_h to the bigram row of h and u · b times the intercept to the head's bias
makes the logits u · (a · logits / T + b · z): the fitted product, normalised (log-softmax only subtracts one number
per text), times u = 1 / max(a, b, 1). The temperature is then fitted again on the sum, within the bounds dev
supports (attentive/training/calibration.py): where a and b are at most 1 it lands near 1, even for a network whose
dev answers were worth little (small a); where the fit sharpened either part (a or b above 1), the sum is left at a
scale that sharpens neither, and only a dev large enough to sharpen on takes it further. So the fitted model costs
nothing at answer time, an export carries it, and the channel's exact per-word split explains it.

Why it is there: on long documents TF-IDF + LR beats a jointly trained n-gram channel; fitted first and apart, with its
own regularisation, the linear model keeps what it reads best, and the dev split says how much it is worth on the data
at hand.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
import torch

from ..answer.metrics import paired_difference
from ..models.heads import MLPHead
from ..models.wide import HASH_MULTIPLIER, NgramChannel
from ..text.encoding import Item

C_GRID = (8.0, 32.0, 128.0)  # x is divided by n, not by its norm (~sqrt n): larger C than TF-IDF's
MIN_TEXTS = 2  # the training texts a feature must be held by to get a weight (scikit-learn's min_df)


def feature_counts(items: Sequence[Item], vocab: int, buckets: int) -> sp.csr_matrix:
    """Texts x (vocab + buckets): each text's unigram ids, and its bigrams hashed as the n-gram channel hashes them
    (column vocab + h), counted."""
    rows, columns = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for row, item in enumerate(items):
        ids = np.asarray(item.ids, dtype=np.int64)
        found = np.concatenate([ids, vocab + (ids[:-1] * HASH_MULTIPLIER + ids[1:]) % buckets])
        rows.append(np.full(len(found), row))
        columns.append(found)
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    matrix = sp.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(items), vocab + buckets))
    matrix.sum_duplicates()
    return matrix


def smoothed_idf(train_counts: sp.csr_matrix) -> np.ndarray:
    """Each feature's smoothed inverse document frequency in the training texts (scikit-learn's TfidfVectorizer's)."""
    df = train_counts.getnnz(0)  # the texts holding each feature (`feature_counts` sums duplicates)
    return np.log((1 + train_counts.shape[0]) / (1 + df)) + 1


def length_scaled(counts: sp.csr_matrix, idf: np.ndarray, tokens: np.ndarray) -> sp.csr_matrix:
    """x = counts · idf / n, n each text's number of tokens."""
    return sp.diags(1 / np.maximum(tokens, 1)) @ (counts @ sp.diags(idf))


def kept_columns(train_counts: sp.csr_matrix) -> np.ndarray:
    """The columns of the features at least MIN_TEXTS training texts hold (a feature one text holds can only learn
    that text's label; one no text holds learns nothing), or, where there are none, those some text holds."""
    held = train_counts.getnnz(0)  # the texts holding each feature (`feature_counts` sums duplicates)
    kept = np.flatnonzero(held >= MIN_TEXTS)
    return kept if len(kept) else np.flatnonzero(held)


def training_features(train: Sequence[Item], vocab: int, buckets: int):
    """The features the linear model reads, fixed by the training texts: the columns it fits (`kept_columns`),
    their idf, the training texts' length-scaled features, and `features(items)`, those of other texts over the same
    columns. Returns (columns, idf, x_train, features)."""
    counts = feature_counts(train, vocab, buckets)
    columns = kept_columns(counts)
    idf = smoothed_idf(counts)[columns]

    def scaled(found: sp.csr_matrix, items: Sequence[Item]) -> sp.csr_matrix:
        return length_scaled(found[:, columns], idf, np.array([len(item.ids) for item in items]))

    return columns, idf, scaled(counts, train), lambda items: scaled(feature_counts(items, vocab, buckets), items)


def fit_linear(train: Sequence[Item], train_targets: Sequence[int], dev: Sequence[Item], dev_targets: Sequence[int],
               vocab: int, buckets: int, classes: int):
    """The logistic regression over the training texts' features, C chosen by its dev accuracy (a tie: the smaller
    C). The grid's fits are independent, so they run side by side on the threads training used (their coefficients
    are the same either way).
    Returns (the fitted features' column ids, their idf, the weights as those features x classes, the intercept per
    class, its scores z of the dev texts, a report)."""
    from joblib import Parallel, delayed
    from sklearn.linear_model import LogisticRegression

    columns, idf, x_train, features = training_features(train, vocab, buckets)
    x_dev = features(dev)
    best, best_accuracy, by_c = None, -1.0, {}
    fits = Parallel(n_jobs=min(len(C_GRID), torch.get_num_threads()), prefer="threads")(
        delayed(LogisticRegression(C=c, max_iter=1000).fit)(x_train, train_targets) for c in C_GRID)
    for c, fitted in zip(C_GRID, fits):
        by_c[c] = float((fitted.predict(x_dev) == np.asarray(dev_targets)).mean())
        if by_c[c] > best_accuracy:
            best, best_accuracy = fitted, by_c[c]
    weights, intercept = np.zeros((len(columns), classes)), np.zeros(classes)
    if len(best.classes_) == 2:  # scikit-learn's binary form: one score for the second class, the first at 0
        weights[:, best.classes_[1]], intercept[best.classes_[1]] = best.coef_[0], best.intercept_[0]
    else:
        weights[:, best.classes_], intercept[best.classes_] = best.coef_.T, best.intercept_
    report = {"C": best.C, "dev_accuracy_by_C": {f"{c:g}": value for c, value in by_c.items()},
              "features": int(len(columns))}
    return columns, idf, weights, intercept, x_dev @ weights + intercept, report


def linear_part_answers(train: Sequence[Item], train_targets: Sequence[int], text_sets: Sequence[Sequence[Item]],
                        vocab: int, buckets: int, c: float) -> list[np.ndarray]:
    """The class ids the linear model alone answers for each set of `text_sets`: the logistic regression
    `fit_linear` fits, over the same features, refitted at the given C (the one dev chose; lbfgs is deterministic,
    so it is the same model)."""
    from sklearn.linear_model import LogisticRegression

    _, _, x_train, features = training_features(train, vocab, buckets)
    fitted = LogisticRegression(C=c, max_iter=1000).fit(x_train, train_targets)
    return [fitted.predict(features(texts)) for texts in text_sets]


WEIGHT_BOUNDS = (0.01, 100.0)  # a and b of `fitted_weight`, each


def fitted_weights(model_log_probs: np.ndarray, linear_log_probs: np.ndarray,
                   gold: Sequence[int]) -> tuple[float, float]:
    """The a, b in WEIGHT_BOUNDS minimising the log-loss of softmax(a · model_log_probs + b · linear_log_probs)
    against `gold` (rows of texts; Nelder-Mead over log a and log b from a = 1, b = 0.3). The bounds matter only
    where the model's dev answers are worth nothing (an untrained head): unbounded, a then goes to 0 (SciPy 1.17
    stopped at b / a = 1e14); the optima of trained models lie well inside them (a 0.4-1.7, b 0.2-0.3 on the tests'
    data)."""
    from scipy.optimize import minimize
    from scipy.special import log_softmax

    rows, gold = np.arange(len(gold)), np.asarray(gold)

    def loss(logs: np.ndarray) -> float:
        a, b = np.exp(logs)
        return -float(log_softmax(a * model_log_probs + b * linear_log_probs, axis=1)[rows, gold].mean())

    bounds = [tuple(np.log(WEIGHT_BOUNDS))] * 2
    a, b = np.exp(minimize(loss, [0.0, np.log(0.3)], method="Nelder-Mead", bounds=bounds).x)
    return float(a), float(b)


def fitted_weight(model_log_probs: np.ndarray, linear_log_probs: np.ndarray, gold: Sequence[int]) -> float:
    """r = b / a of `fitted_weights`: the linear model's weight against the model's."""
    a, b = fitted_weights(model_log_probs, linear_log_probs, gold)
    return b / a


def folding_check(model_log_probs: np.ndarray, linear_log_probs: np.ndarray, gold: Sequence[int]) -> dict:
    """Whether the dev split says the linear model is worth folding in, judged on texts its weight was not fitted
    on: dev is cut in two halves (a fixed shuffle), r fitted on each (`fitted_weight`) scores the other, and each
    dev text's answer with the linear model, log p_model + r · log p_linear, is set against the model's alone. The
    linear model is kept unless its answers are right less often by more than one standard error of the paired
    difference (Δ̄ < -sd(Δ)/√n, Δ the per-text difference in correctness): where the two are within noise it stays,
    since it is what reads the n-grams best. Returns the decision (`kept`) and the numbers behind it."""
    gold = np.asarray(gold)
    order = np.random.default_rng(0).permutation(len(gold))
    halves = (order[: len(order) // 2], order[len(order) // 2:])
    folded = np.zeros(len(gold), dtype=bool)
    for fit_on, score_on in (halves, halves[::-1]):
        if not len(fit_on) or not len(score_on):
            continue
        r = fitted_weight(model_log_probs[fit_on], linear_log_probs[fit_on], gold[fit_on])
        folded[score_on] = (model_log_probs[score_on] + r * linear_log_probs[score_on]).argmax(1) == gold[score_on]
    alone = model_log_probs.argmax(1) == gold
    gain, noise = paired_difference(folded, alone)
    noise = noise if len(gold) > 1 else 0.0  # one dev text: its own answer decides
    return {"kept": bool(gain >= -noise), "dev_accuracy_without": float(alone.mean()),
            "dev_accuracy_with_crossfitted": float(folded.mean()),
            "dev_accuracy_linear": float((linear_log_probs.argmax(1) == gold).mean()), "noise": noise}


def add_prior(channel: NgramChannel, head: MLPHead, train: Sequence[Item], train_targets: Sequence[int],
              dev: Sequence[Item], dev_targets: Sequence[int], dev_logits: np.ndarray, temperature: float) -> dict:
    """Fit the linear model, weigh it against the model's dev answers (`dev_logits`, before the `temperature`) and
    fold it into `channel`'s rows and `head`'s bias (see the module's docstring). Texts without a label
    (UNLABELLED, negative) are left out. Returns what was fitted, for config.json's `prior` entry."""
    from scipy.special import log_softmax

    labelled = [(item, target) for item, target in zip(train, train_targets) if target >= 0]
    if len({target for _, target in labelled}) < 2:
        return {"skipped": "the training texts hold fewer than two labels"}
    vocab, classes = channel.unigrams.num_embeddings, channel.unigrams.embedding_dim
    columns, idf, weights, intercept, linear, report = fit_linear(
        [item for item, _ in labelled], [target for _, target in labelled], dev, dev_targets, vocab,
        channel.buckets, classes)
    model_log_probs = log_softmax(np.asarray(dev_logits, dtype=np.float64) / temperature, axis=1)
    linear_log_probs = log_softmax(linear, axis=1)
    check = folding_check(model_log_probs, linear_log_probs, dev_targets)
    if not check["kept"]:
        return {"skipped": "on dev texts its weight was not fitted on, the model answered better without it "
                           "(by more than one standard error)", **check, **report}
    a, b = fitted_weights(model_log_probs, linear_log_probs, dev_targets)
    unsharpened = 1 / max(a, b, 1.0)  # the product at a scale neither part is sharpened to; calibration may sharpen
    network_scale, linear_scale = unsharpened * a / temperature, unsharpened * b
    rows = torch.as_tensor(linear_scale * idf[:, None] * weights, dtype=channel.unigrams.weight.dtype)
    index = torch.as_tensor(columns)
    last = head.net[-1]  # an MLP head's last layer, with a bias (build_model checks it has one)
    with torch.no_grad():
        for tensor in (last.weight, last.bias, channel.unigrams.weight, channel.bigrams.weight):
            tensor.mul_(network_scale)
        unigram = index < vocab
        channel.unigrams.weight.index_add_(0, index[unigram].to(channel.unigrams.weight.device),
                                           rows[unigram].to(channel.unigrams.weight.device))
        channel.bigrams.weight.index_add_(0, (index[~unigram] - vocab).to(channel.bigrams.weight.device),
                                          rows[~unigram].to(channel.bigrams.weight.device))
        added = torch.as_tensor(linear_scale * intercept, dtype=last.bias.dtype, device=last.bias.device)
        last.bias.add_(added[1] - added[0] if head.sigmoid else added)  # the sigmoid form's logits are (0, s)
    after = network_scale * np.asarray(dev_logits, dtype=np.float64) + linear_scale * linear  # the folded dev logits
    accuracy = float((after.argmax(1) == np.asarray(dev_targets)).mean())
    return {"weight": b / a, "network_scale": network_scale, "linear_scale": linear_scale, **report, **check,
            "dev_accuracy": accuracy}

