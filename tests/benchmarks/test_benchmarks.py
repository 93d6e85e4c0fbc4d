"""Fast tests of the benchmark helpers: result writing, the TF-IDF baseline's dev selection, and rendering."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from attentive.data.example import Dataset, Example
from benchmarks import baselines, common, render, results_io
from benchmarks.formatting import fmt_mean_std

from ..import_graph import find_circle, module_imports


def _result(name: str, seed: int, accuracy: float, **extra) -> dict:
    """A hand-made result file as the benchmark scripts write it."""
    metrics = {"accuracy": accuracy, "macro_f1": accuracy - 0.01, "n": 100}
    return {
        "name": name, "command": f"python -m benchmarks.x --seed {seed}", "git_commit": "abc1234",
        "machine": {"cpu_model": "AMD EPYC 7B13 64-Core Processor", "cpu_cores": 2, "cuda_device": None},
        "date": "2025-01-01T00:00:00+00:00", "kind": "model", "recipe": "lama_ctx", "dataset": "imdb",
        "seed": seed, "wall_time_s": 100.0, "dev": {"accuracy": 0.9}, "test": metrics,
        "epoch_times_s": [100.0, 120.0], **extra,
    }


def _write(directory, result: dict) -> None:
    (directory / f"{result['name']}.json").write_text(json.dumps(result), encoding="utf-8")


def test_render_shows_mean_and_std_over_seeds(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    _write(results, _result("lama_ctx-imdb-s0", 0, 0.90, paper_reference=0.9095))
    _write(results, _result("lama_ctx-imdb-s1", 1, 0.92))
    output = tmp_path / "BENCHMARKS.md"

    text, appendix = render.render(results, output)

    assert output.read_text(encoding="utf-8") == text
    assert (tmp_path / "benchmarks" / "APPENDIX.md").read_text(encoding="utf-8") == appendix
    assert "Do not edit by hand" in text and "python -m benchmarks.render" in text
    assert "### imdb" in appendix  # the appendix's table of every run
    row = next(line for line in appendix.splitlines() if line.startswith("| model | lama_ctx |"))
    assert "| 2 |" in row  # two seeds, one group
    assert "91.00 ± 1.41" in row  # test accuracy mean ± sample std, in percent
    assert "90.95" in row  # paper column
    assert "1m 50s" in row  # mean epoch time
    assert "python -m benchmarks.x --seed 1" in appendix and "abc1234" in appendix  # footnotes
    # targets: IMDB accuracy reached, epoch time reached on the CPU machine, R8 not run
    assert "| reached |" in text
    assert "not run" in text


def test_a_group_run_on_two_machines_shows_each_machines_time(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    _write(results, _result("lama_ctx-imdb-s0", 0, 0.90, wall_time_s=3000.0))
    gpu = {"cpu_model": "Intel Xeon", "cpu_cores": 16, "cuda_device": "NVIDIA H100 80GB HBM3"}
    _write(results, _result("lama_ctx-imdb-s1", 1, 0.92, wall_time_s=40.0, epoch_times_s=[5.0], machine=gpu,
                            device="cuda"))

    row = next(line for line in render.render(results, tmp_path / "B.md").appendix.splitlines()
               if line.startswith("| model | lama_ctx |"))

    assert "| 50m 00s / 40.0 s | 1m 50s / 5.0 s | AMD EPYC 7B13 64-Core ×2, NVIDIA H100 80GB HBM3 |" in row


def test_render_target_not_reached_and_comparison(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    _write(results, _result("lama_ctx-imdb-s0", 0, 0.80, epoch_times_s=[300.0]))
    _write(results, {**_result("tfidf_lr-imdb-s0", 0, 0.90), "kind": "baseline", "recipe": None,
                     "model": "tfidf_lr", "epoch_times_s": None})
    (results / "broken.json").write_text("{not json", encoding="utf-8")

    text = render.render(results, tmp_path / "B.md").main

    assert text.count("**NOT reached**") == 3  # accuracy, epoch time, and below tfidf_lr
    assert "tfidf_lr: 90.00%" in text
    assert "`broken.json`: unreadable" in text


def _tiny_dataset(seed: int = 1) -> Dataset:
    """Separable toy sentiment data: words of one class plus shared noise words."""
    rng = random.Random(seed)
    words = {"pos": ["good", "great", "fine", "lovely"], "neg": ["bad", "awful", "poor", "dull"]}
    noise = ["the", "film", "was", "plot", "and", "a"]

    def examples(n: int) -> list[Example]:
        out = []
        for i in range(n):
            label = "pos" if i % 2 else "neg"
            tokens = rng.sample(noise, 3) + rng.sample(words[label], 2)
            rng.shuffle(tokens)
            out.append(Example(text="\n".join(tokens), label=label))
        return out

    return Dataset(name="toy", splits={"train": examples(40), "dev": examples(10), "test": examples(10)},
                   labels=["neg", "pos"])


def test_tfidf_baseline_selects_c_on_dev_and_writes_json(tmp_path):
    path, payload = baselines.run_baseline(_tiny_dataset(), "tfidf_lr", seed=0, results_dir=tmp_path)

    assert path == tmp_path / "tfidf_lr-toy-s0.json"
    written = json.loads(path.read_text(encoding="utf-8"))
    for key in ("name", "command", "git_commit", "machine", "date", "kind", "model", "dataset", "seed",
                "wall_time_s", "dev", "test", "hyperparameters", "grid", "selected_on"):
        assert key in written, key
    assert written["kind"] == "baseline" and written["model"] == "tfidf_lr" and written["seed"] == 0
    assert written["selected_on"].startswith("dev accuracy")
    grid = written["grid"]
    assert [row["C"] for row in grid] == list(baselines.TFIDF_C_GRID)
    best = max(grid, key=lambda row: (row["dev_accuracy"], -row["dev_log_loss"]))
    assert written["hyperparameters"]["C"] == best["C"]
    assert written["dev"]["accuracy"] == pytest.approx(best["dev_accuracy"])
    assert written["test"]["accuracy"] == 1.0
    assert payload["test"]["n"] == 10


def test_pair_bow_baseline_learns_a_relation_between_the_two_texts(tmp_path):
    """Whether the second text repeats a word of the first: both kinds of pair hold four different words, so one
    bag over both texts cannot tell them apart; |a - b| can."""
    rng = random.Random(0)
    words = ["cat", "dog", "bird", "fish", "cow", "pig", "hen", "owl"]

    def examples(n: int) -> list[Example]:
        out = []
        for i in range(n):
            x, y, z, w = rng.sample(words, 4)
            if i % 2:
                out.append(Example(text=f"{x} {y} {w}", label="same", text_pair=f"{x} {z}"))
            else:
                out.append(Example(text=f"{x} {y}", label="different", text_pair=f"{z} {w}"))
        return out

    toy = Dataset(name="pairs", splits={"train": examples(200), "dev": examples(40), "test": examples(40)},
                  labels=["different", "same"])
    _, pair = baselines.run_baseline(toy, "pair_bow_lr", seed=0, results_dir=tmp_path)
    _, bag = baselines.run_baseline(toy, "bow_lr", seed=0, results_dir=tmp_path)
    assert pair["test"]["accuracy"] == 1.0 and bag["test"]["accuracy"] < 0.8


_FASTTEXT_CHILD = """
import json, sys
from attentive.data.example import Dataset
from attentive.data.registry import load_dataset
from benchmarks import baselines
sample = load_dataset("sst2_sample")
splits = {"train": sample.splits["train"], "dev": sample.splits["dev"][:300], "test": sample.splits["test"][:300]}
dataset = Dataset("sst2_sample_train", splits, sample.labels)
try:
    payload = baselines.run_fasttext(dataset, seed=int(sys.argv[1]), grid=[{"epoch": 5, "lr": 0.1},
                                     {"epoch": 10, "lr": 0.5}], fixed={"dim": 10, "thread": 1})
