"""BENCHMARKS.md's defaults table, right after the summary: the default path (`attentive train` with no recipe and no
--set) on every visible single-text dataset, beside its own linear part, the previous default, `opinion`, TF-IDF + LR,
fastText and model2vec, and what `train --pick` picks.

Rows come from result files whose `variant` is WINDOWED where a dataset has them, else CURRENT (`python -m
benchmarks.harness.run --recipe default --variant min-texts`; the previous default's are `defaults`,
benchmarks/product/accuracy/reproduce_defaults.sh).
"""
from __future__ import annotations

import statistics

from benchmarks.harness.common import SHORT_OPINION, TOPIC_INTENT
from benchmarks.harness.formatting import fmt_mean_std
from benchmarks.harness.results_io import DEFAULTS_DATASETS as DATASETS
from benchmarks.harness.results_io import METRICS, mean, runs_named

DEFAULT_RECIPE = "default"
OPINION_RECIPE = "opinion"  # the default until commit a798496 (2026-11-27): its runs are the `opinion` column
CURRENT = "min-texts"  # the default's runs at its current code: the linear model over the features two texts hold
# The same with `--set train.window=256`, which the default now sets, on the sets with training texts longer than 256
# tokens whose CURRENT runs were made before it (a set with no such text trains exactly the same model either way)
WINDOWED = "window256-1thread"
RULED = "rows"  # the runs the rule of "The linear model on every length" judged (its channel trained by its rows)
PREVIOUS = "defaults"  # the default's runs before


def default_runs(results: list[dict], dataset: str) -> list[dict]:
    """The default's runs of `dataset` in the defaults table: variant WINDOWED where it ran, else CURRENT."""
    return (runs_named(results, dataset, DEFAULT_RECIPE, WINDOWED)
            or runs_named(results, dataset, DEFAULT_RECIPE, CURRENT))


PICK_BUDGET_S = 900.0  # train --pick's default --budget
BASELINES = ("tfidf_lr", "fasttext", "model2vec")
# Aspect and pair data: the row's label, the runs (model name, variant), the n-gram baseline run on the same data, and
# the issue's target (None: at or above that baseline). Lin et al.'s gated encoder is the paper's own pair design,
# with its factors normalised and started alike (benchmarks/DECISIONS.md, the SICK note); its row shows the variant of
# that family with the best mean dev accuracy over at least 3 seeds (GATED's variant None: chosen in gated_variant).
GATED_FAMILY = "gated-normalised-same-glove"
GATED = ("lama_pair", None)
OTHER_ROWS = (("semeval14_category", "default_aspect", (DEFAULT_RECIPE, "defaults"), "tfidf_lr", 0.800),
              ("semeval14_term", "default_aspect_terms", (DEFAULT_RECIPE, "defaults"), "tfidf_lr", None),
              ("sick", "default_pair", (DEFAULT_RECIPE, "defaults"), "pair_bow_lr", 0.840),
              ("sick", "Lin et al.'s gated encoder (lama_pair)", GATED, "pair_bow_lr", None))


def gated_variant(results: list[dict]) -> str:
    """The variant of the gated-encoder family (GATED_FAMILY, or it with more options) with the best mean dev
    accuracy on SICK over at least 3 seeds; the family's name itself when none has."""
    groups: dict[str, list[float]] = {}
    for r in runs_named(results, "sick", GATED[0]):
        variant = r.get("variant") or ""
        if variant == GATED_FAMILY or variant.startswith(GATED_FAMILY + "-"):
            groups.setdefault(variant, []).append(r["dev"]["accuracy"])
    complete = {variant: statistics.fmean(dev) for variant, dev in groups.items() if len(dev) >= 3}
    return max(complete, key=complete.get, default=GATED_FAMILY)


def _with_count(values: list[float]) -> str:
    return f"{fmt_mean_std(values)} ({len(values)})" if values else "—"


def simulated_pick(ours: list[dict], theirs: list[dict],
                   budget_s: float = PICK_BUDGET_S) -> list[tuple[str, float, float]]:
    """`train --pick`'s choice per seed, from the stored runs of the two candidates with that seed: `opinion` where
    the two runs' wall times fit the budget and its dev accuracy is higher by more than the noise. The stored runs
    keep no per-text dev answers, so the noise is the unpaired standard error of the difference, an upper bound on
    the paired one `--pick` uses: the simulation picks `opinion` at most as often. Returns (picked, its test
    accuracy, the pick's training seconds) per seed both ran."""
    picks = []
    by_seed = {r["seed"]: r for r in theirs}
    for run in ours:
        other = by_seed.get(run["seed"])
        if other is None:
            continue
        seconds = run["wall_time_s"] + other["wall_time_s"]
        fast, slow, n = run["dev"]["accuracy"], other["dev"]["accuracy"], run["dev"]["n"]
        noise = ((fast * (1 - fast) + slow * (1 - slow)) / n) ** 0.5
        if seconds <= budget_s and slow - fast > noise:
            picks.append(("opinion", other["test"]["accuracy"], seconds))
        else:
            picks.append(("default", run["test"]["accuracy"], seconds if seconds <= budget_s else run["wall_time_s"]))
    return picks


