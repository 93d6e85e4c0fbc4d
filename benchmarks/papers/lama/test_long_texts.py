"""Issue 46, item 2: the long-text experiment (benchmarks/papers/lama/long_texts.py) and its BENCHMARKS.md section
(benchmarks/papers/lama/render_long_texts.py)."""
from __future__ import annotations

import json
from concurrent.futures import Future

from attentive import Dataset, Example
from benchmarks import render
from benchmarks.papers.lama import long_texts
from benchmarks.papers.lama.render_long_texts import TITLE, long_texts_section


def _run(half: str, recipe: str, count: int, seed: int, dev: float, test: float, **extra) -> dict:
    """A result file as `python -m benchmarks.papers.lama.long_texts` writes it."""
    name = f"long-texts-{half}-{recipe}-{count}-s{seed}"
    return {"name": name, "command": "python -m benchmarks.papers.lama.long_texts", "git_commit": "abc1234",
            "machine": {"cpu_model": "x", "cpu_cores": 16, "cuda_device": "NVIDIA H200"},
            "date": "2026-11-26T00:00:00+00:00", "kind": "long_texts", "recipe": recipe, "dataset": "imdb",
            "variant": f"long-texts-{half}", "half": half, "count": count, "seed": seed, "device": "cuda",
            "mean_length_cut": 231.81, "length_unit": "whitespace-separated words (str.split)", "limit": None,
            "rows": {"train": 7555, "dev": 829, "test": 8009} if half == "long" else
            {"train": 14945, "dev": 1671, "test": 16991}, "beyond_max_length": 0.104 if half == "long" else 0.0,
            "dev": {"accuracy": dev}, "test": {"accuracy": test}, **extra}


def _results() -> list[dict]:
    """LAMA+Ctx gains 3 points from 1 to 10 heads on long reviews and 0.5 on short ones; SAN gains nothing."""
    runs = []
    for seed, wobble in enumerate((0.0, 0.002, -0.002)):
        runs += [_run("long", "lama_ctx", 1, seed, 0.80, 0.80 + wobble), _run("long", "lama_ctx", 10, seed, 0.83,
                                                                              0.83 + wobble),
                 _run("short", "lama_ctx", 1, seed, 0.86, 0.860 + wobble),
                 _run("short", "lama_ctx", 10, seed, 0.87, 0.865 + wobble)]
    runs += [_run(half, "san", hops, 0, 0.8, 0.8) for half in ("long", "short") for hops in (1, 10)]
    runs.append(_run("long", "lama_ctx", 1, 0, 0.99, 0.99, limit=60, name="long-texts-long-limit60-lama_ctx-1-s0"))
    return runs


def test_the_section_sets_long_beside_short_with_the_papers_claim_and_a_computed_verdict():
    lines = long_texts_section(_results())
    text = "\n".join(lines)

    assert lines[0] == f"## {TITLE}"
    assert "| LAMA+Ctx | 1 | 80.00 ± 0.00 (3) | 80.00 ± 0.20 (3) | 86.00 ± 0.00 (3) | 86.00 ± 0.20 (3) |" in text
    assert "| SAN | 10 | 80.00 (1) † | 80.00 (1) † | 80.00 (1) † | 80.00 (1) † |" in text  # fewer than 3 seeds
    assert "99.00" not in text  # the --limit smoke test is never shown
    assert ("231.8 whitespace-separated words" in text and "7,555 train" in text
            and "10% of the long train reviews" in text)
    assert "more heads help on long texts" in text and "§5.2" in text  # the paper's claim, from papers.json
    verdict = lines[-2]
    assert verdict.startswith("Verdict: the paper's claim **holds** here for LAMA+Ctx")
    assert "gains +3.00 points of test accuracy on the long half and +0.50 on the short, +2.50 points more" in verdict
    assert "SAN, from 1 hop to the count dev prefers" in verdict


def test_the_claim_does_not_hold_when_the_short_half_gains_as_much():
    runs = [r for r in _results() if r["recipe"] == "lama_ctx" and r["half"] == "long"]
    runs += [dict(r, half="short", name=r["name"].replace("long", "short")) for r in runs]
    verdict = long_texts_section(runs)[-2]
    assert "**does not hold**" in verdict and "+0.00 points more on long texts" in verdict


def test_benchmarks_md_shows_the_section_and_keeps_the_runs_out_of_the_other_tables(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    for run in _results():
        (results / f"{run['name']}.json").write_text(json.dumps(run), encoding="utf-8")

    rendered = render.render(results, tmp_path / "BENCHMARKS.md")

    assert f"## {TITLE}" in rendered
    assert "Document classification (LAMA paper Table 3)" not in rendered  # not IMDB runs of lama_ctx
    assert "Skipped results" not in rendered


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
    _, limited = long_texts.cut_halves(_dataset(), limit=2)
    assert [len(rows) for rows in limited["short"].splits.values()] == [2, 1, 2]
    assert long_texts.result_name(long_texts.Task("long", "san", 5, 1), 60) == "long-texts-long-limit60-san-5-s1"


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

