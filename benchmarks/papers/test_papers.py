"""The papers' tables, claims, reproduce scripts and the long-text experiment."""
from __future__ import annotations

import json
from concurrent.futures import Future

from attentive import Dataset, Example
from benchmarks import render
from benchmarks.harness.common import made_result
from benchmarks.papers.lama import long_texts
from benchmarks.papers.lama.long_texts import TITLE, long_texts_section


def test_ssan_table_has_the_paper_shape_and_checks_its_claims():
    from benchmarks.papers.ssan import render_ssan

    accuracy = {"barnes_lstm": 0.70, "bow_lr": 0.65, "ssan": 0.74, "ssan_pe": 0.72, "ssan_rpr": 0.75,
                "ssan2_rpr": 0.76, "transformer_pe": 0.71, "transformer_rpr": 0.73}
    results = []
    for name, value in accuracy.items():
        for dataset in render_ssan.DATASETS:
            for seed in (0, 1):
                results.append({**made_result(f"{name}-{dataset}-s{seed}", seed, value + 0.01 * seed),
                                "recipe": name, "dataset": dataset})
    results.append({**made_result("ssan_rpr-opener-adam-s0", 0, 0.99), "recipe": "ssan_rpr", "dataset": "opener",
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
    word2vec = results + [{**made_result("ssan-opener-w2v300-s0", 0, 0.8), "recipe": "ssan", "dataset": "opener",
                           "variant": "w2v300"}]
    second = "\n".join(render_ssan.ssan_section(word2vec)).split("300-d word2vec")[1]
    assert "| 1-Layer SSAN | — | — | 80.0 | — | — | — | — | 1 |" in second
    partial = [r for r in results if r["dataset"] != "opener" or r["recipe"] != "ssan_pe"]
    assert "averages over the 5 datasets every SSAN row has so far" in "\n".join(render_ssan.ssan_section(partial))


def test_ssan_table_takes_the_barnes_dropout_dev_chose_per_dataset():
    from benchmarks.papers.ssan import render_ssan

    def run(recipe, dataset, seed, dev, test, variant=""):
        result = {**made_result(f"{recipe}-{dataset}-s{seed}", seed, test), "recipe": recipe, "dataset": dataset,
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
    from benchmarks.papers.lin2017.render_pruned import pruned_section

    def run(recipe, seed, accuracy, params):
        result = made_result(f"{recipe}-sst2-penalty0-s{seed}", seed, accuracy, recipe=recipe, dataset="sst2",
                         variant="penalty0", params=params, overrides=["train.regulariser.weight=0"])
        result["test"]["labels"] = ["0", "1"]
        return result

    results = [run("san", 0, 0.80, 3_600_000), run("san", 1, 0.82, 3_600_000), run("san_pruned", 0, 0.79, 800_000)]
    rows = [line for line in pruned_section(results) if line.startswith("| sst2 |")]

    assert rows[0].startswith("| sst2 | penalty0 | san | 3.07M | 1.0K | 526.5K | 3.60M | 2 | 81.00 ± 1.41 |")
    assert rows[1].startswith("| sst2 | penalty0 | san_pruned | 274.8K | 9.5K | 515.7K | 800.0K | 1 | 79.00 |")
    assert pruned_section([run("san", 0, 0.80, 3_600_000)]) == []  # no pruned runs: no section


def test_lama_table_takes_the_dev_chosen_variant_and_names_baselines_above_lama_ctx():
    from benchmarks.papers.lama import render_lama

    def run(recipe, dataset, seed, test, dev, variant=None, kind="model"):
        name = "-".join([recipe, dataset] + ([variant] if variant else []) + [f"s{seed}"])
        result = {**made_result(name, seed, test), "recipe": recipe, "dataset": dataset, "kind": kind,
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
    from benchmarks.papers.ssan.characteristics import characteristics_section

    def row(recipe, params, train, infer):
        return {"recipe": recipe, "params": params + 1000, "params_without_embeddings": params, "epochs": 10,
                "train_seconds": train, "dev_inference_10x_seconds": infer, "peak_rss_mib": 700.0, "torch_threads": 1}

    rows = [row("barnes_lstm", 800, 300.0, 5.0), row("barnes_bilstm", 1600, 600.0, 10.0),
            row("ssan_pe", 400, 100.0, 4.0), row("ssan_rpr", 410, 120.0, 4.4)]
    result = {"settings": {"hidden": 300, "batch_size": 32, "optimizer": "adam", "vectors": "random 300-d"},
              "rows": rows, "git_commit": "abc1234", "date": "2026-01-01T00:00:00"}
    text = "\n".join(characteristics_section(result))
    assert "| ssan_rpr | 1,410 | 410 | 2m 00s | 4.4 s | 700 |" in text and "train 10 epochs" in text
    assert "| SSAN + RPR / SSAN + PE, training time | 1.112 | 1.200 |" in text
    assert "| BiLSTM / LSTM, parameters | ≈ 2 | 2.000 |" in text
    assert "| LSTM / mean SSAN, training time | 3.4 | 2.727 |" in text  # mean over the SSAN rows present
    assert "2-layer" not in text  # a comparison whose rows were not measured is left out
    assert "| fewest parameters without word vectors | barnes_cnn | ssan_pe |" in text


def test_table3_script_gives_each_run_its_own_job_with_its_settings():
    """A dry run (PY=echo): one command a (recipe, variant, seed), shared settings before the recipe's own."""
    import os
    import subprocess

    from benchmarks.harness.common import REPO_ROOT

    env = {**os.environ, "PY": "echo", "SEEDS": "0 1"}
    script = REPO_ROOT / "benchmarks" / "papers" / "lama" / "reproduce_table3.sh"
    out = subprocess.run(["bash", str(script), "news"], env=env,
                         capture_output=True, text=True, check=True).stdout
    runs = [line for line in out.splitlines() if "benchmarks.harness.run" in line]
    assert len(runs) == 2 * 10 and all(line.count("--recipe") == 1 for line in runs)
    san = [line for line in runs if "--recipe san " in line and "--seeds 1 " in line]
    assert len(san) == 2 and any("--variant L50-norm1" in line and "train.regulariser.type=frobenius_norm" in line
                                 for line in san)
    minilm = next(line for line in runs if "--recipe minilm " in line)
    assert minilm.index("tokenizer.max_length=50") < minilm.index("tokenizer.max_length=256")  # the later one wins
    assert "train.batches_per_epoch=1000" in minilm and minilm.rstrip().endswith("--skip-existing --no-progress")


def test_ssan_script_sweeps_dropout_on_seed_0_then_runs_every_seed_at_the_dev_choice(tmp_path):
    """A dry run where dev chose 0.1 for LSTM on OpeNER: the sweep runs seed 0, later seeds the choice only."""
    import os
    import subprocess

    from benchmarks.harness.common import REPO_ROOT

    fake_python = tmp_path / "py"
    fake_python.write_text('#!/usr/bin/env bash\nif [[ "$2" == benchmarks.papers.ssan.render_ssan ]]; then\n'
                           '  echo "barnes_lstm opener --variant edrop01 --set embedder.dropout=0.1"\n'
                           '  echo "barnes_cnn opener"\nelse echo "$@"; fi\n', encoding="utf-8")
    fake_python.chmod(0o755)
    env = {**os.environ, "PY": str(fake_python), "SEEDS": "1"}
    script = REPO_ROOT / "benchmarks" / "papers" / "ssan" / "reproduce_ssan.sh"
    out = subprocess.run(["bash", str(script), "opener"], env=env,
                         capture_output=True, text=True, check=True).stdout
    runs = [line for line in out.splitlines() if "benchmarks.harness.run" in line]
    assert len(runs) == 9 + 9 and all(line.count("--recipe") == 1 for line in runs)
    assert sum("--seeds 0 --variant edrop05 --set embedder.dropout=0.5" in line for line in runs) == 3
    later = {line.split()[3]: line for line in runs if "--seeds 1" in line}
    assert "--variant edrop01 --set embedder.dropout=0.1" in later["barnes_lstm"]
    assert "--variant" not in later["barnes_cnn"] and "--variant" not in later["barnes_bilstm"]


def _long_run(half: str, recipe: str, count: int, seed: int, dev: float, test: float, **extra) -> dict:
    name = f"long-texts-{half}-{recipe}-{count}-s{seed}"
    return {"name": name, "command": "python -m benchmarks.papers.lama.long_texts", "git_commit": "abc1234",
            "machine": {"cpu_model": "x", "cpu_cores": 16, "cuda_device": "NVIDIA H200"},
            "date": "2026-11-26T00:00:00+00:00", "kind": "long_texts", "recipe": recipe, "dataset": "imdb",
            "variant": f"long-texts-{half}", "half": half, "count": count, "seed": seed, "device": "cuda",
            "mean_length_cut": 231.81, "length_unit": "whitespace-separated words (str.split)", "limit": None,
            "rows": {"train": 7555, "dev": 829, "test": 8009} if half == "long" else
            {"train": 14945, "dev": 1671, "test": 16991}, "beyond_max_length": 0.104 if half == "long" else 0.0,
            "dev": {"accuracy": dev}, "test": {"accuracy": test}, **extra}


def _long_results() -> list[dict]:
    """LAMA+Ctx gains 3 points from 1 to 10 heads on long reviews and 0.5 on short ones; SAN gains nothing."""
    runs = []
    for seed, wobble in enumerate((0.0, 0.002, -0.002)):
        runs += [_long_run(half, "lama_ctx", count, seed, dev, test + wobble)
                 for half, count, dev, test in (("long", 1, 0.80, 0.80), ("long", 10, 0.83, 0.83),
                                                ("short", 1, 0.86, 0.86), ("short", 10, 0.87, 0.865))]
    runs += [_long_run(half, "san", hops, 0, 0.8, 0.8) for half in ("long", "short") for hops in (1, 10)]
    return runs


def test_the_section_sets_long_beside_short_with_the_papers_claim_and_a_computed_verdict(tmp_path):
    lines = long_texts_section(_long_results())
    text = "\n".join(lines)
    assert lines[0] == f"## {TITLE}"
    assert "| LAMA+Ctx | 1 | 80.00 ± 0.00 (3) | 80.00 ± 0.20 (3) | 86.00 ± 0.00 (3) | 86.00 ± 0.20 (3) |" in text
    assert "| SAN | 10 | 80.00 (1) † | 80.00 (1) † | 80.00 (1) † | 80.00 (1) † |" in text  # fewer than 3 seeds
    assert ("231.8 whitespace-separated words" in text and "7,555 train" in text
            and "10% of the long train reviews" in text)
    assert "more heads help on long texts" in text and "§5.2" in text  # the paper's claim, from papers.json
    verdict = lines[-2]
    assert verdict.startswith("Verdict: the paper's claim **holds** here for LAMA+Ctx")
    assert "gains +3.00 points of test accuracy on the long half and +0.50 on the short, +2.50 points more" in verdict
    assert "SAN, from 1 hop to the count dev prefers" in verdict
    runs = [r for r in _long_results() if r["recipe"] == "lama_ctx" and r["half"] == "long"]
    runs += [dict(r, half="short", name=r["name"].replace("long", "short")) for r in runs]  # short gains as much
    verdict = long_texts_section(runs)[-2]
    assert "**does not hold**" in verdict and "+0.00 points more on long texts" in verdict
    for run in _long_results():
        (tmp_path / f"{run['name']}.json").write_text(json.dumps(run), encoding="utf-8")
    rendered = render.render(tmp_path, tmp_path / "BENCHMARKS.md")
    assert f"## {TITLE}" in rendered and "Skipped results" not in rendered
    assert "Document classification (LAMA paper Table 3)" not in rendered  # not IMDB runs of lama_ctx


def _dataset() -> Dataset:
    def rows(lengths):
        return [Example(" ".join(["w"] * n), "pos" if i % 2 else "neg") for i, n in enumerate(lengths)]

    return Dataset("imdb", {"train": rows([1, 2, 3, 6]), "dev": rows([3, 4]), "test": rows([1, 3, 5, 9])},
                   ["neg", "pos"])


def test_the_cut_is_the_train_mean_and_splits_train_dev_and_test_alike():
    cut, halves = long_texts.cut_halves(_dataset())
    assert cut == 3.0  # (1 + 2 + 3 + 6) / 4, train only
    lengths = {half: {split: [long_texts.word_count(ex.text) for ex in rows] for split, rows in data.splits.items()}
               for half, data in halves.items()}
    assert lengths["long"] == {"train": [6], "dev": [4], "test": [5, 9]}
    assert lengths["short"] == {"train": [1, 2, 3], "dev": [3], "test": [1, 3]}
    assert halves["long"].name == "imdb-long" and halves["long"].labels == ["neg", "pos"]
    assert long_texts.result_name(long_texts.Task("long", "san", 5, 1)) == "long-texts-long-san-5-s1"


def test_runs_go_seed_by_seed_after_their_halfs_warm_up_and_none_starts_after_the_deadline():
    tasks = long_texts.plan(["long", "short"], ["lama_ctx"], [1, 2], [0, 1])
    assert [(t.seed, t.half, t.count) for t in tasks[:4]] == [(0, "long", 1), (0, "long", 2), (0, "short", 1),
                                                             (0, "short", 2)]
    warm = [long_texts.Task(half, "lama_ctx", 1, 0, warm_up=True) for half in ("long", "short")]
    started = []

    def submit(task):
        started.append(task)
        future = Future()
        if task == tasks[0]:
            future.set_exception(RuntimeError("out of memory"))  # one failure does not stop the rest
        else:
            future.set_result(f"done {task}")
        return future

    assert long_texts.schedule(warm + tasks, jobs=3, deadline=None, submit=submit) == 1
    assert started[:2] == warm and len(started) == 10  # both warm-ups before any run of their half
    started.clear()
    assert long_texts.schedule(warm + tasks, jobs=3, deadline=-1, submit=submit) == 0 and started == []

