"""A progress line while the word vectors are built (before epoch 1, seconds to minutes on a large vocabulary), shown
where training shows its progress bar and never otherwise; the distilled vectors' encoder moves its bar word by
word."""
from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from attentive.recipes.loader import load_recipe
from attentive.text import sources
from attentive.text.progress import vectors_progress, vectors_step
from attentive.text.sources import build_vocabulary, initial_vectors

TEXTS = ["a fine film", "a dull film", "fine acting , dull plot"] * 4


def built(monkeypatch, show: bool) -> str:
    """What the console shows while random vectors are built for TEXTS, with a step of the encoder's bar."""
    shown = io.StringIO()
    monkeypatch.setattr("rich.progress.get_console", lambda: Console(file=shown, force_terminal=True, width=120))
    recipe = load_recipe("default", ["embedder.vectors=random", "tokenizer.pieces=false"])
    tokenizer = build_vocabulary(recipe, TEXTS)
    one_source = sources.one_source

    def stepping(*args, **kwargs):
        vectors_step(7, 9)  # as run_encoder says after a batch of words
        return one_source(*args, **kwargs)

    monkeypatch.setattr(sources, "one_source", stepping)
    with vectors_progress(show):
        vectors = initial_vectors(recipe, tokenizer, TEXTS, "texts", lambda name: [], np.random.default_rng(0))
    assert vectors.matrix.shape[0] == tokenizer.get_vocab_size()
    return shown.getvalue()


def test_the_line_is_shown_while_the_vectors_are_built(monkeypatch):
    said = built(monkeypatch, True)
    assert "word vectors (random) for" in said and "entries" in said and "7/9" in said


def test_no_line_without_progress(monkeypatch, capsys):
    assert built(monkeypatch, False) == ""
    assert capsys.readouterr() == ("", "")
    vectors_step(1, 2)  # outside a shown line: nothing, no error
