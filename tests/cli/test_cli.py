"""End to end through the command line on a tiny real dataset: train -> evaluate -> predict, and bad input."""
from __future__ import annotations

import json

import pytest

from attentive.cli import main

from ..helpers import counted, tiny_overrides, write_tsv


@pytest.fixture(scope="module")
def files(sst2_small, tmp_path_factory):
    folder = tmp_path_factory.mktemp("data")
    return {split: write_tsv(folder / f"{split}.tsv", sst2_small.splits[split]) for split in ("train", "dev", "test")}


@pytest.fixture(scope="module")
def run_dir(files, tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "run"
    overrides = [arg for item in tiny_overrides("lama_ctx") for arg in ("--set", item)]
    assert main(["train", "--train", str(files["train"]), "--dev", str(files["dev"]), "--test", str(files["test"]),
                 "--recipe", "lama_ctx", "--out", str(out), *overrides]) == 0
    return out


def test_train_evaluate_predict(run_dir, files, tmp_path, capsys):
    assert (run_dir / "config.json").exists()
    capsys.readouterr()
    assert main(["evaluate", str(run_dir), "--file", str(files["test"]), "--output", str(tmp_path / "m.json")]) == 0
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["n"] == 150 and "confusion" in metrics
    assert "macro-F1" in capsys.readouterr().out

    assert main(["predict", str(run_dir), "a gorgeous film", "dull , dull , dull"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 2 and all(line["label"] in ("negative", "positive") for line in lines)
    assert set(lines[0]["probabilities"]) == {"negative", "positive"}
    # top words: the words of evidence above 0 for the label (a model at chance may have none: its bias decides)
    assert all(isinstance(line["top_words"], list) and all(value > 0 for _, value in line["top_words"])
               for line in lines)


def test_predict_streams_a_jsonl_file_keeping_its_fields(run_dir, tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": f"film number {i}"}) + "\n" for i in range(7)))
    capsys.readouterr()
    assert main(["predict", str(run_dir), "--input", str(source), "--batch-size", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["id"] for line in lines] == list(range(7)) and all("label" in line["prediction"] for line in lines)


def test_predict_checks_each_text_of_a_jsonl_file_once(run_dir, tmp_path, capsys, monkeypatch):
    texts = [f"film number {i}" for i in range(5)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": text}) + "\n" for i, text in enumerate(texts)))
    checked = counted(monkeypatch, "text_problem")
    capsys.readouterr()
    assert main(["predict", str(run_dir), "--input", str(source), "--batch-size", "2"]) == 0
    assert checked == texts  # where its line is read, and not again by the model
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_malformed_jsonl_line_is_one_line_error_with_its_number(run_dir, tmp_path, capsys):
    source = tmp_path / "bad.jsonl"
    source.write_text('{"text": "fine"}\n{"text": oops}\n')
    assert main(["predict", str(run_dir), "--input", str(source)]) == 2
    message = capsys.readouterr().err.strip()
    assert "bad.jsonl:2" in message and "Traceback" not in message and len(message.splitlines()) == 1


@pytest.mark.parametrize("args,expected", [
    (["train", "--out", "x", "--dataset", "nosuch"], "unknown dataset 'nosuch'"),
    (["train", "--out", "x", "--train", "missing.tsv"], "missing.tsv: file not found"),
    (["evaluate", "no/such/run"], "not a saved attentive model"),
])
def test_bad_input_gets_a_one_line_error(args, expected, capsys):
    assert main(args) == 2
    message = capsys.readouterr().err
    assert expected in message and "Traceback" not in message


@pytest.mark.parametrize("args, expected", [
    ([], "Usage: attentive"),
    (["trian"], "error: No such command 'trian'. Did you mean 'train'?"),
    (["train", "--bogus"], "error: No such option: --bogus"),
    (["predict", "RUN", "a film", "--top-k", "abc"], "error: Invalid value for '--top-k'"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--set", "train.epochs=abc"],
     "error: --set train.epochs=abc: train.epochs must be an integer ≥ 1, not 'abc'"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--set", "train.batch_size=0"],
     "error: --set train.batch_size=0: train.batch_size must be an integer ≥ 1, not 0"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--set", "pooler.heads=0"],
     "error: --set pooler.heads=0: pooler.heads must be an integer ≥ 1 and ≤ 65536, not 0"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--recipe", "lama_pair", "--set", "head.type=gated_pair",
      "--set", "head.offset=abc"],
     "head.offset must be a number, not 'abc'"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--recipe", "lama_pair", "--set", "head.type=gated_pair",
      "--set", "head.same_start=abc"],
     "head.same_start must be true or false, not 'abc'"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--set", "pooler.score_scale=abc"],
     "pooler.score_scale must be a number, not 'abc'"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--recipe", "opinion", "--set", "encoder.cell=5"],
     "encoder.cell must be text, not 5"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--set", "encoder.cell=5"],  # the default reads no context
     "encoder.cell must be left out (encoder type 'identity' takes no options)"),
    (["train", "--out", "x", "--dataset", "sst2_sample", "--recipe", "lama_pair", "--set", "head.features=[u, v]"],
     "head.features must be text, not ['u', 'v']"),
])
def test_usage_errors_are_one_line_with_status_2_whatever_click_typer_vendors(args, expected, run_dir, capsys,
                                                                             tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # `--out x`: a command that wrongly ran writes here, not into the checkout
    assert main([str(run_dir) if arg == "RUN" else arg for arg in args]) == 2
    err = capsys.readouterr().err
    assert expected in " ".join(err.split()) and "Traceback" not in err
    if args:
        assert len(err.strip().splitlines()) == 1


def test_explain_png_of_a_model_without_attention_is_a_one_line_error(sst2_small, tmp_path, capsys):
    import attentive

    attentive.train(sst2_small, "avg", tmp_path / "avg", overrides=tiny_overrides("avg") + ["train.epochs=1"],
                    show_progress=False)
    assert main(["explain", str(tmp_path / "avg"), "a fine film", "--png", str(tmp_path / "a.png")]) == 2
    assert "this model has no attention to draw" in capsys.readouterr().err


def bad_line_input(tmp_path):
    source = tmp_path / "in.jsonl"
    lines = [json.dumps({"id": i, "text": f"film number {i}"}) for i in range(5)]
    lines[2] = json.dumps({"id": 2, "text": "  "})
    source.write_text("\n".join(lines) + "\n")
    return source


def test_predict_stops_at_a_bad_line_after_answering_every_line_before_it(run_dir, tmp_path, capsys):
    assert main(["predict", str(run_dir), "--input", str(bad_line_input(tmp_path))]) == 2  # batch 256 > 5 lines
    captured = capsys.readouterr()
    assert [json.loads(line)["id"] for line in captured.out.splitlines()] == [0, 1]
    assert 'in.jsonl:3: empty or missing "text"' in captured.err


def test_predict_batch_size_is_the_networks_batch(run_dir, tmp_path, capsys, monkeypatch):
    """--batch-size reaches the network: the model is asked to answer that many texts at a time."""
    from attentive.answer.torch_backend import Model

    asked, predict = [], Model.predict

    def predict_asked(self, *args, **options):
        asked.append(options["batch_size"])
        return predict(self, *args, **options)

    monkeypatch.setattr(Model, "predict", predict_asked)
    assert main(["predict", str(run_dir), "--batch-size", "3", "a gorgeous film", "a dull one"]) == 0
    assert asked == [3] and len(capsys.readouterr().out.splitlines()) == 2


def test_predict_on_error_skip_answers_every_good_line_and_counts_the_bad(run_dir, tmp_path, capsys):
    assert main(["predict", str(run_dir), "--input", str(bad_line_input(tmp_path)), "--on-error", "skip"]) == 0
    captured = capsys.readouterr()
    assert [json.loads(line)["id"] for line in captured.out.splitlines()] == [0, 1, 3, 4]
    assert "in.jsonl:3" in captured.err and "1 line(s) skipped" in captured.err


def test_empty_text_to_predict_is_refused(run_dir, capsys):
    assert main(["predict", str(run_dir), "  "]) == 2
    assert "empty" in capsys.readouterr().err


def test_unknown_label_in_an_evaluation_file_is_refused(run_dir, tmp_path, capsys):
    path = tmp_path / "odd.tsv"
    path.write_text("text\tlabel\ngood film\tpositive\nso so\tneutral\n")
    assert main(["evaluate", str(run_dir), "--file", str(path)]) == 2
    assert "'neutral' unknown" in capsys.readouterr().err


@pytest.fixture(scope="module")
def sick_files(tmp_path_factory):
    """A small real slice of SICK (premise, hypothesis, entailment label) as the user's own TSV files."""
    from attentive.data.registry import load_dataset

    sick = load_dataset("sick")
    folder = tmp_path_factory.mktemp("sick")
    files = {}
    for split, size in (("train", 300), ("dev", 60)):
        rows = "".join(f"{ex.text}\t{ex.text_pair}\t{ex.label}\n" for ex in sick.splits[split][:size])
        files[split] = folder / f"{split}.tsv"
        files[split].write_text("premise\thypothesis\tlabel\n" + rows)
    return files


@pytest.mark.parametrize("recipe", ["san_pair", "lama_pair"])  # the gated and the matching head
def test_a_pair_model_trains_saves_loads_and_predicts_through_the_same_cli(recipe, sick_files, tmp_path, capsys):
    out = tmp_path / "pair-run"
    overrides = [arg for item in tiny_overrides(recipe) for arg in ("--set", item)]
    assert main(["train", "--train", str(sick_files["train"]), "--dev", str(sick_files["dev"]), "--recipe",
                 recipe, "--text-column", "premise", "--pair-column", "hypothesis", "--out", str(out),
                 *overrides]) == 0
    capsys.readouterr()
    assert main(["predict", str(out), "A man is sleeping", "--pair", "A person is resting"]) == 0
    [line] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert set(line["probabilities"]) == {"CONTRADICTION", "ENTAILMENT", "NEUTRAL"}
    source = tmp_path / "pairs.jsonl"
    source.write_text(json.dumps({"text": "A dog runs", "text_pair": "An animal moves"}) + "\n")
    assert main(["predict", str(out), "--input", str(source)]) == 0
    assert json.loads(capsys.readouterr().out)["prediction"]["label"] in line["probabilities"]
    assert main(["predict", str(out), "A man is sleeping"]) == 2  # a pair model needs the second text
    assert "second text" in capsys.readouterr().err
    assert main(["evaluate", str(out), "--file", str(sick_files["dev"]), "--text-column", "premise",
                 "--pair-column", "hypothesis", "--output", str(tmp_path / "m.json")]) == 0


def test_explain_writes_html_that_escapes_the_text_and_a_png(run_dir, tmp_path, capsys):
    review = 'a gorgeous film <script>alert("x")</script> & more'
    assert main(["explain", str(run_dir), review, "--heads", "--html", str(tmp_path / "e.html"),
                 "--png", str(tmp_path / "e.png")]) == 0
    page = (tmp_path / "e.html").read_text()
    assert "<script" not in page and "</script" not in page  # the words are split, then each is escaped
    assert "&lt;" in page and "&amp;" in page and ">alert<" in page
    assert page.count('class="row"') == 2 + 3  # the evidence row, the summed view and the 3 heads of the tiny model
    assert (tmp_path / "e.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_trains_reports_and_its_model_explains(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--set", "train.epochs=1", "--show", "2"]) == 0
    printed = capsys.readouterr().out
    assert "sst2_sample/test n=1821" in printed and "confusion matrix" in printed and "attention" in printed
    assert main(["explain", str(out), "a gorgeous and witty film"]) == 0
