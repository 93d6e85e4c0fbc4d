"""The labelling loop, simulated: do the texts `attentive suggest` picks teach the few-label teacher more than as many
texts picked at random?

    python -m benchmarks.product.fewlabels.active_loop --dataset sst2

Pool-based active learning (Settles 2009, "Active Learning Literature Survey", §2.3), the person who labels played by
the training split's gold labels (the oracle). Per draw: 8 labelled texts a class drawn (seeded) from the training
split, and from the rest of it an unlabelled pool of --pool texts (seeded). The learner is trained on the labelled
texts and scored on the full test split; then, each of 6 rounds, 50 pool texts are chosen, their gold labels looked up
and added to the labelled texts, and the learner trained anew and scored. The choice is either `suggest`'s
(`attentive.fewlabels.choose_for_labelling`, asked of the model just trained: margin sampling kept diverse by TF-IDF
similarity, Settles 2009 §3.1 and §5) or at random (seeded with the draw's seed). Both strategies start from the same
draw and share its first model, so their curves differ only by what was chosen.

The learner is the few-label teacher, the first step of `attentive train --few-labels` (SetFit by the setfit package at
its default settings over the MiniLM package, Tunstall et al. 2022), trained from scratch on every labelled text each
round, seeded with the draw's seed; nothing is tuned. `--learner default` trains attentive's compact default instead
(`attentive.train` on the labelled texts, its tenth held out as dev): cheap, for smoke tests of the loop.

One result file per dataset, strategy and draw (kind "active_loop"): the curve (a point per training: labels added,
labelled texts, test accuracy, seconds training and choosing) and the training rows added each round.
`active_loop_section` renders BENCHMARKS.md's "Active learning" section from them.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

import attentive
from attentive.fewlabels import TeacherSettings, choose_for_labelling, train_teacher
from benchmarks.harness.common import commit_at_start, write_result
from benchmarks.harness.formatting import NONE, fmt_mean_std, md_head, md_row

STRATEGIES = ("suggest", "random")
ISSUE_ADDED = 300  # the issue's check: accuracy after 300 added labels

Learner = Callable[[list[str], list[str], int], object]  # (texts, labels, seed) -> a model: .labels, .predict_proba


def teacher_learner(texts: list[str], labels: list[str], seed: int):
    return train_teacher(texts, labels, settings=TeacherSettings(seed=seed))


def default_learner(texts: list[str], labels: list[str], seed: int):
    return attentive.train(texts=texts, labels=labels, overrides=[f"train.seed={seed}"], show_progress=False)


LEARNERS: dict[str, Learner] = {"teacher": teacher_learner, "default": default_learner}


def start(train: Sequence, labels: Sequence[str], per_class: int, seed: int, pool_size: int
          ) -> tuple[list[int], list[int]]:
    """(rows of the training split labelled at the start, `per_class` a class; rows of the pool), both seeded."""
    rng = random.Random(seed)
    labelled = []
    for label in labels:
        labelled += rng.sample([row for row, ex in enumerate(train) if ex.label == label], per_class)
    chosen = set(labelled)
    pool = [row for row in range(len(train)) if row not in chosen]
    rng.shuffle(pool)
    return labelled, pool[:pool_size]


def trained(learn: Learner, train: Sequence, rows: list[int], test: Sequence, seed: int) -> tuple[object, dict]:
    """The learner trained on the training split's `rows` with their gold labels, and its point of the curve."""
    began = time.perf_counter()
    model = learn([train[row].text for row in rows], [train[row].label for row in rows], seed)
    seconds = time.perf_counter() - began
    found = np.asarray(model.predict_proba([ex.text for ex in test])).argmax(axis=1)
    accuracy = float(np.mean([model.labels[int(i)] == ex.label for i, ex in zip(found, test)]))
    return model, {"labelled": len(rows), "test_accuracy": accuracy, "train_seconds": round(seconds, 2)}


