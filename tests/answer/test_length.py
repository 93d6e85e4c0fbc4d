"""Accuracy by text length (attentive/answer/length.py): quartiles of the lengths and the LAMA paper's split at the
mean length, on hand-made answers."""
import pytest

from attentive.answer.length import accuracy_by_length, length_line, text_length


def test_quartiles_and_the_mean_split_count_every_text_once():
    lengths = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 40]
    correct = [True] * 6 + [False] * 6  # the short half right, the long half wrong
    found = accuracy_by_length(lengths, correct)
    assert found["mean_words"] == pytest.approx(sum(lengths) / 12, abs=0.01)
    assert [(r["bucket"], r["min_words"], r["max_words"], r["texts"], r["accuracy"]) for r in found["quartiles"]] == \
        [("Q1", 1, 3, 3, 1.0), ("Q2", 4, 6, 3, 1.0), ("Q3", 7, 9, 3, 0.0), ("Q4", 10, 40, 3, 0.0)]
    short, long = found["mean"]
    assert (short["texts"], short["accuracy"]) == (8, 0.75) and (long["texts"], long["accuracy"]) == (4, 0.0)
    assert short["bucket"] == "<= mean (8.8 words)" and long["bucket"] == "> mean (8.8 words)"
    assert length_line(found).startswith("accuracy by length: Q1 (1-3 words) 1.000, Q2 (4-6 words) 1.000")


def test_texts_of_one_length_make_one_bucket_and_no_texts_none():
    found = accuracy_by_length([5, 5, 5, 5], [True, False, True, True])
    assert [(r["bucket"], r["texts"], r["accuracy"]) for r in found["quartiles"]] == [("Q1", 4, 0.75)]
    assert [r["bucket"] for r in found["mean"]] == ["<= mean (5.0 words)"]
    assert accuracy_by_length([], []) == {"mean_words": None, "quartiles": [], "mean": []}
    with pytest.raises(ValueError):
        accuracy_by_length([1, 2], [True])


def test_a_text_s_length_is_its_whitespace_words():
    assert text_length("  a gorgeous,  witty\tfilm \n") == 4 and text_length("") == 0


def test_evaluate_reports_accuracy_by_length_for_our_models_and_the_peers(tiny_run, tmp_path, capsys):
    """Model.evaluate, an export's evaluate and compute_metrics given the texts (what the baselines call) report the
    same buckets of the same texts; the CLI prints them in one line."""
    import json

    import attentive
    from attentive import compute_metrics
    from attentive.answer import onnx_backend
    from attentive.cli import main
    from attentive.onnx_format.write import export

    model = attentive.load(tiny_run)
    saved = model.evaluate("sst2_sample", "dev")
    exported = onnx_backend.load(export(model, tmp_path / "onnx")).evaluate("sst2_sample", "dev")
    assert [row["texts"] for row in saved["by_length"]["quartiles"]] == \
        [row["texts"] for row in exported["by_length"]["quartiles"]]
    assert sum(row["texts"] for row in saved["by_length"]["mean"]) == saved["n"]
    texts = [ex.text for ex in attentive.load_dataset("sst2_sample").splits["dev"]]
    peer = compute_metrics(["negative"] * len(texts), ["negative"] * len(texts), ["negative", "positive"],
                           texts=texts)
    assert [row["bucket"] for row in peer["by_length"]["mean"]] == [row["bucket"] for row in saved["by_length"]["mean"]]
    assert "by_length" not in compute_metrics(["a"], ["a"], ["a", "b"])
    assert main(["evaluate", str(tiny_run), "--dataset", "sst2_sample", "--split", "dev", "--output",
                 str(tmp_path / "eval.json")]) == 0
    assert "accuracy by length: Q1 (" in capsys.readouterr().out
    assert json.loads((tmp_path / "eval.json").read_text())["by_length"] == saved["by_length"]
