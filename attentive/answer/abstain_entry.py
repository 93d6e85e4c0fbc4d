"""The abstain threshold written into a model folder's config.json (`attentive abstain`), saved or exported, with the
folder's manifest, as one write; the threshold itself and its rule are attentive/answer/abstain.py's."""
from __future__ import annotations

from pathlib import Path

from ..folders.manifest import owner_of, with_manifest
from ..folders.reading import read_json_in_folder
from ..util.atomic import atomic_write_files, json_text
from .abstain import ABSTAIN, abstain_of

CONFIG = "config.json"


def save_abstain(folder: str | Path, record: dict | None) -> None:
    """Keep `record` (None: remove it) as config.json's `abstain` in the model folder `folder` (saved or exported),
    written with the folder's manifest as one; nothing else of the folder changes."""
    folder = Path(folder)
    config = read_json_in_folder(folder, CONFIG)
    if record is None:
        config.pop(ABSTAIN, None)
    else:
        abstain_of({**config, ABSTAIN: record}, folder / CONFIG)
        config[ABSTAIN] = record
    data = (json_text(config, folder / CONFIG) + "\n").encode("utf-8")
    atomic_write_files(folder, with_manifest(folder, {CONFIG: data}, owner_of(folder, ABSTAIN)))