def _checks(means: dict[str, tuple], below_peer: list[str], below_linear: list[str]) -> str:
    """The table's claims, computed: against the peers and the linear part on every set, against `opinion` over the
    short opinion sets and over the topic and intent sets (where both ran on every set of the group)."""
    said = [("At or above the best peer, or below it by less than the default's own seed std, on every set run"
             if not below_peer else "Below the best peer by more than its seed std on " + ", ".join(below_peer)),
            ("at or above its own linear part alone on every set" if not below_linear
             else "below its linear part alone on " + ", ".join(below_linear))]
    for name, group in (("the short opinion sets", SHORT_OPINION), ("the topic and intent sets", TOPIC_INTENT)):
        pairs = [means[d] for d in group if d in means and means[d][1] is not None]
        if len(pairs) == len(group):
            gap = statistics.fmean(p[0] - p[1] for p in pairs) * 100
            said.append(f"over {name} ({len(group)}) the default's mean is {gap:+.2f} from `opinion`'s")
        else:
            said.append(f"over {name}, `opinion` or the default has not run on {len(group) - len(pairs)} of "
                        f"{len(group)}")
    return "; ".join(said) + "."


TIMED = ("windows-2threads", "rows-2threads")  # the default's seed-0 runs timed alone on its 2 threads, newest first
TIME_BOUNDS = {"newsgroups20": 120, "clinc150": 90}  # seconds; sets of at most 10,000 short texts: 60


def training_seconds(result: dict) -> float:
    """The seconds `attentive train` took in a harness run: `train_s` where the run recorded it, else the run's
    `wall_time_s`, which also holds the evaluation of dev and test (runs before the harness timed the training
    alone)."""
    return result.get("train_s", result["wall_time_s"])


def timing_line(results: list[dict]) -> str:
    """The default's training time where it was timed alone on the machine's two threads (the first variant of TIMED
    a dataset has, `python -m benchmarks.harness.run --recipe default --variant V`, OMP_NUM_THREADS=2), against its
    bound: the `attentive.train` call alone where the run timed it (`training_seconds`)."""
    newest = (next((r for variant in TIMED for r in runs_named(results, dataset, DEFAULT_RECIPE, variant)), None)
              for dataset in DATASETS)
    timed = [r for r in newest if r is not None]
    if not timed:
        return "Training time alone on the machine's two threads: not measured yet."
    said = []
    for r in timed:
        seconds, bound = training_seconds(r), TIME_BOUNDS.get(r["dataset"], 60)
        said.append(f"{r['dataset']} {seconds:.0f} s (`{r['variant']}` at {r['git_commit']}; bound {bound} s, "
                    + ("reached)" if seconds <= bound else f"not reached, by {seconds - bound:.0f} s)"))
    return ("Training time of the default alone on the machine's two threads (seed 0, `python -m "
            "benchmarks.harness.run --recipe default --variant V` with OMP_NUM_THREADS=2; the train s "
            "column above ran on one thread beside other jobs): " + "; ".join(said) + ".")


ACROSS_CPUS = "rows-xcpu"  # seed 0 of the default rerun on another machine's CPU, one thread, the same vectors


def across_cpus_line(results: list[dict]) -> str:
    """How far the default's results move from one CPU to another: its runs of variant ACROSS_CPUS (made on the lent
    GPU machine's CPU, with no GPU) against the same dataset and seed of variant RULED, run here at the same code, dev
    and test."""
    said = []
    for there in (r for dataset in DATASETS for r in runs_named(results, dataset, DEFAULT_RECIPE, ACROSS_CPUS)):
        here = [r for r in runs_named(results, there["dataset"], DEFAULT_RECIPE, RULED) if r["seed"] == there["seed"]]
        if not here:
            continue
        moved = [f"{split} {here[0][split]['accuracy'] * 100:.2f} and {there[split]['accuracy'] * 100:.2f}"
                 for split in ("dev", "test")]
        same = all(here[0][split]["accuracy"] == there[split]["accuracy"] for split in ("dev", "test"))
        said.append(f"{there['dataset']} seed {there['seed']}: " + ("the same dev and test accuracy to the digit ("
                    if same else "moved (") + "; ".join(moved) + ")")
        machines = [(r["machine"]["cpu_model"], r["machine"]["torch_version"]) for r in (here[0], there)]
    if not said:
        return "Across CPUs: not measured yet."
    return (f"Across CPUs (`python -m benchmarks.harness.run --recipe default --seeds 0 --variant {ACROSS_CPUS}`, one "
            f"thread, on {machines[1][0]} with torch {machines[1][1]}, against the same code's runs (variant "
            f"`{RULED}`) on {machines[0][0]} with torch {machines[0][1]}): " + "; ".join(said) + ".")


