"""How BENCHMARKS.md writes numbers; accuracies are stored as fractions of 1 and shown in percent."""
from __future__ import annotations

import statistics
from collections.abc import Sequence

NONE = "—"


def fmt_mean_std(values: Sequence[float], digits: int = 2, scale: float = 100.0) -> str:
    """``mean ± std`` (sample std) of `values` × `scale`; the value alone for one run; ``—`` for none."""
    if not values:
        return NONE
    if len(values) == 1:
        return f"{values[0] * scale:.{digits}f}"
    return f"{statistics.fmean(values) * scale:.{digits}f} ± {statistics.stdev(values) * scale:.{digits}f}"


def fmt_number(value: float | None, digits: int = 2, scale: float = 100.0) -> str:
    """One value × `scale` (percent by default) with `digits` decimals; ``—`` for None."""
    return NONE if value is None else f"{value * scale:.{digits}f}"


def fmt_paper(value: float | None, digits: int = 2) -> str:
    """A paper's number in percent (values up to 1 read as fractions)."""
    if value is None:
        return NONE
    return fmt_number(value, digits, 100.0 if value <= 1 else 1.0)


def fmt_seconds(seconds: float | None) -> str:
    """Seconds as ``12.3 s``, ``4m 05s`` or ``1h 02m``."""
    if seconds is None:
        return NONE
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def fmt_count(count: float | None, digits: int = 2) -> str:
    """A parameter count as ``3.07M`` (`digits` decimals) or ``526.5K``; ``—`` for None."""
    if count is None:
        return NONE
    return f"{count / 1e6:.{digits}f}M" if count >= 1e6 else f"{count / 1e3:.1f}K"


def fmt_label(name: str, variant: str | None) -> str:
    """A recipe or baseline with its variant: ``lama_ctx (L800)``, or just ``tfidf_lr``."""
    return f"{name} ({variant})" if variant else name


def md_row(cells: Sequence[str]) -> str:
    """One markdown table row."""
    return "| " + " | ".join(cells) + " |"


def md_head(columns: Sequence[str], align: str) -> list[str]:
    """A markdown table's head; `align` holds one `l` or `r` a column."""
    return [md_row(columns), md_row(["---:" if side == "r" else "---" for side in align])]


def fmt_summary(summary: dict, digits: int = 2) -> str:
    """A stored ``{"mean", "std"}`` of fractions in percent: ``mean ± std``."""
    return f"{100 * summary['mean']:.{digits}f} ± {100 * summary['std']:.{digits}f}"
