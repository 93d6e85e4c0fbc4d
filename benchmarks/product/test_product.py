"""The product tables' rules, each claim BENCHMARKS.md computes, on hand-made results."""
from __future__ import annotations

import pytest

from benchmarks import render
from benchmarks.harness import results_io
from benchmarks.harness.common import made_result, write_made


def test_the_variant_shown_is_the_one_dev_selected_among_those_with_most_seeds():
    results = [
        made_result("a-s0", 0, 0.99, variant="sweep", dev={"accuracy": 0.99}),  # one seed only: a sweep try
        made_result("b-s0", 0, 0.80, variant="b", dev={"accuracy": 0.91}),
        made_result("b-s1", 1, 0.82, variant="b", dev={"accuracy": 0.93}),
        made_result("c-s0", 0, 0.95, variant="c", dev={"accuracy": 0.90}),
        made_result("c-s1", 1, 0.97, variant="c", dev={"accuracy": 0.90}),
    ]
    variant, runs = results_io.selected_runs(results, "imdb", "lama_ctx")
    assert variant == "b" and [r["name"] for r in runs] == ["b-s0", "b-s1"]  # test accuracy plays no part


def test_defaults_table_opens_benchmarks_and_sets_the_default_beside_the_better_baseline(tmp_path):
    from benchmarks.product.accuracy.render_defaults import CURRENT, defaults_section

    def peer(model, test):
        return {**made_result(f"{model}-sst2-s0", 0, test, dataset="sst2", kind="baseline"), "recipe": None,
                "model": model}

    results = [made_result("default-sst2-rows-s0", 0, 0.84, recipe="default", dataset="sst2", variant=CURRENT,
                           linear_alone={"C": 8, "dev": 0.8, "test": 0.81}),
               made_result("default-sst2-rows-s1", 1, 0.82, recipe="default", dataset="sst2", variant=CURRENT,
                           linear_alone={"C": 8, "dev": 0.8, "test": 0.83}),
               made_result("default-sst2-defaults-s0", 0, 0.70, recipe="default", dataset="sst2", variant="defaults"),
               made_result("default-sst2-tuned-s0", 0, 0.99, recipe="default", dataset="sst2", variant="tuned"),
               peer("tfidf_lr", 0.81), peer("fasttext", 0.85), peer("model2vec", 0.80)]
    lines = defaults_section(results)
    [row] = [line for line in lines if line.startswith("| sst2 ")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "83.00 ± 1.41 (2)"  # only the current default's runs count, not a tuned one
    assert cells[2:5] == ["82.00 ± 1.41", "70.00 (1)", "—"]  # its linear part, the previous default, no opinion
    assert cells[5:8] == ["81.00", "85.00", "80.00 (1)"] and cells[8] == "-2.00"  # below the best peer, fastText
    assert cells[9] == "—" and cells[10] == "100"  # no opinion run to pick from; wall seconds
    text = "\n".join(lines)
    assert "Below the best peer by more than its seed std on sst2 -2.00 (std 1.41)" in text
    assert "at or above its own linear part alone on every set" in text
    for result in results:
        write_made(tmp_path, result)
    text = render.render(tmp_path, tmp_path / "B.md")
    assert text.index("## The default model against the baselines") < text.index("## More")


def test_the_simulated_pick_takes_opinion_only_beyond_the_noise_and_within_the_budget():
    from benchmarks.product.accuracy.render_defaults import simulated_pick

    def run(recipe, seed, dev, test, seconds=100.0):
        return made_result(f"{recipe}-s{seed}", seed, test, recipe=recipe, wall_time_s=seconds,
                           dev={"accuracy": dev, "n": 1000})

    ours = [run("default", seed, 0.80, 0.81) for seed in range(3)]
    theirs = [run("opinion", 0, 0.85, 0.86), run("opinion", 1, 0.81, 0.90),  # +5 points: beyond; +1: within
              run("opinion", 2, 0.90, 0.95, seconds=2000)]  # beyond, but the two overrun the budget
    picks = simulated_pick(ours, theirs)
    assert [p[0] for p in picks] == ["opinion", "default", "default"]
    assert [p[1] for p in picks] == [0.86, 0.81, 0.81] and [p[2] for p in picks] == [200.0, 200.0, 100.0]


def test_the_gated_row_shows_the_family_variant_best_on_dev_over_three_seeds():
    from benchmarks.product.accuracy.render_defaults import GATED_FAMILY, gated_variant

    def run(variant, seed, dev):
        return {**made_result(f"lama_pair-sick-{variant}-s{seed}", seed, 0.7, recipe="lama_pair", dataset="sick",
                          variant=variant), "dev": {"accuracy": dev}}

    results = ([run(GATED_FAMILY, seed, 0.76) for seed in range(3)]
               + [run(f"{GATED_FAMILY}-pooler-heads-30", seed, 0.78) for seed in range(3)]
               + [run(f"{GATED_FAMILY}-head-hidden-600", seed, 0.90) for seed in range(2)]  # two seeds: not ranked
               + [run("gated-glove", seed, 0.95) for seed in range(3)])  # another family
    assert gated_variant(results) == f"{GATED_FAMILY}-pooler-heads-30"
    assert gated_variant(results[:3]) == GATED_FAMILY


def test_interleaved_timing_takes_each_systems_passes_in_turn():
    from benchmarks.product.deploy.deployed import interleaved_docs_per_second

    calls = []
    systems = {name: (lambda batch, name=name: calls.append((name, len(batch)))) for name in ("ours", "peer")}
    speeds = interleaved_docs_per_second(systems, ["a text"] * 300, passes=3)
    assert set(speeds) == {"ours", "peer"} and all(value > 0 for value in speeds.values())
    passes = [name for name, size in calls if size == 44]  # the last batch of each pass: 300 = 128 + 128 + 44
    assert passes == ["ours", "peer"] * 4  # one untimed pass each, then three rounds, one pass of each in turn


def test_the_deployed_table_checks_each_dataset_against_its_bounds_and_sets_opinion_beside_it():
    from benchmarks.product.accuracy.render_defaults import CURRENT
    from benchmarks.product.deploy.deployed import deployed_section

    def run(dataset, int8_mb, predict, linear, p50=0.15, fast=1000.0):
        ours = {"test_accuracy": 0.9, "int8_test_accuracy": 0.9, "int8_mb": int8_mb, "predict_docs_per_s": predict,
                "docs_per_s": 2 * predict, "predict_p50_ms": p50, "train_s": 60.0}
        return {"kind": "shipped", "dataset": dataset, "machine": {"cpu_model": "AMD EPYC", "cpu_cores": 2},
                "systems": {"default": ours, "tfidf_lr": {"docs_per_s": linear}, "fasttext": {"docs_per_s": fast},
                            "model2vec": {"docs_per_s": 10.0}}}

    lines = deployed_section([run("sst2", 4.0, 900.0, 1000.0), run("imdb", 9.0, 300.0, 100.0, p50=0.3),
                             run("news", 11.0, 500.0, 400.0), {"kind": "deployable"}])
    table = [line for line in lines if line.startswith("| ")]
    assert [line.split(" | ")[0] for line in table[2:]] == ["| imdb", "| news", "| sst2"]  # the defaults' order
    assert "| 9.00 (10) | 300 | 600 | 100 |" in table[2] and "| 3.00× | 0.300 |" in table[2]
    assert "| 4.00 (5) |" in table[4] and "| 0.90× |" in table[4]  # a sentence set's bound is 5 MB
    bounds = lines[-2]
    assert "int8 within its bound on 2;" in bounds  # News' 11 MB is over its 10
    assert "at or above TF-IDF + LR's texts/s on 2;" in bounds and "p50 ≤ 0.2 ms on 2." in bounds
    assert "On SST-2 `predict` runs at 0.90× fastText's texts/s" in bounds
    assert deployed_section([{"kind": "model"}]) == []
    rows = made_result("default-sst2-rows-s0", 0, 0.80, recipe="default", dataset="sst2", variant=CURRENT)
    said = deployed_section([run("sst2", 4.0, 900.0, 1000.0), run("news", 11.0, 500.0, 400.0), rows])[-2]
    assert said.endswith("on the 1 sets both ran: the same test accuracy to the digit on 0, a mean difference of "
                         "+10.00 points, the largest +10.00 (sst2).")
    timed = {"kind": "opinion_speed", "dataset": "sst2", "machine": {"cpu_model": "AMD EPYC", "cpu_cores": 2},
             "candidates": {"default": ["default", "defaults"], "opinion": ["opinion", "defaults"]},
             "systems": {"default": {"int8_mb": 2.5, "predict_docs_per_s": 3000.0},
                         "opinion": {"int8_mb": 15.0, "predict_docs_per_s": 600.0}}}
    accuracies = [made_result(f"{recipe}-sst2-defaults-s{seed}", seed, test + seed / 100, recipe=recipe,
                              dataset="sst2", variant="defaults")
                  for recipe, test in (("default", 0.8), ("opinion", 0.9)) for seed in (0, 1)]
    lines = deployed_section([run("sst2", 4.0, 900.0, 1000.0), timed, *accuracies])
    assert "| sst2 | 80.50 ± 0.71 | 90.50 ± 0.71 | 2.50 | 15.00 | 3,000 | 600 | 0.20× |" in lines
    student = {"kind": "student_speed", "dataset": "sst2", "command": "python -m x", "machine": timed["machine"],
               "systems": {"default": {"int8_mb": 2.5, "predict_docs_per_s": 3000.0, "predict_p50_ms": 0.09},
                           "student": {"int8_mb": 1.5, "predict_docs_per_s": 4500.0, "predict_p50_ms": 0.08,
                                       "test_accuracy": 0.6655}}}
    said = deployed_section([run("sst2", 4.0, 900.0, 1000.0), student])[-2]
    assert said.startswith("The few-label student on sst2") and "test accuracy 66.5;" in said
    assert "int8 1.50 MB against 2.50 MB; `predict` 4,500 texts/s against 3,000 (1.50×)" in said


def _abstain_result(seed: int, shift: float) -> dict:
    def rows(accuracy: float) -> list[dict]:
        return [{"target_recall": target, "below": 0.1 * index,
                 "test": {"in_scope_accuracy": accuracy - 0.01 * index + shift,
                          "out_of_scope_recall": 0.2 * index}} for index, target in enumerate((0.0, 0.5, 0.8))]

    return {"kind": "abstain", "seed": seed, "command": "python -m x", "git_commit": "abc",
            "sizes": {"train": 15000, "dev": 3000, "test": 4500, "oos_dev": 100, "oos_test": 1000},
            "default": {"rows": rows(0.9), "best_epoch": 7, "dev_accuracy": 0.93},
            "tfidf_lr": {"rows": rows(0.85), "C": 8.0}}


def test_the_abstain_table_has_a_row_a_target_and_says_one_seed():
    from benchmarks.product.accuracy.abstain_clinc import abstain_section

    lines = abstain_section([_abstain_result(0, 0.0), {"kind": "model"}])
    assert lines[0] == "## Abstaining on CLINC150" and "one seed" in lines[2]
    table = [line for line in lines if line.startswith("| 0")]
    assert table[0] == "| 0 | 0.000 | 90.00 | 0.00 | 0.000 | 85.00 | 0.00 |"
    assert table[2] == "| 0.8 | 0.200 | 88.00 | 40.00 | 0.200 | 83.00 | 40.00 |"
    several = abstain_section([_abstain_result(0, 0.0), _abstain_result(1, 0.02)])
    assert "mean ± std over 2 seeds" in several[2] and "| 0 | 0.000 | 91.00 ± 1.41 |" in "\n".join(several)
    assert abstain_section([{"kind": "multilabel"}]) == []


def _few(method: str, seed: int, accuracy: float) -> dict:
    return made_result(f"few-{method}-sst2-k16-s{seed}", seed, accuracy, kind="few_labels", dataset="sst2",
                       per_class=16, pool=2000, method=method, test_accuracy=accuracy, train_seconds=3.0)


def test_the_few_labels_table_has_a_model2vec_column():
    from benchmarks.product.fewlabels.few_labels import few_labels_section

    lines = few_labels_section([_few("tfidf_lr", 0, 0.55), _few("model2vec", 0, 0.60), _few("model2vec", 1, 0.62)])
    head = next(line for line in lines if line.startswith("| set"))
    assert head.split(" | ")[5:8] == ["TF-IDF + LR", "default, labels alone", "model2vec"]
    # the draws: the most a method ran, and those that ran fewer
    assert ("| sst2 | 16 | 2,000 | 0 | 2 (TF-IDF + LR 1) | 55.0 (one draw) | — | 61.0 ± 1.4 | — | — | — | — | — | — |"
            in lines)
    pairs = [_few("setfit_teacher", 0, 0.70), _few("setfit_teacher", 1, 0.74), _few("setfit_teacher", 2, 0.60),
             *({**_few("student", seed, accuracy), "agreement": 0.8, "int8_bytes": 2e6}
               for seed, accuracy in ((0, 0.66), (1, 0.71)))]
    row = next(line for line in few_labels_section(pairs) if line.startswith("| sst2"))
    assert "| 68.0 ± 7.2 | 68.5 ± 3.5 | -3.5 ± 0.5 | 80.0 ± 0.0 |" in row  # draw 2 has no student: not paired
    assert "| 3 (compact student 2) |" in row
    said = few_labels_section(pairs)
    assert "The student within 2 points of its teacher (the mean paired gap): not reached on 0 of 1 rows; the " \
           "nearest, sst2 at 16 a class, -3.5." in said
    assert not any("where all three ran" in line for line in said), "no peer ran: nothing to compare"
    near = [_few("setfit_teacher", 0, 0.70), {**_few("student", 0, 0.69), "agreement": 0.8, "int8_bytes": 2e6},
            _few("tfidf_lr", 0, 0.55), _few("default", 0, 0.50), _few("model2vec", 0, 0.695)]
    said = few_labels_section(near)
    assert "met on 1 of 1 rows; the nearest, sst2 at 16 a class, -1.0." in " ".join(said)
    assert "The student above TF-IDF + LR, model2vec and the default on the labels alone (means): on 0 of the 1 " \
           "rows where all three ran." in said


def test_the_few_labels_table_keeps_runs_with_pool_copies_apart():
    from benchmarks.product.fewlabels.few_labels import few_labels_section

    recorded = {**_few("tfidf_lr", 0, 0.55), "pool_copies": 2}
    given = {**_few("tfidf_lr", 1, 0.57), "command": "python -m x --pool-copies 2"}
    lines = few_labels_section([_few("tfidf_lr", 0, 0.50), recorded, given])
    assert "| sst2 | 16 | 2,000 | 0 | 1 | 50.0 (one draw) |" in " ".join(lines)
    assert "| sst2 | 16 | 2,000 | 2 | 2 | 56.0 ± 1.4 |" in " ".join(lines)


def _loop(strategy: str, seed: int, accuracies: list[float], per_round: int = 50) -> dict:
    curve = [{"added": i * per_round, "labelled": 16 + i * per_round, "test_accuracy": a, "train_seconds": 10.0}
             for i, a in enumerate(accuracies)]
    return made_result(f"active-{strategy}-sst2-teacher-s{seed}", seed, accuracies[-1], kind="active_loop",
                       dataset="sst2", strategy=strategy, learner="teacher", start_per_class=8, per_round=per_round,
                       rounds=len(accuracies) - 1, pool=2000, variant="", curve=curve)


def test_the_active_learning_section_sets_suggest_beside_random_and_checks_300_added_labels(tmp_path):
    from benchmarks.product.fewlabels.active_loop import active_loop_section

    start = [0.70] * 6
    suggest = [_loop("suggest", s, [0.70, *start[1:], 0.85 + s / 100]) for s in range(3)]
    random_ = [_loop("random", s, [0.70, *start[1:], 0.80 + s / 100]) for s in range(3)]
    lines = active_loop_section(suggest + random_)
    heading = "### sst2, teacher: 8 a class to start, 50 a round, pool 2,000; on AMD EPYC 7B13 64-Core Processor"
    assert lines[0] == "## Active learning" and heading in lines
    assert "| 0 | 16 | 70.0 ± 0.0 | 70.0 ± 0.0 | 3/3 | 10 |" in lines
    assert "| 300 | 316 | 86.0 ± 1.0 | 81.0 ± 1.0 | 3/3 | 10 |" in lines
    [check] = [line for line in lines if line.startswith("Suggest against random")]
    assert check.startswith("Suggest against random after 300 added labels: mean +5.0 points; suggest beats random by")
    assert check.endswith("Paired by draw: +5.0 ± 0.0 points (standard error), suggest ahead in 3 of 3 draws.")
    close = [_loop("random", s, [0.70, *start[1:], 0.845 + s / 100]) for s in range(3)]
    assert "does not beat random by more than the draws' spread (1.0 points" in "\n".join(
        active_loop_section(suggest + close))
    one = active_loop_section([suggest[0], random_[0]])
    assert any("fewer than 2 draws of each" in line for line in one)
    assert active_loop_section([_few("model2vec", 0, 0.6)]) == []
    for result in suggest + random_:  # read back as result files, the section in BENCHMARKS.md
        write_made(tmp_path, result)
    text = render.render(tmp_path, tmp_path / "BENCHMARKS.md")
    assert "## Active learning" in text and "Skipped results" not in text


class _Guessing:  # a stand-in learner: probabilities from the text alone
    labels = ["negative", "positive"]

    def predict_proba(self, texts):
        import zlib

        positive = [zlib.crc32(text.encode()) % 1000 / 1000 for text in texts]
        return [[1 - p, p] for p in positive]


def test_the_loop_adds_exactly_per_round_new_pool_rows_each_round_from_one_shared_start():
    import attentive
    from benchmarks.product.fewlabels.active_loop import simulate, start

    data = attentive.load_dataset("sst2_sample")
    train, test = list(data.splits["train"]), list(data.splits["test"])[:50]
    trainings = []

    def learn(texts, labels, seed):
        trainings.append(len(texts))
        return _Guessing()

    start_rows, pool = start(train, data.labels, 8, 3, 300)
    assert (start_rows, pool) == start(train, data.labels, 8, 3, 300), "the draw is seeded"
    assert [train[row].label for row in start_rows].count("positive") == 8 and len(set(start_rows)) == 16
    assert len(pool) == 300 and not set(pool) & set(start_rows)
    reported = []
    runs = {strategy: simulate(strategy, train, test, start_rows, pool, learn, 4, 25, 3,
                               after_round=lambda found: reported.append(len(found["curve"])))
            for strategy in ("suggest", "random")}
    assert trainings == [16, 41, 66, 91, 116] * 2
    assert reported == [2, 3, 4, 5] * 2, "the curve so far is given after every round"
    for found in runs.values():
        assert [p["labelled"] for p in found["curve"]] == [16, 41, 66, 91, 116]
        assert [p["added"] for p in found["curve"]] == [0, 25, 50, 75, 100]
        added = [row for rows in found["added_rows"] for row in rows]
        assert [len(rows) for rows in found["added_rows"]] == [25] * 4
        assert len(set(added)) == 100 and set(added) <= set(pool), "no row chosen twice, each from the pool"
    assert runs["suggest"]["curve"][0] == runs["random"]["curve"][0]
    assert runs["suggest"]["added_rows"] != runs["random"]["added_rows"]
    assert simulate("random", train, test, start_rows, pool, learn, 4, 25, 3)["added_rows"] == \
        runs["random"]["added_rows"], "random is seeded"
    with pytest.raises(ValueError, match="too small"):
        simulate("random", train, test, start_rows, pool[:99], learn, 4, 25, 3)


def test_a_tiny_labelling_loop_with_the_default_learner_writes_one_curve_a_strategy(tmp_path):
    import json

    from benchmarks.product.fewlabels.active_loop import active_loop_section, main

    main(["--dataset", "sst2_sample", "--draws", "1", "--rounds", "2", "--per-round", "10", "--pool", "200",
          "--learner", "default", "--results-dir", str(tmp_path)])
    found = {path.name: json.loads(path.read_text()) for path in tmp_path.glob("*.json")}
    assert sorted(found) == ["active-random-sst2_sample-default-s0.json", "active-suggest-sst2_sample-default-s0.json"]
    for result in found.values():
        assert result["kind"] == "active_loop" and [p["labelled"] for p in result["curve"]] == [16, 26, 36]
        assert result["rounds_done"] == 2
        assert 0 <= result["curve"][-1]["test_accuracy"] <= 1 and result["start_rows"]
    assert found["active-random-sst2_sample-default-s0.json"]["curve"][0] == \
        found["active-suggest-sst2_sample-default-s0.json"]["curve"][0]
    assert any(line.startswith("| 20 | 36 |") for line in active_loop_section(list(found.values())))


def test_the_rule_for_the_linear_model_on_every_length_reads_dev_and_names_a_fallen_set():
    from benchmarks.product.accuracy.render_defaults import PREVIOUS, RULE_SETS, RULED, rule_line

    def runs(variant, dataset, devs):
        return [made_result(f"default-{dataset}-{variant}-s{seed}", seed, 0.5, recipe="default", dataset=dataset,
                            variant=variant, dev={"accuracy": dev}) for seed, dev in enumerate(devs)]

    results = [r for dataset in RULE_SETS for r in runs(PREVIOUS, dataset, [0.80, 0.81, 0.82])
               + runs(RULED, dataset, [0.81, 0.82, 0.83])]
    assert rule_line(results).endswith("no set below by more than its seed std: the rule is met.")
    fallen = [r for r in results if not (r["dataset"] == "sst2" and r["variant"] == RULED)]
    fallen += runs(RULED, "sst2", [0.70, 0.71, 0.72])
    assert "sst2 -10.00: the rule is not met." in rule_line(fallen)
    assert "10 of 11 sets have run" in rule_line([r for r in results if r["dataset"] != "sst2"])


def test_the_timing_line_takes_the_training_alone_where_the_run_timed_it_and_says_by_how_much_a_bound_is_missed():
    from benchmarks.product.accuracy.render_defaults import TIMED, timing_line

    def run(dataset, variant=TIMED[0], **timed):
        return {**made_result(f"default-{dataset}-{variant}-s0", 0, 0.5, recipe="default", dataset=dataset,
                              variant=variant, git_commit="abc1234"), **timed}

    line = timing_line([run("newsgroups20", wall_time_s=300.0, train_s=150.0),
                        run("newsgroups20", TIMED[1], wall_time_s=900.0, train_s=800.0),
                        run("clinc150", TIMED[1], wall_time_s=80.0)])
    # the newest variant a set has, its training alone (train_s), not the whole run
    assert f"newsgroups20 150 s (`{TIMED[0]}` at abc1234; bound 120 s, not reached, by 30 s)" in line
    assert "800 s" not in line
    assert f"clinc150 80 s (`{TIMED[1]}` at abc1234; bound 90 s, reached)" in line  # an older run: its wall time