except FloatingPointError as error:
    sys.exit(f"diverged: {error}")
print(json.dumps(payload))
"""


@pytest.mark.slow  # starts a process per seed
def test_fasttext_baseline_runs_on_small_real_data():
    """fastText on the whole bundled train split (2,500 sentences; on 600 it stays near chance), in a fresh process.

    fastText now and then stops with "Encountered NaN" where it has no reason to (dim 10, lr 0.1 or 0.5): in 3 of 8
    identical runs with 10,000 buckets, on CI's machine in all three attempts inside the full test process, and here
    once in six runs of the test files before this one in one process; yet 40 seeds of each setting ran clean in
    a fresh process of their own. The failure follows the process, not the settings, so fastText runs in a child
    process, and a grid that diverged entirely is tried again in a new one with the next seed, at most twice."""
    import subprocess
    import sys

    from benchmarks.common import REPO_ROOT

    for seed in range(3):
        child = subprocess.run([sys.executable, "-c", _FASTTEXT_CHILD, str(seed)], capture_output=True, text=True,
                               cwd=REPO_ROOT, timeout=300)
        if child.returncode == 0:
            break
    assert child.returncode == 0, child.stderr[-2000:]
    payload = json.loads(child.stdout.splitlines()[-1])
    assert [(row["epoch"], row["lr"]) for row in payload["grid"]] == [(5, 0.1), (10, 0.5)]
    assert payload["hyperparameters"]["dim"] == 10
    assert payload["test"]["n"] == 300 and payload["test"]["accuracy"] > 0.7


def test_select_on_dev_breaks_accuracy_ties_by_log_loss():
    """Selection only sees dev: best dev accuracy, ties to the lower dev log-loss, then to grid order."""
    import numpy as np

    confidence = {1: (0.5, 0.9), 2: (0.9, 0.6), 3: (0.9, 0.8), 4: (0.9, 0.8)}  # (accuracy, prob. of prediction)

    def score(model, texts):
        accuracy, p = confidence[model]
        correct = round(accuracy * len(texts))
        rows = [[p, 1 - p]] * correct + [[1 - p, p]] * (len(texts) - correct)
        return np.array(rows)

    model, chosen, report = baselines.select_on_dev(
        [{"k": k} for k in confidence], lambda s: s["k"], score, ["x"] * 10, ["a"] * 10, ["a", "b"]
    )
    assert (model, chosen) == (3, {"k": 3})
    assert [row["dev_accuracy"] for row in report] == [0.5, 0.9, 0.9, 0.9]


def test_example_text_is_single_line_with_aspect_and_pair():
    assert baselines.example_text(Example("a\nb", "x")) == "a b"
    assert baselines.example_text(Example("food ok", "x", aspect="food")) == "food [ASP] food ok"
    assert baselines.example_text(Example("p", "x", text_pair="h\n")) == "p [SEP] h"
    assert baselines.fasttext_label_tokens(["very good", "bad"]) == {
        "very good": "__label__very_good", "bad": "__label__bad"}


def test_write_result_adds_standard_fields(tmp_path):
    path = common.write_result("demo", {"kind": "baseline", "model": "m"}, tmp_path)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["name"] == "demo" and record["model"] == "m"
    assert record["command"].startswith("python")
    assert set(record["machine"]) >= {"platform", "cpu_model", "cpu_cores", "torch_version", "cuda_device"}
    assert record["date"].endswith("+00:00")


def test_targets_use_the_variant_dev_selected_among_those_with_most_seeds():
    results = [
        _result("a-s0", 0, 0.99, variant="sweep", dev={"accuracy": 0.99}),  # one seed only: a sweep try
        _result("b-s0", 0, 0.80, variant="b", dev={"accuracy": 0.91}),
        _result("b-s1", 1, 0.82, variant="b", dev={"accuracy": 0.93}),
        _result("c-s0", 0, 0.95, variant="c", dev={"accuracy": 0.90}),
        _result("c-s1", 1, 0.97, variant="c", dev={"accuracy": 0.90}),
    ]
    variant, runs = results_io.selected_runs(results, "imdb", "lama_ctx")
    assert variant == "b" and [r["name"] for r in runs] == ["b-s0", "b-s1"]  # test accuracy plays no part


def test_the_default_models_targets_check_the_default_as_it_ships_not_an_experiment_on_it():
    from benchmarks.render_targets import Target, target_measure

    results = [_result(f"default-s{seed}", seed, 0.80, recipe="default", variant="defaults", dev={"accuracy": 0.80})
               for seed in (0, 1, 2)]
    results += [_result(f"wide-s{seed}", seed, 0.90, recipe="default", variant="wide", dev={"accuracy": 0.85})
                for seed in (0, 1, 2)]  # a `--set` experiment that dev would select
    free = Target("imdb", "default", "test_accuracy", 0.85, "any variant")
    assert target_measure(results, free) == ("wide", pytest.approx(0.90))
    pinned = Target("imdb", "default", "test_accuracy", 0.85, "as shipped", variant="defaults")
    assert target_measure(results, pinned) == ("defaults", pytest.approx(0.80))


def test_a_diverging_setting_is_reported_and_skipped():
    def fit(setting):
        if setting["lr"] > 1:
            raise FloatingPointError("Encountered NaN.")
        return setting["lr"]

    model, chosen, report = baselines.select_on_dev(
        [{"lr": 5.0}, {"lr": 0.5}], fit, lambda m, texts: __import__("numpy").full((len(texts), 2), 0.5),
        ["x"] * 4, ["a"] * 4, ["a", "b"])
    assert chosen == {"lr": 0.5} and report[0]["diverged"] == "Encountered NaN."


def test_ssan_table_has_the_paper_shape_and_checks_its_claims():
    from benchmarks import render_ssan

    accuracy = {"barnes_lstm": 0.70, "bow_lr": 0.65, "ssan": 0.74, "ssan_pe": 0.72, "ssan_rpr": 0.75,
                "ssan2_rpr": 0.76, "transformer_pe": 0.71, "transformer_rpr": 0.73}
    results = []
    for name, value in accuracy.items():
        for dataset in render_ssan.DATASETS:
            for seed in (0, 1):
                results.append({**_result(f"{name}-{dataset}-s{seed}", seed, value + 0.01 * seed),
                                "recipe": name, "dataset": dataset})
    results.append({**_result("ssan_rpr-opener-adam-s0", 0, 0.99), "recipe": "ssan_rpr", "dataset": "opener",
                    "variant": "adam"})  # a variant stays out of the table
    lines = render_ssan.ssan_section(results)
    text = "\n".join(lines)

    row = next(line for line in lines if line.startswith("| 1-Layer SSAN + RPR |"))
    assert row.count("75.5 ± 0.7") == 6 and "| 75.5 | 2 |" in row
    assert next(line for line in lines if line.startswith("| CNN |")).count("—") == 8  # not run: no cell, no macro
    assert "On the macro average over all six datasets" in text
    assert "1-Layer SSAN + RPR is best: **does not hold** (best: ssan2_rpr" in text
    assert "RPR beats PE and no positions: holds" in text
    assert "No positions beats PE: holds" in text
    assert "A second SSAN layer does not help: **does not hold**" in text
    assert "above every baseline: holds" in text
    assert render_ssan.ssan_section([]) == []
    assert "300-d word2vec" not in text
    word2vec = results + [{**_result("ssan-opener-w2v300-s0", 0, 0.8), "recipe": "ssan", "dataset": "opener",
                           "variant": "w2v300"}]
    second = "\n".join(render_ssan.ssan_section(word2vec)).split("300-d word2vec")[1]
    assert "| 1-Layer SSAN | — | — | 80.0 | — | — | — | — | 1 |" in second
    partial = [r for r in results if r["dataset"] != "opener" or r["recipe"] != "ssan_pe"]
    assert "averages over the 5 datasets every SSAN row has so far" in "\n".join(render_ssan.ssan_section(partial))


def test_ssan_table_takes_the_barnes_dropout_dev_chose_per_dataset():
    from benchmarks import render_ssan

    def run(recipe, dataset, seed, dev, test, variant=""):
        result = {**_result(f"{recipe}-{dataset}-s{seed}", seed, test), "recipe": recipe, "dataset": dataset,
                  "dev": {"accuracy": dev}}
        return {**result, "variant": variant} if variant else result

    results = [run("barnes_lstm", "opener", 0, 0.80, 0.70), run("barnes_lstm", "opener", 1, 0.80, 0.72),
               run("barnes_lstm", "opener", 0, 0.85, 0.60, "edrop01"), run("barnes_lstm", "opener", 1, 0.70, 0.62,
                                                                           "edrop01"),
               run("barnes_lstm", "opener", 0, 0.75, 0.99, "edrop05"),  # best test, worse dev: not chosen
               run("barnes_cnn", "opener", 0, 0.80, 0.70), run("barnes_cnn", "opener", 0, 0.80, 0.80, "edrop01"),
               run("barnes_bilstm", "opener", 0, 0.80, 0.70), run("barnes_bilstm", "opener", 0, 0.90, 0.90,
                                                                  "edrop01")]  # no 0.5 run: sweep not complete
    results += [run("barnes_cnn", "opener", 0, 0.80, 0.50, "edrop05")]
    choices = render_ssan.dropout_choices(results)
    assert choices == {("barnes_lstm", "opener"): ("edrop01", 0.85), ("barnes_cnn", "opener"): ("", 0.80)}  # a tie
    cells = render_ssan.table_accuracies(results, choices=choices)
    assert cells[("barnes_lstm", "opener")] == [0.60, 0.62] and cells[("barnes_bilstm", "opener")] == [0.70]
    text = "\n".join(render_ssan.ssan_section(results))
    assert "| LSTM | — | — | 0.1 (85.0) | — | — | — |" in text and "| BiLSTM | — | — | — |" in text
    assert render_ssan.dropout_settings(results) == [
        "barnes_cnn opener", "barnes_lstm opener --variant edrop01 --set embedder.dropout=0.1"]


def test_pruned_section_sets_the_pruned_head_beside_the_full_one_with_its_parameter_counts():
    from benchmarks.render_pruned import pruned_section

    def run(recipe, seed, accuracy, params):
        result = _result(f"{recipe}-sst2-penalty0-s{seed}", seed, accuracy, recipe=recipe, dataset="sst2",
                         variant="penalty0", params=params, overrides=["train.regulariser.weight=0"])
        result["test"]["labels"] = ["0", "1"]
        return result

    results = [run("san", 0, 0.80, 3_600_000), run("san", 1, 0.82, 3_600_000), run("san_pruned", 0, 0.79, 800_000)]
    rows = [line for line in pruned_section(results) if line.startswith("| sst2 |")]

    # full head: 6000 x 512 + 512 hidden, 512 x 2 + 2 softmax; pruned: 30*200*25 + 30*25 + 200*30*20 + 200*20
    # hidden, (30*25 + 200*20) x 2 + 2 softmax
    assert rows[0].startswith("| sst2 | penalty0 | san | 3.07M | 1.0K | 526.5K | 3.60M | 2 | 81.00 ± 1.41 |")
    assert rows[1].startswith("| sst2 | penalty0 | san_pruned | 274.8K | 9.5K | 515.7K | 800.0K | 1 | 79.00 |")
    assert pruned_section([run("san", 0, 0.80, 3_600_000)]) == []  # no pruned runs: no section


def test_lama_table_takes_the_dev_chosen_variant_and_names_baselines_above_lama_ctx():
    from benchmarks import render_lama

    def run(recipe, dataset, seed, test, dev, variant=None, kind="model"):
        name = "-".join([recipe, dataset] + ([variant] if variant else []) + [f"s{seed}"])
        result = {**_result(name, seed, test), "recipe": recipe, "dataset": dataset, "kind": kind,
                  "dev": {"accuracy": dev}}
        return {**result, "variant": variant} if variant else result

    results = [run("lama_ctx", "imdb", s, 0.91 + 0.01 * s, 0.90) for s in (0, 1)]
    results += [run("lama_ctx", "imdb", s, 0.99, 0.80, variant="bad-dev") for s in (0, 1)]  # best test, worse dev
    results += [run("cnn", "imdb", s, 0.95, 0.90, variant="L1000") for s in (0, 1, 2)]
    results += [run("tfidf_lr", "imdb", 0, 0.90, 0.90, kind="baseline")]
    lines = render_lama.lama_section(results)
    text = "\n".join(lines)

    row = next(line for line in lines if line.startswith("| LAMA+Ctx |"))
    assert "91.50 ± 0.71 (2) | 90.0" in row and "not run" in row  # dev chose the shipped recipe over `bad-dev`
    assert "| CNN | 95.00 ± 0.00 (3) `L1000` | 87.4 |" in text
    assert "IMDB: LAMA+Ctx (91.50) at or above every model of ours: **does not hold**: above it CNN (+3.50" in text
    assert "| TF-IDF + LR |" not in text and "TF-IDF + LR: 90.00 (1) / not run / not run" in text  # not a paper row
    assert "TF-IDF + LR" not in text.split("above it")[1].split("\n")[0]  # 90.0 is below LAMA+Ctx
    assert "- News (headlines): LAMA+Ctx not run." in text
    assert render_lama.lama_section([]) == []


def test_characteristics_section_sets_the_papers_ratios_beside_ours():
    from benchmarks import render_ssan

    def row(recipe, params, train, infer):
        return {"recipe": recipe, "params": params + 1000, "params_without_embeddings": params, "epochs": 10,
                "train_seconds": train, "dev_inference_10x_seconds": infer, "peak_rss_mib": 700.0, "torch_threads": 1}

    rows = [row("barnes_lstm", 800, 300.0, 5.0), row("barnes_bilstm", 1600, 600.0, 10.0),
            row("ssan_pe", 400, 100.0, 4.0), row("ssan_rpr", 410, 120.0, 4.4)]
    result = {"settings": {"hidden": 300, "batch_size": 32, "optimizer": "adam", "vectors": "random 300-d"},
              "rows": rows, "git_commit": "abc1234", "date": "2026-01-01T00:00:00"}
    text = "\n".join(render_ssan.characteristics_section(result))

    assert "| ssan_rpr | 1,410 | 410 | 2m 00s | 4.4 s | 700 |" in text and "train 10 epochs" in text
    assert "| SSAN + RPR / SSAN + PE, training time | 1.112 | 1.200 |" in text
    assert "| BiLSTM / LSTM, parameters | ≈ 2 | 2.000 |" in text
    assert "| LSTM / mean SSAN, training time | 3.4 | 2.727 |" in text  # mean over the SSAN rows present
    assert "2-layer" not in text  # a comparison whose rows were not measured is left out
    assert "| fewest parameters without word vectors | barnes_cnn | ssan_pe |" in text


def test_table3_script_gives_each_run_its_own_job_with_its_settings():
    """A dry run (PY=echo) of benchmarks/reproduce_table3.sh: one benchmarks.run command per (recipe, variant, seed),
    the dataset's shared settings first and the recipe's own after them, no two jobs joined into one line."""
    import os
    import subprocess

    from benchmarks.common import REPO_ROOT

    env = {**os.environ, "PY": "echo", "SEEDS": "0 1"}
    out = subprocess.run(["bash", str(REPO_ROOT / "benchmarks" / "reproduce_table3.sh"), "news"], env=env,
                         capture_output=True, text=True, check=True).stdout
    runs = [line for line in out.splitlines() if "benchmarks.run" in line]
    assert len(runs) == 2 * 10 and all(line.count("--recipe") == 1 for line in runs)
    san = [line for line in runs if "--recipe san " in line and "--seeds 1 " in line]
    assert len(san) == 2 and any("--variant L50-norm1" in line and "train.regulariser.type=frobenius_norm" in line
                                 for line in san)
    minilm = next(line for line in runs if "--recipe minilm " in line)
    assert minilm.index("tokenizer.max_length=50") < minilm.index("tokenizer.max_length=256")  # the later one wins
    assert "train.batches_per_epoch=1000" in minilm and minilm.rstrip().endswith("--skip-existing --no-progress")


def test_ssan_script_sweeps_dropout_on_seed_0_then_runs_every_seed_at_the_dev_choice(tmp_path):
    """A dry run of benchmarks/reproduce_ssan.sh whose render_ssan step answers that dev chose 0.1 for LSTM on
    OpeNER: the sweep's three rates run seed 0, and later seeds of that cell carry the chosen variant only."""
    import os
    import subprocess

    from benchmarks.common import REPO_ROOT

    fake_python = tmp_path / "py"
    fake_python.write_text('#!/usr/bin/env bash\nif [[ "$2" == benchmarks.render_ssan ]]; then\n'
                           '  echo "barnes_lstm opener --variant edrop01 --set embedder.dropout=0.1"\n'
                           '  echo "barnes_cnn opener"\nelse echo "$@"; fi\n', encoding="utf-8")
    fake_python.chmod(0o755)
    env = {**os.environ, "PY": str(fake_python), "SEEDS": "1"}
    out = subprocess.run(["bash", str(REPO_ROOT / "benchmarks" / "reproduce_ssan.sh"), "opener"], env=env,
                         capture_output=True, text=True, check=True).stdout
    runs = [line for line in out.splitlines() if "benchmarks.run" in line]
    assert len(runs) == 9 + 9 and all(line.count("--recipe") == 1 for line in runs)
    assert sum("--seeds 0 --variant edrop05 --set embedder.dropout=0.5" in line for line in runs) == 3
    later = {line.split()[3]: line for line in runs if "--seeds 1" in line}
    assert "--variant edrop01 --set embedder.dropout=0.1" in later["barnes_lstm"]
    assert "--variant" not in later["barnes_cnn"] and "--variant" not in later["barnes_bilstm"]


