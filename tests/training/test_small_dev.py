"""A dev split too small to choose on: training on 300 rows with a dev split of 30 says so, and its temperature,
which such a dev cannot support below 1 (attentive/training/calibration.py), leaves no wrong answer at p ≥ 0.999."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import attentive
from attentive.cli import main
from attentive.data.example import Dataset, Example
from attentive.data.registry import load_dataset
from attentive.data.splits import carve_dev
from attentive.training.calibration import SmallDevWarning

from ..helpers import tiny_overrides, write_tsv

# Each training text ends with a cue word of its class, so that the tiny model learns quickly and answers its dev
# texts confidently, as a model does on an easy set; half the test texts carry a cue, half do not (where it is often
# wrong). Fitted freely on the 30 dev texts, the temperature falls far below 1 and some wrong test answers reach
# p = 1.000.
CUES = {"positive": ["superb", "wonderful", "delightful"], "negative": ["dreadful", "tedious", "awful"]}
SETTINGS = tiny_overrides("default") + ["train.epochs=4", "train.lr=0.005"]


def cued(example: Example, i: int) -> Example:
    return Example(f"{example.text} {CUES[example.label][i % 3]}", example.label)


@pytest.fixture(scope="module")
def cut() -> Dataset:
    """The bundled SST-2 sample's first 300 training rows, cued, a stratified 30 of them held out as dev; its test
    split, half of it cued."""
    sample = load_dataset("sst2_sample")
    train, dev = carve_dev([cued(ex, i) for i, ex in enumerate(sample.splits["train"][:300])], 0.1, 13)
    test = [cued(ex, i) if i % 2 else ex for i, ex in enumerate(sample.splits["test"])]
    return Dataset("cut300", {"train": train, "dev": dev, "test": test}, list(sample.labels))


@pytest.fixture(scope="module")
def trained(cut, tmp_path_factory):
    """`attentive train` on the cut's files: the model folder and what the command said."""
    folder = tmp_path_factory.mktemp("small-dev")
    files = [write_tsv(folder / f"{split}.tsv", cut.splits[split]) for split in ("train", "dev")]
    with pytest.MonkeyPatch.context() as patch:
        said = []
        cli = sys.modules["attentive.cli.app"]  # the module (attentive.cli's `app` is the typer app)
        for console in (cli.err, cli.console):
            patch.setattr(console, "print", lambda *parts, **_: said.append(" ".join(map(str, parts))))
        assert main(["train", "--train", str(files[0]), "--dev", str(files[1]), "--out", str(folder / "run"),
                     *[arg for item in SETTINGS for arg in ("--set", item)]]) == 0
    return folder / "run", said


def test_no_wrong_answer_on_test_is_nearly_certain(trained, cut):
    model = attentive.load(trained[0])
    assert len(cut.splits["dev"]) == 30 and len(cut.splits["train"]) == 270
    test = cut.splits["test"]
    probabilities = model.predict_proba([ex.text for ex in test])
    gold = np.array([model.labels.index(ex.label) for ex in test])
    wrong = probabilities.argmax(1) != gold
    assert wrong.sum() > 100  # the uncued half holds many errors
    assert probabilities.max(1)[wrong].max() < 0.999
    calibration = model.config["calibration"]
    assert calibration["dev_texts"] == 30 and calibration["temperature"] >= 1.0
    assert calibration["rule"] in ("bounded", "left off")


def test_train_says_dev_is_too_small_and_how_the_temperature_was_reached(trained):
    _, said = trained
    warnings = [line for line in said if line.startswith("warning: ") and "dev has 30 texts" in line]
    assert len(warnings) == 1, said
    line = " ".join(warnings[0].split())
    assert "one text is 3.3 points of dev accuracy" in line and "too few to choose an epoch or a temperature" in line
    assert "attentive cv" in line and "add labelled data" in line and "--dev FILE" in line
    assert [line for line in said if line.startswith("calibration: ") and ("never below 1: dev has 30 texts" in line
                                                                          or "left off: dev's 30 texts" in line)], said


def test_the_python_api_gives_the_warning_too(cut):
    small = Dataset("cut300", {"train": cut.splits["train"], "dev": cut.splits["dev"]}, list(cut.labels))
    with pytest.warns(SmallDevWarning, match="cut300: dev has 30 texts: one text is 3.3 points"):
        attentive.train(small, "default", overrides=tiny_overrides("default") + ["train.epochs=1"],
                        show_progress=False)