RULE_SETS = DATASETS[:11]  # the visible sets the rule was written for, before the four unseen ones joined


def rule_line(results: list[dict]) -> str:
    """The rule of benchmarks/DECISIONS.md, "The linear model on every length", computed from dev alone: the mean dev
    accuracy of the runs it judged (variant RULED) against the previous default's over RULE_SETS (at least the
    previous minus 0.1), and no set's mean dev below the previous one's by more than the larger of the two seed
    stds."""
    ran, fallen, now, before = 0, [], [], []
    for dataset in RULE_SETS:
        new = METRICS["dev_accuracy"](runs_named(results, dataset, DEFAULT_RECIPE, RULED))
        old = METRICS["dev_accuracy"](runs_named(results, dataset, DEFAULT_RECIPE, PREVIOUS))
        if len(new) < 3 or len(old) < 2:
            continue
        ran += 1
        now.append(statistics.fmean(new))
        before.append(statistics.fmean(old))
        spread = max(statistics.stdev(new), statistics.stdev(old))
        if statistics.fmean(old) - statistics.fmean(new) > spread:
            fallen.append(f"{dataset} {(statistics.fmean(new) - statistics.fmean(old)) * 100:+.2f}")
    if ran < len(RULE_SETS):
        return (f"The rule (benchmarks/DECISIONS.md, \"The linear model on every length\"): {ran} of "
                f"{len(RULE_SETS)} sets have run.")
    gain = (statistics.fmean(now) - statistics.fmean(before)) * 100
    passed = gain >= -0.1 and not fallen
    return (f"The rule (benchmarks/DECISIONS.md, \"The linear model on every length\", dev only): mean dev over the "
            f"{ran} visible sets {statistics.fmean(now) * 100:.2f} against the previous default's "
            f"{statistics.fmean(before) * 100:.2f} ({gain:+.2f}; at least -0.10 needed); "
            + ("no set below by more than its seed std" if not fallen else "below by more than the seed std: "
               + ", ".join(fallen)) + (": the rule is met." if passed else ": the rule is not met."))


