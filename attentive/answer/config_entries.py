"""What a model's config.json says about how it answers, read and checked where the model is opened: the temperature
its probabilities are computed at (`temperature_of`) and a multi-label model's per-label thresholds
(`thresholds_of`); a damaged entry is one line naming it, at load rather than at the first answer."""
from __future__ import annotations

import math

from ..errors import AttentiveError


def thresholds_of(config: dict, where) -> dict[str, float] | None:
    """A multi-label model's per-label thresholds (config.json's `thresholds`, chosen on dev after training), None
    for a single-label model (no `multi_label: true`). A `multi_label` that is not true or false, or thresholds that
    are not one number in [0, 1] per label, are one line naming `where` (the file) and the entry."""
    flag = config.get("multi_label", False)
    if not isinstance(flag, bool):
        raise AttentiveError(f"{where}: 'multi_label' must be true or false, not {str(flag)[:40]!r}")
    if not flag:
        return None
    thresholds = config.get("thresholds")
    if not isinstance(thresholds, dict) or set(thresholds) != set(config["labels"]):
        raise AttentiveError(f"{where}: a multi-label model needs 'thresholds', one number per label")
    for label, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise AttentiveError(f"{where}: 'thresholds' of {label[:40]!r} must be a number in [0, 1], not "
                                 f"{str(value)[:40]!r}")
    return {label: float(thresholds[label]) for label in config["labels"]}


def temperature_of(config: dict) -> float:
    """The temperature a model's probabilities are computed at: config.json's `calibration: {temperature: T}`, 1 where
    there is no `calibration` (a folder saved before it existed); a value that is not a finite number > 0 is one
    line naming the entry."""
    calibration = config.get("calibration")
    if calibration is None:
        return 1.0
    value = calibration.get("temperature") if isinstance(calibration, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise AttentiveError(f"config.json: 'calibration.temperature' must be a number > 0, not {value!r}"[:200])
    return float(value)
