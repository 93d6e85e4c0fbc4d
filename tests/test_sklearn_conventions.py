"""AttentiveClassifier follows scikit-learn's conventions: NotFittedError before `fit`, an empty answer for no texts,
`random_state=None`, one string as one override, ValueErrors for continuous, missing or too few labels and for a
`dev_fraction` out of its range, string input declared in its tags, and scikit-learn's own `check_estimator` failing
only where it feeds numeric matrices."""
from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.exceptions import NotFittedError
from sklearn.utils.fixes import parse_version

from attentive.errors import AttentiveError
from attentive.sklearn import AttentiveClassifier

from .helpers import tiny_overrides

OVERRIDES = tiny_overrides("lama_ctx")
TAGS_AS_OBJECTS = pytest.mark.skipif(parse_version(sklearn.__version__) < parse_version("1.6"),
                                     reason="__sklearn_tags__ and expected_failed_checks are scikit-learn >= 1.6")


@pytest.fixture(scope="module")
def texts_and_labels(sst2_small):
    examples = sst2_small.splits["train"][:300]
    return [ex.text for ex in examples], [ex.label for ex in examples]


@pytest.fixture(scope="module")
def fitted(texts_and_labels):
    texts, labels = texts_and_labels
    return AttentiveClassifier(recipe="lama_ctx", overrides=OVERRIDES, epochs=1, random_state=None).fit(texts, labels)


def test_predicting_before_fit_is_a_not_fitted_error():
    for method in ("predict", "predict_proba", "score"):
        with pytest.raises(NotFittedError):
            getattr(AttentiveClassifier(), method)(["a gorgeous film"], *(["positive"] if method == "score" else []))


def test_random_state_none_draws_a_seed_and_records_it(fitted):
    assert isinstance(fitted.seed_, int) and fitted.model_.config["recipe"]["train"]["seed"] == fitted.seed_
    assert fitted.random_state is None  # the parameter is left as given


def test_no_texts_get_an_empty_answer(fitted):
    predicted = fitted.predict([])
    assert isinstance(predicted, np.ndarray) and predicted.shape == (0,)
    assert fitted.predict_proba([]).shape == (0, 2)
    assert list(fitted.predict(np.array(["a gorgeous , witty film"]))) in (["negative"], ["positive"])


@pytest.mark.parametrize("labels, message", [
    ([i / 300 for i in range(300)], "Unknown label type: continuous"),
    (["positive"] * 299 + [None], r"y\[299\] is None: every text needs a label"),
    (["positive"] * 10 + [float("nan")] + ["negative"] * 289, r"y\[10\] is nan"),
    (["positive"] * 299, "y holds one class, 'positive': a classifier needs examples of at least two classes"),
    (["positive", "negative"] * 100, "X holds 300 texts but y holds 200 labels"),
    (None, "requires y to be passed"),
])
def test_bad_labels_are_value_errors_before_any_training(texts_and_labels, labels, message):
    texts, _ = texts_and_labels
    with pytest.raises(ValueError, match=message):
        AttentiveClassifier(recipe="lama_ctx", overrides=OVERRIDES).fit(texts, labels)


@pytest.mark.parametrize("dev_fraction", [1.5, 1, 0, -0.1, float("nan"), "0.1", True])
def test_a_dev_fraction_out_of_its_range_is_a_value_error_naming_it(texts_and_labels, dev_fraction):
    texts, labels = texts_and_labels
    with pytest.raises(ValueError, match=r"^dev_fraction=.*: must be a number between 0 and 1 \(both excluded\)"):
        AttentiveClassifier(recipe="lama_ctx", overrides=OVERRIDES, dev_fraction=dev_fraction).fit(texts, labels)


@pytest.mark.parametrize("texts, message", [
    ("good bad", r"X is a single str, 'good bad'"),
    (np.zeros((2, 3)), r"X has 2 dimensions \(shape \(2, 3\)\)"),
    ([0.5, 1.5], r"X\[0\] is a float, not a string"),
])
def test_texts_must_be_a_sequence_of_strings(texts, message):
    with pytest.raises(ValueError, match=message):
        AttentiveClassifier().fit(texts, ["a", "b"])


def test_one_string_is_one_override(texts_and_labels):
    texts, labels = texts_and_labels
    # not taken apart into 't', 'r', ...
    with pytest.raises(AttentiveError, match="train.bogus must be left out .train takes optimizer, "):
        AttentiveClassifier(recipe="lama_ctx", overrides="train.bogus=1").fit(texts, labels)


@TAGS_AS_OBJECTS
def test_the_tags_declare_string_input():
    from sklearn.utils import get_tags

    tags = get_tags(AttentiveClassifier())
    assert tags.input_tags.string and not tags.input_tags.two_d_array
    assert AttentiveClassifier()._more_tags() == {"X_types": ["string"]}  # the same, for scikit-learn < 1.6


class ClaimsNumericInput(AttentiveClassifier):
    """scikit-learn runs none of its checks on an estimator whose tags (truthfully) say it takes no 2-D arrays; this
    one claims it does, so that `check_estimator` runs them all."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = True
        return tags


NUMERIC = "fits or predicts on a numeric matrix; AttentiveClassifier takes texts"
FEED_NUMERIC_MATRICES = {name: NUMERIC for name in [
    "check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_dtype_object",
    "check_estimators_empty_data_messages", "check_pipeline_consistency", "check_estimators_nan_inf",
    "check_estimator_sparse_tag", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_classifier_data_not_an_array",
    "check_classifiers_classes", "check_classifiers_train", "check_supervised_y_2d",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_fit2d_1feature",
    "check_dict_unchanged", "check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in",
    "check_fit2d_predict1d"]}


def _causes(error: BaseException | None):
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__


@TAGS_AS_OBJECTS
@pytest.mark.filterwarnings("ignore")
def test_check_estimator_fails_only_where_it_feeds_numeric_matrices():
    from sklearn.utils.estimator_checks import check_estimator

    estimator = ClaimsNumericInput(recipe="lama_ctx", overrides=OVERRIDES, epochs=1)
    results = check_estimator(estimator, expected_failed_checks=FEED_NUMERIC_MATRICES, on_fail=None)
    status = {}
    for result in results:
        status.setdefault(result["status"], set()).add(result["check_name"])
        if result["status"] == "xfail":  # failed, and because X was a numeric matrix: our refusal is the cause
            assert any("X has 2 dimensions" in str(error) for error in _causes(result["exception"])), result
    assert "failed" not in status, status["failed"]
    assert status["xfail"] == set(FEED_NUMERIC_MATRICES)  # each listed check does fail (the list is not stale)
    assert {"check_estimators_unfitted", "check_classifiers_regression_target", "check_requires_y_none",
            "check_classifiers_one_label", "check_fit1d", "check_supervised_y_no_nan"} <= status["passed"]