def simulate(strategy: str, train: Sequence, test: Sequence, start_rows: list[int], pool_rows: list[int],
             learn: Learner, rounds: int, per_round: int, seed: int, first: tuple[object, dict] | None = None,
             after_round: Callable[[dict], None] | None = None) -> dict:
    """One strategy's curve from one draw: {"curve": a point per training, "added_rows": the rows each round added}.
    `first`: the model trained on the start and its point, shared by the strategies of a draw. `after_round` is
    given the curve so far after each round (so that a run stopped at a deadline keeps the rounds it finished)."""
    if len(pool_rows) < rounds * per_round:
        raise ValueError(f"a pool of {len(pool_rows)} texts is too small for {rounds} rounds of {per_round}")
    labelled, pool = list(start_rows), list(pool_rows)
    rng = random.Random(seed)
    model, point = first or trained(learn, train, labelled, test, seed)
    curve, added = [{**point, "added": 0}], []
    for _ in range(rounds):
        began = time.perf_counter()
        if strategy == "random":
            chosen = rng.sample(range(len(pool)), per_round)
        else:
            chosen = choose_for_labelling(model, [train[row].text for row in pool], per_round)
        seconds = time.perf_counter() - began
        taken = set(chosen)
        rows = [pool[i] for i in chosen]
        pool = [row for i, row in enumerate(pool) if i not in taken]
        labelled += rows
        added.append(rows)
        model, point = trained(learn, train, labelled, test, seed)
        curve.append({**point, "added": len(labelled) - len(start_rows), "choose_seconds": round(seconds, 2)})
        if after_round:
            after_round({"curve": curve, "added_rows": added})
    return {"curve": curve, "added_rows": added}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--first-draw", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--per-round", type=int, default=50)
    parser.add_argument("--start-per-class", type=int, default=8)
    parser.add_argument("--pool", type=int, default=2000, help="unlabelled pool size, from the rest of train")
    parser.add_argument("--strategies", nargs="+", choices=STRATEGIES, default=list(STRATEGIES))
    parser.add_argument("--learner", choices=sorted(LEARNERS), default="teacher")
    parser.add_argument("--variant", default="", help="a suffix of the result names: runs not to average together")
    parser.add_argument("--results-dir", default=None, help="where the result files go (benchmarks/results)")
    args = parser.parse_args(argv)
    commit_at_start()
    data = attentive.load_dataset(args.dataset)
    train, test = list(data.splits["train"]), list(data.splits["test"])
    learn = LEARNERS[args.learner]
    for seed in range(args.first_draw, args.first_draw + args.draws):
        start_rows, pool_rows = start(train, data.labels, args.start_per_class, seed, args.pool)
        first = trained(learn, train, start_rows, test, seed)
        for strategy in args.strategies:
            name = f"active-{strategy}-{args.dataset}-{args.learner}{args.variant}-s{seed}"
            head = {"kind": "active_loop", "dataset": args.dataset, "strategy": strategy, "learner": args.learner,
                    "seed": seed, "variant": args.variant, "start_per_class": args.start_per_class,
                    "per_round": args.per_round, "rounds": args.rounds, "pool": len(pool_rows), "test_n": len(test),
                    "start_rows": start_rows}

            def save(found: dict, name=name, head=head) -> None:
                write_result(name, {**head, **found, "rounds_done": len(found["added_rows"])}, args.results_dir)

            save(simulate(strategy, train, test, start_rows, pool_rows, learn, args.rounds, args.per_round, seed,
                          first, after_round=save))


def _by_draw(runs: list[dict], added: int) -> dict[int, float]:
    """Each draw's test accuracy after `added` labels, where its curve reached them (one run a draw and strategy)."""
    return {run["seed"]: point["test_accuracy"] for run in runs for point in run["curve"] if point["added"] == added}


def _accuracies(runs: list[dict], added: int) -> list[float]:
    return list(_by_draw(runs, added).values())


def paired(suggest: dict[int, float], random_: dict[int, float]) -> str:
    """Suggest minus random draw by draw (both start from the same draw): mean, standard error and how many draws
    suggest led; empty under two common draws."""
    gaps = [suggest[seed] - random_[seed] for seed in sorted(suggest.keys() & random_.keys())]
    if len(gaps) < 2:
        return ""
    error = statistics.stdev(gaps) / len(gaps) ** 0.5
    ahead = sum(gap > 0 for gap in gaps)
    return (f" Paired by draw: {statistics.fmean(gaps) * 100:+.1f} ± {error * 100:.1f} points (standard error), "
            f"suggest ahead in {ahead} of {len(gaps)} draws.")