def test_a_run_made_under_another_name_with_the_same_settings_counts_as_that_variant(tmp_path, capsys):
    """benchmarks.common.SAME_SETTINGS: R8's `gpu-L1000-scale5` LAMA+Ctx runs are `L1000` runs, for the renderer's
    groups and for --skip-existing."""
    from benchmarks import run
    from benchmarks.results_io import load_results

    as_run = {**_result("lama_ctx-r8-gpu-L1000-scale5-s0", 0, 0.97), "dataset": "r8", "variant": "gpu-L1000-scale5"}
    (tmp_path / "lama_ctx-r8-gpu-L1000-scale5-s0.json").write_text(json.dumps(as_run), encoding="utf-8")
    (loaded,), _ = load_results(tmp_path)
    assert loaded["variant"] == "L1000" and loaded["variant_as_run"] == "gpu-L1000-scale5"
    assert run.main(["--recipe", "lama_ctx", "--dataset", "r8", "--variant", "L1000", "--seeds", "0",
                     "--skip-existing", "--results-dir", str(tmp_path), "--no-progress"]) == 0
    assert "lama_ctx-r8-L1000-s0: result already there as lama_ctx-r8-gpu-L1000-scale5-s0, skipped" in \
        capsys.readouterr().out


def test_run_skips_seeds_whose_result_exists(tmp_path, capsys):
    from benchmarks import run

    (tmp_path / "ssan-opener-s0.json").write_text("{}", encoding="utf-8")
    assert run.main(["--recipe", "ssan", "--dataset", "opener", "--seeds", "0", "--skip-existing",
                     "--results-dir", str(tmp_path), "--no-progress"]) == 0
    assert "ssan-opener-s0: result already there, skipped" in capsys.readouterr().out
    assert (tmp_path / "ssan-opener-s0.json").read_text(encoding="utf-8") == "{}"


