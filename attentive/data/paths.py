"""Where the benchmark data lives."""
from __future__ import annotations

import os
from pathlib import Path

from attentive.errors import AttentiveError

ENV_VAR = "ATTENTIVE_DATA"
_REPO_ROOT = Path(__file__).resolve().parents[2]


def resolve_data_dir(data_dir: str | Path | None = None) -> Path:
    """The data folder: `data_dir` if given, else $ATTENTIVE_DATA, else `../shared/data` from the current directory,
    else `../shared/data` beside the repository that holds this package. Raises AttentiveError if none exists."""
    for given, origin in ((data_dir, "--data-dir"), (os.environ.get(ENV_VAR) or None, ENV_VAR)):
        if given is not None:
            path = Path(given).expanduser()
            if not path.is_dir():
                raise AttentiveError(f"data directory {path} (from {origin}) does not exist")
            return path
    for candidate in (Path.cwd() / ".." / "shared" / "data", _REPO_ROOT / ".." / "shared" / "data"):
        if candidate.is_dir():
            return candidate.resolve()
    raise AttentiveError(f"no data directory found: pass --data-dir DIR or set {ENV_VAR}=DIR")
