"""What `attentive tune` writes about its trials: the trial table (trials.json), the trials tied with the best within
dev's noise, and the plot (tune.png) of dev accuracy over trials and each setting's importance (fANOVA)."""
from __future__ import annotations

import io
import math


def trial_row(trial) -> dict:
    reports = {int(step): float(value) for step, value in sorted(trial.intermediate_values.items())}
    seconds = trial.user_attrs.get("seconds")
    return {"number": trial.number, "state": trial.state.name.lower(), "params": dict(trial.params),
            "dev_accuracy": trial.value if trial.value is not None else (max(reports.values()) if reports else None),
            "epochs": reports, "seconds": seconds, "size": trial.user_attrs.get("size"),
            "note": trial.user_attrs.get("note") or ("stopped before it finished (the run was killed)"
                                                     if trial.state.name == "FAIL" else None)}


def trial_table(study) -> list[dict]:
    """trials.json's rows: each trial's number, state (complete, pruned, fail), settings, dev accuracy (a pruned
    trial's: its best reported epoch's), dev accuracy per epoch, seconds, model folder size (bytes) and note."""
    return [trial_row(trial) for trial in study.get_trials(deepcopy=False)]


def tied_trials(rows: list[dict], best_trial: int | None, dev_texts: int) -> dict | None:
    """The completed trials whose dev accuracy is within one standard error of the best trial's (the best included):
    {"trials", "dev_texts", "standard_error", "note"}, the standard error √(p(1 − p)/n) of the best's accuracy p on
    the `dev_texts` texts (p smoothed by Laplace's rule, so that 100% has one; attentive/training/calibration.py), and
    `note` a line saying so where more than one trial is tied (else None). None without a best trial."""
    from ..training.calibration import dev_standard_error

    best = next((row for row in rows if row["number"] == best_trial), None)
    if best is None or best["dev_accuracy"] is None:
        return None
    error = dev_standard_error(dev_texts, best["dev_accuracy"])
    tied = [row["number"] for row in rows if row["state"] == "complete" and row["dev_accuracy"] is not None
            and row["dev_accuracy"] >= best["dev_accuracy"] - error - 1e-12]
    note = None
    if len(tied) > 1:
        shown = ", ".join(map(str, tied[:10])) + (f" and {len(tied) - 10} more" if len(tied) > 10 else "")
        note = (f"{len(tied)} trials ({shown}) are within one standard error ({100 * error:.1f} points on {dev_texts} "
                f"dev texts) of the best's dev accuracy {best['dev_accuracy']:.4f}: dev cannot tell them apart; "
                "compare them by cross-validation (attentive cv --set ...) or on more dev texts")
    return {"trials": tied, "dev_texts": dev_texts, "standard_error": error, "note": note}


def setting_importances(study, seed: int) -> dict[str, float]:
    """Each searched setting's importance (fANOVA, optuna.importance) over the completed trials; {} under two."""
    from optuna.importance import FanovaImportanceEvaluator, get_param_importances
    from optuna.trial import TrialState

    if len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))) < 2:
        return {}
    try:
        found = get_param_importances(study, evaluator=FanovaImportanceEvaluator(seed=seed))
    except Exception:  # e.g. every completed trial drew the same settings: nothing to apportion
        return {}
    return {key: round(float(value), 4) for key, value in found.items()}


def tune_plot(rows: list[dict], importances: dict[str, float], dataset: str, recipe: str) -> bytes:
    """tune.png: dev accuracy over trials (completed, pruned, best so far) and each setting's importance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    best, best_line = -1.0, []
    for state, marker, colour in (("complete", "o", "tab:blue"), ("pruned", "x", "tab:orange")):
        shown = [row for row in rows if row["state"] == state and row["dev_accuracy"] is not None]
        left.scatter([row["number"] for row in shown], [row["dev_accuracy"] for row in shown], marker=marker,
                     color=colour, label=state)
    for row in rows:
        if row["state"] == "complete" and row["dev_accuracy"] is not None:
            best = max(best, row["dev_accuracy"])
        best_line.append(best if best >= 0 else math.nan)
    left.step([row["number"] for row in rows], best_line, where="post", color="tab:green", label="best so far")
    left.set(xlabel="trial", ylabel="dev accuracy", title=f"attentive tune: {recipe} on {dataset}")
    left.legend(loc="lower right")
    if importances:
        names = list(importances)[::-1]
        right.barh(names, [importances[name] for name in names], color="tab:blue")
        right.set(xlabel="importance (fANOVA)", title="each setting's importance")
    else:
        right.text(0.5, 0.5, "importance needs two completed trials", ha="center", va="center")
        right.set_axis_off()
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()