def test_defaults_table_opens_benchmarks_and_sets_the_default_beside_the_better_baseline(tmp_path):
    from benchmarks.render_defaults import defaults_section

    results = [_result("default-sst2-defaults-s0", 0, 0.84, recipe="default", dataset="sst2", variant="defaults"),
               _result("default-sst2-defaults-s1", 1, 0.82, recipe="default", dataset="sst2", variant="defaults"),
               _result("default-sst2-tuned-s0", 0, 0.99, recipe="default", dataset="sst2", variant="tuned"),
               {**_result("tfidf_lr-sst2-s0", 0, 0.81, dataset="sst2", kind="baseline"), "recipe": None,
                "model": "tfidf_lr"},
               {**_result("fasttext-sst2-s0", 0, 0.85, dataset="sst2", kind="baseline"), "recipe": None,
                "model": "fasttext"},
               {**_result("model2vec-sst2-s0", 0, 0.80, dataset="sst2", kind="baseline"), "recipe": None,
                "model": "model2vec"}]
    lines = defaults_section(results)
    [row] = [line for line in lines if line.startswith("| sst2 ")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "83.00 ± 1.41 (2)"  # only the `defaults` variant counts, not a tuned one
    assert cells[2:4] == ["—", "—"]  # no run of `documents`, nor of `opinion`, the default until commit a798496
    assert cells[4:7] == ["81.00", "85.00", "80.00 (1)"] and cells[8] == "-2.00"  # below the best peer, fastText
    for result in results:
        _write(tmp_path, result)
    text, appendix = render.render(tmp_path, tmp_path / "B.md")
    assert text.index("## The default model against the baselines") < text.index("## Targets")
    assert "### sst2" in appendix and "### sst2" not in text  # every run of sst2: in the appendix only


def test_the_defaults_table_shows_documents_and_where_it_is_within_half_a_point_of_the_best_baseline():
    from benchmarks.render_defaults import defaults_section

    def run(recipe, dataset, seed, test, variant=None):
        return _result(f"{recipe}-{dataset}-s{seed}", seed, test, recipe=recipe, dataset=dataset, variant=variant)

    results = [run("default", "imdb", seed, 0.893, "defaults") for seed in range(3)]
    results += [run("documents", "imdb", seed, 0.905 + 0.001 * seed) for seed in range(3)]
    results += [run("documents", "news", seed, 0.900) for seed in range(3)]
    results += [{**_result(f"tfidf_lr-{name}-s0", 0, test, dataset=name, kind="baseline"), "recipe": None,
                 "model": "tfidf_lr"} for name, test in (("imdb", 0.9044), ("news", 0.9096))]
    lines = defaults_section(results)
    [row] = [line for line in lines if line.startswith("| imdb ")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1:3] == ["89.30 ± 0.00 (3)", "90.60 ± 0.10 (3)"]  # sample std, as every table
    assert cells[8:10] == ["-1.14", "+0.16"]  # each against the best baseline
    [row] = [line for line in lines if line.startswith("| news ")]
    assert [cell.strip() for cell in row.strip("|").split("|")][8:10] == ["—", "-0.96"]
    text = "\n".join(lines)
    assert "`documents` is within 0.5 of the best baseline on 1 of the 2 sets it ran on (more below on news -0.96), " \
        "at or above it on 1;" in text
    assert "is within 0.5" not in "\n".join(defaults_section(results[:3]))  # no run of documents: no sentence


def test_the_gated_row_shows_the_family_variant_best_on_dev_over_three_seeds():
    from benchmarks.render_defaults import GATED_FAMILY, gated_variant

    def run(variant, seed, dev):
        return {**_result(f"lama_pair-sick-{variant}-s{seed}", seed, 0.7, recipe="lama_pair", dataset="sick",
                          variant=variant), "dev": {"accuracy": dev}}

    results = ([run(GATED_FAMILY, seed, 0.76) for seed in range(3)]
               + [run(f"{GATED_FAMILY}-pooler-heads-30", seed, 0.78) for seed in range(3)]
               + [run(f"{GATED_FAMILY}-head-hidden-600", seed, 0.90) for seed in range(2)]  # two seeds: not ranked
               + [run("gated-glove", seed, 0.95) for seed in range(3)])  # another family
    assert gated_variant(results) == f"{GATED_FAMILY}-pooler-heads-30"
    assert gated_variant(results[:3]) == GATED_FAMILY


def test_sweep_table_ranks_only_candidates_with_every_dataset_by_mean_dev(tmp_path):
    from benchmarks.sweep_table import dev_scores, ranked

    for variant, dataset, seed, dev in [("a", "x", 0, 0.80), ("a", "x", 1, 0.90), ("a", "y", 0, 0.60),
                                        ("b", "x", 0, 0.80), ("b", "y", 0, 0.80), ("c", "x", 0, 0.99),
                                        ("b", "outside", 0, 0.10)]:
        _write(tmp_path, {**_result(f"r-{variant}-{dataset}-{seed}", seed, 0.5, dataset=dataset, variant=variant),
                          "dev": {"accuracy": dev}})
    datasets, rows = ranked(dev_scores(tmp_path, ("x", "y")))  # a dataset outside the sweep is not read
    assert datasets == ["x", "y"]
    assert [(name, overall) for name, overall, _ in rows] == [("b", pytest.approx(80.0)), ("a", pytest.approx(72.5)),
                                                              ("c", None)]


def test_sweep_table_pairs_gains_by_seed_over_the_seeds_both_candidates_ran_everywhere(tmp_path):
    from benchmarks.sweep_table import main, paired, seed_scores

    for variant, seed, x, y in [("base", 0, 0.80, 0.60), ("base", 1, 0.70, 0.70), ("new", 0, 0.90, 0.60),
                                ("new", 1, 0.70, 0.60), ("new", 2, 0.99, 0.99), ("part", 0, 0.99, None)]:
        for dataset, dev in (("x", x), ("y", y)):
            if dev is not None:
                _write(tmp_path, {**_result(f"r-{variant}-{dataset}-{seed}", seed, 0.5, dataset=dataset,
                                            variant=variant), "dev": {"accuracy": dev}})
    rows = paired(seed_scores(tmp_path, ("x", "y")), "base")
    assert [name for name, _ in rows] == ["new"]  # "part" ran one dataset only; seed 2 has no base to pair with
    assert rows[0][1] == {0: pytest.approx(5.0), 1: pytest.approx(-5.0)}
    assert main(["--results-dir", str(tmp_path), "--against", "missing"]) == 2


def test_the_held_part_of_dev_scores_candidates_and_chooses_nothing(sst2_small, tmp_path):
    from benchmarks.run import with_held_out_dev
    from benchmarks.sweep_table import dev_scores

    held = with_held_out_dev(sst2_small, 0.5)
    selection, part = held.splits["dev"], held.splits["held"]
    assert len(selection) + len(part) == len(sst2_small.splits["dev"]) and abs(len(selection) - len(part)) <= 1
    assert not {id(ex) for ex in selection} & {id(ex) for ex in part}
    assert held.splits["train"] is sst2_small.splits["train"] and held.splits["test"] is sst2_small.splits["test"]
    for label in sst2_small.labels:  # stratified: each label about as common in both parts
        share = [sum(ex.label == label for ex in split) / len(split) for split in (selection, part)]
        assert abs(share[0] - share[1]) < 0.05
    assert [ex.text for ex in with_held_out_dev(sst2_small, 0.5).splits["held"]] == [ex.text for ex in part]
    from benchmarks.run import run_one

    from ..helpers import tiny_overrides

    path = run_one("lama_ctx", held, 0, tiny_overrides("lama_ctx") + ["train.epochs=1"], "v", None, None,
                   tmp_path / "runs", False)
    result = json.loads(path.read_text())
    assert result["dev"]["n"] == len(selection) and result["held_dev"]["n"] == len(part)
    _write(tmp_path, {**_result("r-a-x-0", 0, 0.5, dataset="x", variant="a"), "dev": {"accuracy": 0.9},
                      "held_dev": {"accuracy": 0.7}})
    _write(tmp_path, {**_result("r-b-x-0", 0, 0.5, dataset="x", variant="b"), "dev": {"accuracy": 0.9}})
    assert dev_scores(tmp_path, ("x",), "held_dev") == {"a": {"x": [pytest.approx(70.0)]}}  # b held nothing back


@pytest.mark.parametrize("script, candidate, runs", [("sweep_defaults.sh", "base", 7),
                                                     ("sweep_pair.sh", "pair-h150", 1),
                                                     ("sweep_aspect.sh", "default_aspect", 2)])
def test_a_sweep_with_held_set_holds_part_of_dev_back_in_its_own_folder(script, candidate, runs):
    import os
    import subprocess

    from benchmarks.common import REPO_ROOT

    def job_lines(**held) -> list[str]:
        env = {**os.environ, "PY": "echo", "SEEDS": "0", **held}
        out = subprocess.run(["bash", str(REPO_ROOT / "benchmarks" / script), candidate], env=env,
                             capture_output=True, text=True, check=True).stdout
        return [line for line in out.splitlines() if "benchmarks.run" in line]

    held = job_lines(HELD="0.5")
    assert len(held) == runs and all("--results-dir benchmarks/results/sweeps-held --held-out-dev 0.5" in line
                                     for line in held)
    assert all("--results-dir benchmarks/results/sweeps " in line + " " and "held" not in line for line in job_lines())


def test_fmt_mean_std_formats_percent_or_any_scale():
    assert fmt_mean_std([0.90, 0.92]) == "91.00 ± 1.41" and fmt_mean_std([0.9]) == "90.00"
    assert fmt_mean_std([]) == "—" and fmt_mean_std([0.745, 0.755], 1) == "75.0 ± 0.7"
    assert fmt_mean_std([0.1, 0.2], 3, scale=1.0) == "0.150 ± 0.071"


def test_the_benchmarks_modules_import_no_circle(tmp_path):
    graph = module_imports(Path(render.__file__).parent, "benchmarks")
    assert {"benchmarks.render", "benchmarks.render_ssan", "benchmarks.results_io"} <= set(graph)
    assert "benchmarks.render_ssan" in graph["benchmarks.render"]  # the walk sees the section imports
    assert find_circle(graph) is None, find_circle(graph)
    for name, imported in graph.items():  # sections read through results_io and formatting, never each other
        if name.startswith("benchmarks.render_"):
            assert not {m for m in imported if m.startswith("benchmarks.render")}, name
    # the finder finds a circle: a synthetic graph, and a package whose circle closes in a lazy relative import
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "top.py").write_text("from pkg import part\n", encoding="utf-8")
    (package / "part.py").write_text("def f():\n    from .top import g\n", encoding="utf-8")
    assert find_circle(module_imports(package, "pkg")) == ["pkg.part", "pkg.top", "pkg.part"]


