"""How a run goes, apart from what it trains on and what it trains: `RunSettings`, the one object `attentive.train`,
`cv`, `tune` and `distill` take for it (as SetFit's `TrainingArguments`) and pass down to the training pipeline.

    settings = attentive.RunSettings(out="runs/sst2", device="cuda", overwrite=True)
    attentive.train("sst2", settings=settings, epochs=3)
    attentive.train("sst2", out="runs/sst2", device="cuda", overwrite=True, epochs=3)   # the same run

The data comes as a `Dataset` or an `attentive.data.source.DataSource`, the recipe's settings as a recipe and
keywords; the keywords a caller gives each go to one of the three by name (`RUN_FIELDS` here, the DataSource's
fields, the recipe's keys), attentive/data/keywords.py `split_keywords`.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path


@dataclass(frozen=True)
class RunSettings:
    """How one run goes: `out`, the folder it writes (None: nothing written); `data_dir`, where named datasets and
    the corpora a recipe's vectors read are found (None: $ATTENTIVE_DATA or ../shared/data); `device` (None: CUDA
    when there is one, else the CPU); `threads`, PyTorch's threads (None: as they are); `overwrite`, whether the
    run may replace what `out` holds of its own kind; `resume`, whether it continues the killed run in `out` (train
    alone); `show_progress`, the progress bars (None: the command's own default: train and distill show them, cv and
    tune do not)."""

    out: str | Path | None = None
    data_dir: str | Path | None = None
    device: str | None = None
    threads: int | None = None
    overwrite: bool = False
    resume: bool = False
    show_progress: bool | None = None

    @property
    def out_path(self) -> Path | None:
        """`out` as a Path (None without one)."""
        return Path(self.out) if self.out is not None else None

    def progress(self, default: bool = True) -> bool:
        """Whether to show progress bars: `show_progress`, or `default` where it is None."""
        return default if self.show_progress is None else bool(self.show_progress)


RUN_FIELDS = frozenset(field.name for field in fields(RunSettings))
