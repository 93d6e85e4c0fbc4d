"""The harness: result files, the baselines' dev selection, the peers' answers, and the repository's BENCHMARKS.md."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from attentive import Dataset, Example
from benchmarks import render
from benchmarks.harness import baselines, common, results_io
from benchmarks.harness.common import made_result, write_made
from tests.import_graph import find_circle, module_imports


def test_render_shows_mean_and_std_and_the_unreadable_files(tmp_path):
    write_made(tmp_path, made_result("lama_ctx-imdb-s0", 0, 0.90))
    write_made(tmp_path, made_result("lama_ctx-imdb-s1", 1, 0.92))
    text = render.render(tmp_path, tmp_path / "B.md")
    assert (tmp_path / "B.md").read_text(encoding="utf-8") == text and "Do not edit by hand" in text
    assert "91.00 ± 1.41 (2)" in text and "Skipped results" not in text

    write_made(tmp_path, {**made_result("tfidf_lr-imdb-s0", 0, 0.95), "kind": "baseline", "recipe": None,
                          "model": "tfidf_lr", "epoch_times_s": None})
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    text = render.render(tmp_path, tmp_path / "B.md")
    assert "TF-IDF + LR: 95.00 (1)" in text and "`broken.json`: unreadable" in text


def test_results_are_packed_one_family_a_file_and_read_back_alike(tmp_path):
    write_made(tmp_path, made_result("lama_ctx-imdb-s0", 0, 0.90))
    write_made(tmp_path, {**made_result("tfidf_lr-imdb-s0", 0, 0.90), "kind": "baseline", "model": "tfidf_lr"})
    write_made(tmp_path, {"name": "scaling", "kind": "scaling", "rows": []})
    loose, _ = results_io.load_results(tmp_path)

    written = results_io.pack(tmp_path)

    assert sorted(path.name for path in written) == ["runs.jsonl", "scale.jsonl"]
    assert not list(tmp_path.glob("*.json")) and len((tmp_path / "runs.jsonl").read_text().splitlines()) == 2
    packed, _ = results_io.load_results(tmp_path)
    assert [{k: v for k, v in r.items() if k != "file"} for r in packed] == \
        [{k: v for k, v in r.items() if k != "file"} for r in loose]


def _tiny_dataset() -> Dataset:
    """Separable toy sentiment data: words of one class plus shared noise words."""
    rng = random.Random(1)
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
    assert written["kind"] == "baseline" and written["selected_on"].startswith("dev accuracy")
    assert [row["C"] for row in written["grid"]] == list(baselines.TFIDF_C_GRID)
    best = max(written["grid"], key=lambda row: (row["dev_accuracy"], -row["dev_log_loss"]))
    assert written["hyperparameters"]["C"] == best["C"]
    assert written["dev"]["accuracy"] == pytest.approx(best["dev_accuracy"])
    assert written["test"]["accuracy"] == 1.0 and payload["test"]["n"] == 10


def test_pair_bow_baseline_learns_a_relation_between_the_two_texts(tmp_path):
    """Whether the second text repeats a word of the first: one bag over both texts cannot tell; |a - b| can."""
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
from attentive import Dataset
from attentive import load_dataset
from benchmarks.harness import baselines
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
    """fastText on the bundled train split, in a fresh process (retried with the next seed where it diverges)."""
    import subprocess
    import sys

    from benchmarks.harness.common import REPO_ROOT

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
    confidence = {1: (0.5, 0.9), 2: (0.9, 0.6), 3: (0.9, 0.8), 4: (0.9, 0.8)}  # (accuracy, prob. of prediction)

    def score(model, texts):
        accuracy, p = confidence[model]
        correct = round(accuracy * len(texts))
        return np.array([[p, 1 - p]] * correct + [[1 - p, p]] * (len(texts) - correct))

    model, chosen, report = baselines.select_on_dev(
        [{"k": k} for k in confidence], lambda s: s["k"], score, ["x"] * 10, ["a"] * 10, ["a", "b"]
    )
    assert (model, chosen) == (3, {"k": 3})
    assert [row["dev_accuracy"] for row in report] == [0.5, 0.9, 0.9, 0.9]


def test_a_run_made_under_another_name_with_the_same_settings_counts_as_that_variant(tmp_path, capsys):
    """common.SAME_SETTINGS: R8's `gpu-L1000-scale5` runs are `L1000` runs, for the renderer and --skip-existing."""
    from benchmarks.harness import run
    from benchmarks.harness.results_io import load_results

    as_run = {**made_result("lama_ctx-r8-gpu-L1000-scale5-s0", 0, 0.97), "dataset": "r8", "variant": "gpu-L1000-scale5"}
    (tmp_path / "lama_ctx-r8-gpu-L1000-scale5-s0.json").write_text(json.dumps(as_run), encoding="utf-8")
    (loaded,), _ = load_results(tmp_path)
    assert loaded["variant"] == "L1000" and loaded["variant_as_run"] == "gpu-L1000-scale5"
    assert run.main(["--recipe", "lama_ctx", "--dataset", "r8", "--variant", "L1000", "--seeds", "0",
                     "--skip-existing", "--results-dir", str(tmp_path), "--no-progress"]) == 0
    assert "lama_ctx-r8-L1000-s0: result already there as lama_ctx-r8-gpu-L1000-scale5-s0, skipped" in \
        capsys.readouterr().out


def test_the_benchmarks_modules_import_no_circle():
    graph = module_imports(Path(render.__file__).parent, "benchmarks")
    assert {"benchmarks.render", "benchmarks.papers.ssan.render_ssan", "benchmarks.harness.results_io"} <= set(graph)
    assert "benchmarks.papers.ssan.render_ssan" in graph["benchmarks.render"]  # the walk sees the section imports
    assert find_circle(graph) is None, find_circle(graph)


def test_the_papers_numbers_are_read_from_one_file():
    papers = results_io.load_papers()
    assert {"lama", "wang2016", "lin2017", "ssan"} <= set(papers)
    assert all(paper["source"] and paper["short"] for paper in papers.values())
    assert results_io.paper_accuracy("lama_ctx", "imdb") == 0.900
    assert results_io.paper_accuracy("atae_lstm", "semeval14_category_binary") == 0.899
    assert results_io.paper_accuracy("lama_ctx", "news") is None  # our News is not the paper's


def test_the_repositorys_benchmarks_md_is_under_70_kb_and_renders_as_committed(tmp_path):
    output = tmp_path / "BENCHMARKS.md"

    text = render.render(common.RESULTS_DIR, output)

    assert output.stat().st_size < 70_000, output.stat().st_size
    assert "## Skipped results" not in text and "APPENDIX" not in text
    assert text == (common.REPO_ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")


def test_the_repositorys_benchmarks_md_links_only_to_what_exists():
    path = common.REPO_ROOT / "BENCHMARKS.md"
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        file, _, fragment = target.partition("#")
        linked = path.parent / file if file else path
        assert linked.is_file(), target
        assert not fragment or fragment in {render.anchor(line.lstrip("#")) for line in linked.read_text(
            encoding="utf-8").splitlines() if line.startswith("#")}, target


def test_model2vec_probabilities_come_in_our_label_order():
    from benchmarks.harness.model2vec_peer import probabilities

    class Fitted:  # as model2vec's classifier answers: its own class order, labels as strings
        classes_ = ["pos", "neg", "neutral"]

        def predict_proba(self, texts):
            return np.array([[0.7, 0.2, 0.1]] * len(texts))

    assert probabilities(Fitted(), ["a", "b"], ["neg", "neutral", "pos"]).tolist() == [[0.2, 0.1, 0.7]] * 2