def test_the_papers_numbers_are_read_from_one_file():
    papers = results_io.load_papers()
    assert {"lama", "wang2016", "lin2017", "ssan"} <= set(papers)
    assert all(paper["source"] and paper["short"] for paper in papers.values())
    assert results_io.paper_accuracy("lama_ctx", "imdb") == 0.900
    assert results_io.paper_accuracy("atae_lstm", "semeval14_category_binary") == 0.899
    assert results_io.paper_accuracy("lama_ctx", "news") is None  # our News is not the paper's
    assert results_io.paper_best("r8") == (0.978, "BERT", "LAMA paper, Table 3")
    folder = Path(render.__file__).parent
    for path in folder.glob("render*.py"):  # no paper figure typed into a renderer
        text = path.read_text(encoding="utf-8")
        assert "0.831" not in text and "55.3" not in text and "1.027" not in text, path.name


def test_the_summary_picks_each_tasks_model_on_dev_never_on_test(tmp_path):
    def run(recipe, seed, dev, test, variant=None, **extra):
        name = "-".join([recipe, "r8"] + ([variant] if variant else []) + [f"s{seed}"])
        result = {**_result(name, seed, test, recipe=recipe, dataset="r8", dev={"accuracy": dev}), **extra}
        result["test"]["labels"] = [str(i) for i in range(8)]
        return {**result, "variant": variant} if variant else result

    results = [run("lama_ctx", s, 0.96, 0.95 + 0.01 * s, "L1000", params=3_400_000) for s in range(3)]
    results += [run("cnn", s, 0.95, 0.99) for s in range(3)]  # best test, worse dev: not chosen
    results += [run("san", 0, 0.99, 0.99)]  # one seed: a sweep try does not compete
    results += [{**_result("tfidf_lr-r8-s0", 0, 0.97, dataset="r8", kind="baseline", dev={"accuracy": 0.94}),
                 "recipe": None, "model": "tfidf_lr", "epoch_times_s": None}]
    for result in results:
        _write(tmp_path, result)
    text, appendix = render.render(tmp_path, tmp_path / "B.md")

    [row] = [line for line in text.splitlines() if line.startswith("| r8 | 8 |")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[2:6] == ["**lama_ctx (L1000)**", "3", "96.00", "**96.00 ± 1.00**"]
    assert cells[6:9] == ["97.00", "—", "97.8 (BERT)"]  # TF-IDF + LR, fastText not run, the paper's best
    assert cells[9:] == ["3.4M", "1m 50s CPU"]
    order = ["## Summary", "## The default model", "## Targets", "## Document classification (LAMA paper Table 3)",
             "## More in the appendix"]
    assert [text.index(heading) for heading in order] == sorted(text.index(heading) for heading in order)
    order = ["## Appendix: every run", "### r8", "## Runs"]
    assert [appendix.index(heading) for heading in order] == sorted(appendix.index(heading) for heading in order)
    assert "| model | san |" in appendix and "| model | san |" not in text


def test_the_summary_sets_no_run_of_an_older_dev_split_beside_the_current_ones():
    from benchmarks.render_summary import summary_section
    from benchmarks.results_io import DEV_SPLIT_SINCE

    def run(recipe, seed, dev, date):
        return {**_result(f"{recipe}-imdb-s{seed}", seed, 0.9, date=date), "recipe": recipe,
                "dev": {"accuracy": dev}}

    before, after = "2025-01-01T00:00:00+00:00", DEV_SPLIT_SINCE["imdb"]
    results = [run("cnn", s, 0.99, before) for s in range(3)] + [run("lama_ctx", s, 0.88, after) for s in range(3)]
    row = next(line for line in summary_section(results) if line.startswith("| imdb |"))
    assert "**lama_ctx**" in row and "| 88.00 |" in row  # the older split's 99% dev does not win
    assert not any(line.startswith("| imdb |") for line in summary_section(results[:3]))  # none current: no row


def _link_problems(path: Path) -> list[str]:
    """Links of the markdown file `path` (to files and to headings) that lead nowhere."""
    def headings(file: Path) -> set[str]:
        return {render.anchor(line.lstrip("#")) for line in file.read_text(encoding="utf-8").splitlines()
                if line.startswith("#")}

    problems = []
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        file, _, fragment = target.partition("#")
        linked = path.parent / file if file else path
        if not linked.is_file():
            problems.append(f"{target}: no such file")
        elif fragment and fragment not in headings(linked):
            problems.append(f"{target}: no such heading")
    return problems


def _run_entries(appendix: str) -> dict[str, str]:
    """The appendix's list of runs: footnote number -> the result file its entry links."""
    return dict(re.findall(r"^(\d+)\. \[`[^`]+`\]\(([^)]+)\)", appendix, flags=re.MULTILINE))


def test_the_notes_and_every_run_go_to_the_appendix_and_every_number_leads_to_its_result_file(tmp_path,
                                                                                               monkeypatch):
    notes = tmp_path / "notes.md"
    notes.write_text("## Notes on these results\n\nA sweep diary: try 7 beat try 6 on dev.\n", encoding="utf-8")
    monkeypatch.setattr(render, "NOTES", notes)
    results = tmp_path / "results"
    results.mkdir()
    for seed in range(2):
        _write(results, _result(f"lama_ctx-imdb-s{seed}", seed, 0.90))
        _write(results, _result(f"san-r8-s{seed}", seed, 0.95, recipe="san", dataset="r8"))
    output = tmp_path / "site" / "BENCHMARKS.md"
    output.parent.mkdir()

    text, appendix = render.render(results, output)

    for moved in ("sweep diary", "## Notes on these results", "## Appendix: every run", "## Runs", "### r8"):
        assert moved in appendix and moved not in text, moved
    assert "](benchmarks/APPENDIX.md)" in text  # the main file links its appendix
    assert _link_problems(output) == [] and _link_problems(output.parent / "benchmarks" / "APPENDIX.md") == []
    entries = _run_entries(appendix)
    assert len(entries) == 4 and all((output.parent / "benchmarks" / link).resolve().parent == results
                                     for link in entries.values())
    cited = re.findall(r"\[(\d+)\](?!\()", text + appendix)  # every footnote number, in either file
    assert cited and set(cited) <= set(entries)


def test_the_repositorys_benchmarks_md_is_under_60_kb_with_its_appendix_elsewhere(tmp_path):
    output = tmp_path / "BENCHMARKS.md"

    text, appendix = render.render(common.RESULTS_DIR, output)

    assert output.stat().st_size < 60_000, output.stat().st_size
    assert "## Runs" in appendix and "## Runs" not in text
    assert len(_run_entries(appendix)) > 100 and "## Notes on these results" in appendix


def test_the_imdb_student_lines_set_both_students_beside_the_peers():
    from benchmarks.render_deployable import imdb_student_lines

    def cell(values):
        return {"mean": sum(values) / len(values), "std": 0.01, "values": values}

    result = {"name": "imdb-student", "hard": {"per_seed": {0: {}, 1: {}}, "dev_accuracy": cell([0.88, 0.88]),
                                                "test_accuracy": cell([0.89, 0.89])},
              "ensemble_unsup": {"per_seed": {0: {}}, "teachers": ["a", "b"], "dev_accuracy": cell([0.885]),
                                 "test_accuracy": cell([0.90])}}
    lines = imdb_student_lines([result], {"TF-IDF + LR": 0.9044, "fastText": 0.8941})
    assert "TF-IDF + LR 90.44, fastText 89.41" in lines[0] and "imdb-student.json" in lines[0]
    assert "| hard labels alone | 2 | 88.00 ± 1.00 | 89.00 ± 1.00 |" in lines
    assert "| distilled from those 2 averaged, over IMDB's unlabelled reviews | 1 | 88.50 (1 seed) | 90.00 (1 seed) |" \
        in lines  # one seed has no spread to show
    assert imdb_student_lines([], {}) == []


def test_the_deployable_verdict_gives_document_sets_their_own_size_bound():
    from benchmarks.render_deployable import _verdict

    def system(accuracy, int8_mb=1.0, docs_per_s=100.0):
        return {"accuracy": {"mean": accuracy}, "int8_mb": int8_mb, "docs_per_s": docs_per_s}

    systems = {"default": system(0.90), "student": system(0.90, int8_mb=7.84, docs_per_s=200.0),
               "tfidf_lr": system(0.89), "fasttext": system(0.88)}
    assert _verdict(systems, "news") == "distilled: reached"  # "≤ 10 MB on IMDB and News"
    assert _verdict(systems, "sst2") == "distilled: not reached: int8 7.84 MB"  # ≤ 5 MB on a sentence set
    systems["student"] = system(0.893, int8_mb=2.0, docs_per_s=50.0)
    assert _verdict(systems, "sst2") == "distilled: not reached: 0.70 below opinion; predict_proba's 0.50× TF-IDF + " \
                                        "LR's texts/s"
    systems["student"] = {**system(0.90, docs_per_s=200.0), "predict_docs_per_s": 80.0}  # what users call is timed
    systems["model2vec"] = system(0.91)  # a peer of the run counts where it was measured
    assert _verdict(systems, "sst2") == "distilled: not reached: 1.00 below the better peer; predict's 0.80× " \
                                        "TF-IDF + LR's texts/s"
    systems["student_alone"] = system(0.91, docs_per_s=120.0)  # the compact model as it ships: trained alone
    assert _verdict(systems, "sst2") == "alone: reached"


def test_interleaved_timing_takes_each_systems_passes_in_turn():
    from benchmarks.deploy_speed import interleaved_docs_per_second

    calls = []
    systems = {name: (lambda batch, name=name: calls.append((name, len(batch)))) for name in ("ours", "peer")}
    speeds = interleaved_docs_per_second(systems, ["a text"] * 300, passes=3)
    assert set(speeds) == {"ours", "peer"} and all(value > 0 for value in speeds.values())
    passes = [name for name, size in calls if size == 44]  # the last batch of each pass: 300 = 128 + 128 + 44
    assert passes == ["ours", "peer"] * 4  # one untimed pass each, then three rounds, one pass of each in turn


def test_the_shipped_table_checks_each_dataset_against_issue_45s_bounds():
    from benchmarks.render_shipped import shipped_section

    def run(dataset, int8_mb, predict, linear, p50=0.15, fast=1000.0):
        ours = {"test_accuracy": 0.9, "int8_test_accuracy": 0.9, "int8_mb": int8_mb, "predict_docs_per_s": predict,
                "docs_per_s": 2 * predict, "predict_p50_ms": p50, "train_s": 60.0}
        return {"kind": "shipped", "dataset": dataset, "machine": {"cpu_model": "AMD EPYC", "cpu_cores": 2},
                "systems": {"default": ours, "tfidf_lr": {"docs_per_s": linear}, "fasttext": {"docs_per_s": fast},
                            "model2vec": {"docs_per_s": 10.0}}}

    lines = shipped_section([run("sst2", 4.0, 900.0, 1000.0), run("imdb", 9.0, 300.0, 100.0, p50=0.3),
                             run("news", 11.0, 500.0, 400.0), {"kind": "deployable"}])
    table = [line for line in lines if line.startswith("| ")]
    assert [line.split(" | ")[0] for line in table[2:]] == ["| imdb", "| news", "| sst2"]  # the defaults' order
    assert "| 9.00 (10) | 300 | 600 | 100 |" in table[2] and "| 3.00× | 0.300 |" in table[2]
    assert "| 4.00 (5) |" in table[4] and "| 0.90× |" in table[4]  # a sentence set's bound is 5 MB
    bounds = lines[-2]
    assert "int8 within its bound on 2;" in bounds  # News' 11 MB is over its 10
    assert "at or above TF-IDF + LR's texts/s on 2;" in bounds and "p50 ≤ 0.2 ms on 2." in bounds
    assert "On SST-2 `predict` runs at 0.90× fastText's texts/s" in bounds
    assert shipped_section([{"kind": "deployable"}]) == []


def test_the_frontier_marks_the_points_no_other_beats_and_computes_its_rule_from_dev():
    from benchmarks.render_frontier import OPINION_SETS, TOPIC_SETS, frontier_section, on_frontier

    found = {"fast": {"test": [0.80], "speed": 100.0}, "slow": {"test": [0.90], "speed": 10.0},
             "beaten": {"test": [0.79], "speed": 50.0}, "tied": {"test": [0.80], "speed": 100.0}}
    assert on_frontier({k: v for k, v in found.items() if k != "tied"}) == {"fast", "slow"}
    assert on_frontier(found) == {"fast", "tied", "slow"}  # equal points beat neither

    def model(recipe, variant, dataset, dev, test):
        return {"kind": "model", "recipe": recipe, "variant": variant, "dataset": dataset, "seed": 0,
                "dev": {"accuracy": dev}, "test": {"accuracy": test}}

    def timed(dataset, bigru_speed):
        systems = {"default": 3000.0, "bigru32": bigru_speed, "opinion": 100.0}
        return {"kind": "frontier", "dataset": dataset, "machine": {"cpu_model": "AMD EPYC", "cpu_cores": 2},
                "candidates": {"default": ["default", "defaults"], "bigru32": ["default", "bigru32"],
                               "opinion": ["opinion", "defaults"]},
                "systems": {**{name: {"predict_docs_per_s": speed, "int8_mb": 1.0} for name, speed in systems.items()},
                            **{peer: {"docs_per_s": 2000.0, "int8_mb": 1.0}
                               for peer in ("tfidf_lr", "fasttext", "model2vec")}}}

    results = [timed("sst2", 500.0), model("default", "defaults", "sst2", 0.80, 0.82),
               model("default", "bigru32", "sst2", 0.82, 0.83), model("opinion", "defaults", "sst2", 0.84, 0.85)]
    lines = frontier_section(results)
    row = next(line for line in lines if line.startswith("| sst2"))
    assert "| 82.00 · 3.0k |" in row and "| — · 2.0k |" in row  # a peer without result files has no accuracy
    assert row.endswith("| default, default + biGRU 32, opinion |")  # each faster or more accurate than the next
    assert "not computed yet" in lines[-2]  # one of the eight sets
    sets = OPINION_SETS + TOPIC_SETS
    results = [item for d in sets for item in (timed(d, 300.0 if d == "r8" else 500.0),
                                               model("default", "bigru32", d, 0.84, 0.5),
                                               model("opinion", "defaults", d, 0.845, 0.5))]
    rule = frontier_section(results)[-2]
    assert "84.00 against `opinion`'s 84.50" in rule and "3.00-5.00× `opinion`'s" in rule
    assert rule.endswith("It is a measured point, not a recipe.")  # 0.5 below on dev
    results = [{**r, "dev": {"accuracy": 0.845}} if r.get("variant") == "bigru32" else r for r in results]
    assert frontier_section(results)[-2].endswith("It becomes a named recipe.")
    assert frontier_section([{"kind": "shipped"}]) == []


def test_the_frontier_is_drawn_one_panel_a_dataset(tmp_path):
    from benchmarks.frontier import plot

    def model(recipe, variant, dataset, test):
        return {"kind": "model", "recipe": recipe, "variant": variant, "dataset": dataset, "seed": 0,
                "dev": {"accuracy": test}, "test": {"accuracy": test}}

    peers = {peer: {"docs_per_s": 2000.0, "int8_mb": 1.0} for peer in ("tfidf_lr", "fasttext", "model2vec")}
    timed = {"kind": "frontier", "dataset": "sst2", "candidates": {"default": ["default", "defaults"]},
             "systems": {"default": {"predict_docs_per_s": 3000.0, "int8_mb": 1.0}, **peers}}
    plot([timed, model("default", "defaults", "sst2", 0.83), model("tfidf_lr", None, "sst2", 0.81)], tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_variants_table_says_how_many_copies_the_budget_let_a_student_make():
    from benchmarks.render_deployable import _distillation

    asked = {"loss": "mse", "soft_weight": 1.0, "augment": 8}
    assert _distillation(asked) == "mse × 1.0, 8 copies"
    assert _distillation({**asked, "copies_made": [8, 8]}) == "mse × 1.0, 8 copies"
    assert _distillation({**asked, "copies_made": [0]}) == "mse × 1.0, 8 copies (0 made)"


def test_the_repositorys_benchmarks_md_and_its_appendix_link_only_to_what_exists():
    for path in (common.REPO_ROOT / "BENCHMARKS.md", common.REPO_ROOT / "benchmarks" / "APPENDIX.md"):
        assert _link_problems(path) == [], path
