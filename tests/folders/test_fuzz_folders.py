"""Property tests of model folders: whatever damage a saved or an exported folder has taken (a file cut short,
bytes flipped or replaced, deleted, swapped for a link leaving the folder, a link to /dev/zero, a FIFO or a
directory; config.json with an entry deleted, set to any JSON value, nested thousands deep, or NaN), loading it and
predicting one text gives either answers or an AttentiveError, never another exception. Each case runs with the
process's memory bounded, so a read past the caps (an endless file) or an allocation the file does not back fails
the test instead of the machine, and a case still running after CASE_SECONDS (a read waiting on a FIFO) fails it
too."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import attentive
from attentive.answer import onnx_backend
from attentive.errors import AttentiveError
from attentive.onnx_format.write import export

from ..helpers import copy_of_tiny_run, memory_bound

pytestmark = pytest.mark.slow  # fuzzing

CASES = int(os.environ.get("ATTENTIVE_FUZZ_CASES", 2000))  # per folder kind; more on demand
FUZZ = settings(max_examples=CASES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
CASE_SECONDS = 30  # a case takes milliseconds
MEMORY_HEADROOM = 1024 * 2**20  # a tiny model loads in far less; an endless read or a sparse tensor needs far more
TEXT = "a gorgeous , witty film"

SAVED_FILES = ("config.json", "model.safetensors", "tokenizer.json")
EXPORTED_FILES = ("config.json", "model.onnx", "tokenizer.json")


@pytest.fixture(scope="module")
def folders(tiny_run, tmp_path_factory) -> dict[str, Path]:
    """A tiny trained model, saved and exported, and a scratch folder each case's damaged copy goes in."""
    root = tmp_path_factory.mktemp("fuzz_folders")
    model = attentive.load(copy_of_tiny_run(tiny_run, root / "saved"))
    export(model, root / "exported")
    (root / "outside").mkdir()
    return {"saved": root / "saved", "exported": root / "exported", "work": root / "work",
            "outside": root / "outside"}


# What can happen to one file of the folder.
FILE_DAMAGE = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)), min_size=1, max_size=8)),
    st.tuples(st.just("replace"), st.binary(max_size=300)),
    st.tuples(st.just("delete")),
    st.tuples(st.just("link outside")),
    st.tuples(st.just("link to /dev/zero")),
    st.tuples(st.just("fifo")),
    st.tuples(st.just("directory")),
)
JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10),
              st.sampled_from([0, -1, 1, 2, 400, 10**9, 10**18, "", "400", "none", "pretrained", [], {},
                               ["negative", "positive"], ["a", "a"], ["a", "b", "c"], ["ids", "mask"]])),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)
CONFIG_EDIT = st.one_of(
    st.tuples(st.just("delete key"), st.integers(0, 10**6)),
    st.tuples(st.just("set key"), st.integers(0, 10**6), JSON_VALUE),
    st.tuples(st.just("nest deep"), st.integers(0, 10**6), st.sampled_from([40, 1000, 100_000])),
    st.tuples(st.just("huge number"), st.integers(0, 10**6)),
)


def damages(files: tuple[str, ...]):
    """One to three damages, each to a file of `files` or an edit of config.json."""
    one = st.one_of(st.tuples(st.just("file"), st.sampled_from(files), FILE_DAMAGE),
                    st.tuples(st.just("config"), st.just("config.json"), CONFIG_EDIT))
    return st.lists(one, min_size=1, max_size=3)


def fresh_copy(source: Path, work: Path) -> Path:
    if work.exists():
        shutil.rmtree(work)
    return Path(shutil.copytree(source, work))


def damage_file(folder: Path, name: str, damage: tuple, outside: Path) -> None:
    path, kind = folder / name, damage[0]
    if not path.is_file() or path.is_symlink():  # an earlier damage removed or replaced it
        return
    if kind == "truncate":
        os.truncate(path, int(path.stat().st_size * damage[1]))
    elif kind == "flip":
        data = bytearray(path.read_bytes())
        for where, mask in damage[1]:
            if data:
                data[min(int(where * len(data)), len(data) - 1)] ^= mask
        path.write_bytes(bytes(data))
    elif kind == "replace":
        path.write_bytes(damage[1])
    else:
        copy = outside / name
        copy.write_bytes(path.read_bytes())
        path.unlink()
        if kind == "link outside":  # a good file, but not in the folder
            path.symlink_to(copy)
        elif kind == "link to /dev/zero":
            path.symlink_to("/dev/zero")
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "directory":
            path.mkdir()


def edit_config(folder: Path, edit: tuple) -> None:
    """Apply a JSON edit to the node of config.json that `edit[1]` picks (modulo the number of entries)."""
    path = folder / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8")) if path.is_file() and not path.is_symlink() else None
    except (ValueError, OSError, RecursionError):
        return  # already damaged beyond JSON
    if not isinstance(config, (dict, list)):
        return
    slots = _slots(config)
    if not slots:
        return
    container, key = slots[edit[1] % len(slots)]
    kind, marker = edit[0], "@@FUZZ@@"
    if kind == "delete key":
        del container[key]
        path.write_text(json.dumps(config))
    elif kind == "set key":
        container[key] = edit[2]
        path.write_text(json.dumps(config))  # floats may be NaN or infinite: json.dumps writes them bare
    else:
        container[key] = marker
        nested = "[" * edit[2] + "]" * edit[2] if kind == "nest deep" else "9" * 5000
        path.write_text(json.dumps(config).replace(json.dumps(marker), nested))


def _slots(value) -> list[tuple[dict | list, str | int]]:
    """Every (container, key) of a JSON value, depth first."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        keys = list(item) if isinstance(item, dict) else range(len(item))
        for key in keys:
            found.append((item, key))
            if isinstance(item[key], (dict, list)):
                stack.append(item[key])
    return found


def damaged(folders: dict[str, Path], kind: str, changes: list) -> Path:
    folder = fresh_copy(folders[kind], folders["work"])
    for target, name, change in changes:
        if target == "file":
            damage_file(folder, name, change, folders["outside"])
        else:
            edit_config(folder, change)
    return folder


@contextlib.contextmanager
def time_bound(seconds: float = CASE_SECONDS):
    """A case still running after `seconds` (waiting on a FIFO, reading an endless file) fails with TimeoutError."""
    def give_up(signum, frame):
        raise TimeoutError(f"still loading after {seconds} s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def answers_or_refuses(load, folder: Path) -> None:
    """Loading `folder` and predicting one text answers it or raises AttentiveError; anything else fails."""
    with memory_bound(MEMORY_HEADROOM), time_bound():
        try:
            [prediction] = load(folder).predict(TEXT)
        except AttentiveError as exc:
            assert "\n" not in str(exc).strip(), str(exc)
            event("refused")
            return
    assert prediction.label is None or isinstance(prediction.label, str)
    event("answered")


@FUZZ
@given(changes=damages(SAVED_FILES))
def test_a_damaged_saved_folder_answers_or_is_one_line(folders, changes):
    answers_or_refuses(attentive.load, damaged(folders, "saved", changes))


@FUZZ
@given(changes=damages(EXPORTED_FILES))
def test_a_damaged_exported_folder_answers_or_is_one_line(folders, changes):
    answers_or_refuses(lambda folder: onnx_backend.load(folder, threads=1), damaged(folders, "exported", changes))
