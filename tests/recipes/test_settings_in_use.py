"""Every recipe setting the package knows is used: named by a shipped recipe (attentive/recipes/*.yaml), carried at
its default by every recipe, or set by a row a reproduce script reports (benchmarks/*/*/reproduce_*.sh). A setting that
only a sweep uses fails here: it belongs in the experiments, or in a shipped recipe that reproduces its row."""
from __future__ import annotations

from pathlib import Path

import yaml

from attentive.recipes.loader import RECIPE_DIR, SECTIONS
from attentive.recipes.types import PART_OPTIONS, section_fields

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"

# Settings no shipped recipe names, set by a reported row: the script that reproduces it and the row.
KEPT_FOR_ROWS = {
    "embedder.dim": ("papers/ssan/reproduce_ssan.sh", "the w2v300 variant (300-d word2vec)"),
    "train.weight_decay": ("papers/wang2016/reproduce_absa.sh",
                           "ATAE-LSTM with the authors' Adagrad and L2 (the adagrad variant)"),
    "embedder.word2vec_extra": ("papers/lama/reproduce_lama.sh", "the IMDB rows (word2vec also trained on imdb_unsup)"),
}
# Defaults every recipe that does not name them trains or predicts with.
CARRIED_DEFAULTS = {
    "tokenizer.lowercase": "every recipe lower-cases its words",
    "tokenizer.max_vocab": "no cap on the vocabulary (null), every recipe",
    "embedder.distilled_dim": "the width of the distilled vectors `default` starts from",
    "embedder.trainable": "every recipe fine-tunes its word vectors",
    "embedder.word2vec_epochs": "the word2vec vectors of the paper recipes",
    "embedder.word2vec_seed": "the word2vec vectors of the paper recipes",
    "train.clip": "every recipe clips its gradients at 5",
    "train.seed": "every run's seed (benchmarks' --seeds)",
    "train.eps": "ADADELTA's epsilon in the SSAN and Transformer recipes",
    "embedder.glove_path": "absent: the packaged GloVe 6B-50d of the glove recipes (a path names a file of one's own)",
    "train.class_weight": "none: every recipe weighs its classes alike (balanced or {label: weight} for skewed data)",
    "train.sampler": "shuffle: every recipe sees each training row once an epoch (balanced draws classes alike)",
}


def _named_by_shipped_recipes() -> set[str]:
    named = set()
    for path in RECIPE_DIR.glob("*.yaml"):
        for section, values in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            named.update(f"{section}.{key}" for key in (values if isinstance(values, dict) else {}))
    return named


def _known_settings() -> set[str]:
    return {f"{section}.{key}" for section in SECTIONS for key in section_fields(section) if key != "type"}


def test_every_setting_is_used_by_a_shipped_recipe_a_default_or_a_reported_row():
    named = _named_by_shipped_recipes()
    unused = sorted(key for key in _known_settings() - named - set(KEPT_FOR_ROWS) - set(CARRIED_DEFAULTS))
    assert not unused, f"settings no shipped recipe or reported row uses: {unused}"
    parts = [section for section in SECTIONS if not section_fields(section)]
    parts_unused = sorted(name for name in PART_OPTIONS if not any(f"{part}.{name}" in named for part in parts))
    assert not parts_unused, f"part settings no shipped recipe uses: {parts_unused}"


def test_the_rows_kept_for_still_set_their_settings():
    for key, (script, row) in KEPT_FOR_ROWS.items():
        assert f"--set {key}=" in (BENCHMARKS / script).read_text(encoding="utf-8"), (key, script, row)


def test_the_lists_name_only_settings_there_are():
    assert set(KEPT_FOR_ROWS) | set(CARRIED_DEFAULTS) <= _known_settings()