def verdict(suggest: list[float], random_: list[float], added: int) -> str:
    """The issue's check: suggest's mean accuracy beats random's by more than the draws' spread (the larger of the
    two strategies' standard deviations over the draws)."""
    where = f"after {added} added labels" + ("" if added == ISSUE_ADDED else f" (the issue asks {ISSUE_ADDED})")
    if len(suggest) < 2 or len(random_) < 2:
        return f"Suggest against random {where}: fewer than 2 draws of each, no spread to judge by."
    gain = statistics.fmean(suggest) - statistics.fmean(random_)
    spread = max(statistics.stdev(suggest), statistics.stdev(random_))
    said = "beats random by more than" if gain > spread else "does not beat random by more than"
    return (f"Suggest against random {where}: mean {gain * 100:+.1f} points; suggest {said} the draws' spread "
            f"({spread * 100:.1f} points, the larger std over {min(len(suggest), len(random_))} draws).")


def active_loop_section(results: list[dict]) -> list[str]:
    """Markdown lines of the section (none without an active-loop result): per dataset and learner, test accuracy
    (%) after each round, mean ± std over the draws, suggest beside random, and the issue's check."""
    runs = [r for r in results if r.get("kind") == "active_loop"]
    if not runs:
        return []
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        key = (run["dataset"], run["learner"], run["start_per_class"], run["per_round"], run["pool"],
               run.get("variant") or "")
        groups.setdefault(key, []).append(run)
    first = runs[0]
    lines = ["## Active learning", "",
             "The labelling loop simulated: k labelled texts a class drawn (seeded) from the training split, a pool "
             "of unlabelled texts from the rest of it; each round the learner is trained on the labelled texts and "
             "scored on the full test split, then the next texts are chosen from the pool, by `attentive suggest`'s "
             "choice (margin sampling kept diverse) or at random, and labelled with the training split's gold labels. "
             "Both strategies start from the same draws. The learner `teacher` is the few-label teacher `train "
             "--few-labels` trains (SetFit over MiniLM, default settings), retrained each round; `default`, "
             "attentive's compact default trained on the labels alone. Test accuracy (%), mean ± std "
             f"over the draws; train s: mean seconds a training, on the machine each heading names "
             f"(`{first['command']}`, commit {first['git_commit']}).", ""]
    for (dataset, learner, k, per_round, pool, variant), members in sorted(groups.items()):
        by = {strategy: [r for r in members if r["strategy"] == strategy] for strategy in STRATEGIES}
        machine = members[0]["machine"]
        threads = machine.get("torch_threads")
        ran_on = machine.get("cuda_device") or machine.get("cpu_model", "a CPU") + (f", {threads} thread(s)"
                                                                                   if threads else "")
        ran_on += f" ({members[0]['note']})" if members[0].get("note") else ""
        lines += [f"### {dataset}, {learner}{f' ({variant})' if variant else ''}: {k} a class to start, {per_round} "
                  f"a round, pool {pool:,}; on {ran_on}", "",
                  *md_head(["labels added", "labelled", "suggest", "random", "draws (suggest/random)", "train s"],
                          "rrrrrr")]
        steps = sorted({(p["added"], p["labelled"]) for r in members for p in r["curve"]})
        for added, labelled in steps:
            cells = [fmt_mean_std(_accuracies(by[s], added), 1) for s in STRATEGIES]
            draws = "/".join(str(len(_accuracies(by[s], added))) for s in STRATEGIES)
            seconds = [p["train_seconds"] for r in members for p in r["curve"] if p["added"] == added]
            lines.append(md_row([str(added), str(labelled), *cells, draws, f"{statistics.fmean(seconds):.0f}"]))
        common = [a for a, _ in steps if all(_accuracies(by[s], a) for s in STRATEGIES)]
        at = ISSUE_ADDED if ISSUE_ADDED in common else max(common, default=None)
        lines += ["", f"Suggest against random: {NONE} (one strategy alone)." if at is None else
                  verdict(_accuracies(by["suggest"], at), _accuracies(by["random"], at), at)
                  + paired(_by_draw(by["suggest"], at), _by_draw(by["random"], at)), ""]
    return lines


if __name__ == "__main__":
    main()