def defaults_section(results: list[dict], sizes: list[dict] = ()) -> list[str]:
    lines = ["## The default model against the baselines", "",
             "`attentive train --train your.csv --out runs/m`: recipe `default`, no `--set` (`python -m "
             f"benchmarks.harness.run --recipe default --variant {CURRENT}`; on IMDB, R8 and 20 Newsgroups, which hold "
             f"training texts longer than 256 tokens, variant `{WINDOWED}`, the same with `--set train.window=256`, "
             "which the default sets; TweetEval irony's one such text was read through the window in its "
             f"`{CURRENT}` runs, made after the default set it; a set without such texts trains the same model either "
             "way): the compact model, its n-gram channel "
             "trained by its rows, and the logistic regression over its n-grams fitted after training on every "
             "length, kept where dev says so (benchmarks/DECISIONS.md, \"The linear model on every length\"), over "
             "the n-grams at least two training texts hold (\"The default's training time\"). "
             "Beside it: its own linear part alone (that logistic regression, refitted at the C dev chose), the "
             f"previous default (variant `{PREVIOUS}`: the dense channel, the linear model on long texts only), "
             "`opinion` (a biGRU under the same attention), TF-IDF + LR, fastText and model2vec tuned on dev, and "
             "what `train --pick` picks from the default and `opinion` (simulated from the two candidates' stored runs "
             "of each seed: `simulated_pick`; its seconds are both trainings' where `opinion` fits the budget). Test "
             "accuracy (%), mean ± std over seeds "
             "(n). Δ: the default's mean minus the best of TF-IDF + LR, fastText and model2vec. Train: mean wall "
             "seconds of the default's runs on the 2-core CPU machine (one thread, beside other work).", "",
             "| dataset | default (n) | linear part | previous default (n) | opinion (n) | TF-IDF + LR | fastText "
             "| model2vec (n) | Δ default | pick: opinion / seeds (test; train s) | train s |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    below_peer, below_linear, means = [], [], {}
    for dataset in DATASETS:
        runs = default_runs(results, dataset)
        ours = METRICS["test_accuracy"](runs)
        linear = [r["linear_alone"]["test"] for r in runs if r.get("linear_alone")]
        previous = METRICS["test_accuracy"](runs_named(results, dataset, DEFAULT_RECIPE, PREVIOUS))
        opinion_runs = runs_named(results, dataset, OPINION_RECIPE, "defaults")
        opinion = METRICS["test_accuracy"](opinion_runs)
        baselines = {name: METRICS["test_accuracy"](runs_named(results, dataset, name)) for name in BASELINES}
        best = max((statistics.fmean(v) for v in baselines.values() if v), default=None)
        delta = (statistics.fmean(ours) - best) * 100 if ours and best is not None else None
        if ours:
            means[dataset] = (statistics.fmean(ours), statistics.fmean(opinion) if opinion else None)
            spread = statistics.stdev(ours) * 100 if len(ours) > 1 else 0.0
            if delta is not None and delta < -spread:
                below_peer.append(f"{dataset} {delta:+.2f} (std {spread:.2f})")
            if linear and statistics.fmean(ours) < statistics.fmean(linear):
                below_linear.append(f"{dataset} {(statistics.fmean(ours) - statistics.fmean(linear)) * 100:+.2f}")
        picks = simulated_pick(runs, opinion_runs)
        picked = "—" if not picks else (f"{sum(p[0] == 'opinion' for p in picks)}/{len(picks)} "
                                        f"({fmt_mean_std([p[1] for p in picks])}; "
                                        f"{statistics.fmean(p[2] for p in picks):.0f} s)")
        train_s = mean(METRICS["wall_time_s"](runs))
        lines.append(f"| {dataset} | {_with_count(ours)} | {fmt_mean_std(linear)} | {_with_count(previous)} | "
                     f"{_with_count(opinion)} | {fmt_mean_std(baselines['tfidf_lr'])} | "
                     f"{fmt_mean_std(baselines['fasttext'])} | {_with_count(baselines['model2vec'])} | "
                     + ("—" if delta is None else f"{delta:+.2f}") + f" | {picked} | "
                     + ("—" if train_s is None else f"{train_s:.0f}") + " |")
    lines += ["", _checks(means, below_peer, below_linear), "", rule_line(results), "", timing_line(results), "",
              across_cpus_line(results)]
    lines += ["", "Aspect and pair data, where `default` stands for `default_aspect`, `default_aspect_terms` and "
                  "`default_pair` (benchmarks/DECISIONS.md), and Lin et al.'s gated pair encoder: test accuracy (%), "
                  "the "
                  "n-gram baseline run on the same split, and the issue's target (where the issue names none, the "
                  "baseline).", "",
              "| dataset | model | test accuracy (n) | n-gram baseline | Δ | target |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
    for dataset, label, (name, variant), baseline, target in OTHER_ROWS:
        if (name, variant) == GATED:
            variant = gated_variant(results)
            label = f"{label}, `{variant}`"
        ours = METRICS["test_accuracy"](runs_named(results, dataset, name, variant))
        theirs = METRICS["test_accuracy"](runs_named(results, dataset, baseline))
        if target is None:
            target = statistics.fmean(theirs) if theirs else 1.0
        delta = f"{(statistics.fmean(ours) - statistics.fmean(theirs)) * 100:+.2f}" if ours and theirs else "—"
        reached = "" if not ours else (" reached" if statistics.fmean(ours) >= target else " not reached")
        lines.append(f"| {dataset} | {label} | {fmt_mean_std(ours)} ({len(ours)}) | {fmt_mean_std(theirs)} "
                     f"({baseline}) | {delta} | ≥ {100 * target:.1f}{reached} |")
    for size in sorted(sizes, key=lambda r: r["dataset"]):
        lines += ["", f"Saved model folder of `{size['recipe']}` on {size['dataset']}: **{size['folder_mb']} MB** "
                      f"({size['vocab_size']:,} vocabulary rows x {size['embedding_dim']}-d vectors, "
                      f"{size['params']:,} parameters; `python -m benchmarks.product.deploy.model_size --dataset "
                      f"{size['dataset']}` "
                      f"at commit `{size['git_commit']}`, an untrained folder; folders saved since commit `96637da` "
                      "store only the nonzero rows of the n-gram table, so a trained one is at most this)."]
    return lines + [""]
