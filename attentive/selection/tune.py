"""`attentive tune` (`attentive.tune`): a search over a recipe's settings on a time budget, with Optuna.

    result = attentive.tune("sst2", out="runs/sst2-tune", budget="10m")          # or train="data.csv"
    result.best_params          # {"train.lr": 0.00071, "embedder.dropout": 0.31, ...}
    attentive.load("runs/sst2-tune/best").predict("a gorgeous, witty film")

The search space is data: the recipe's `tune:` section maps settings ("section.key") to spaces (`uniform`,
`log_uniform`, `int`, `choice`; attentive/recipes/types.py:SearchSpace); settings fixed with `--set` (or
keyword settings) are not searched. A new study's first trial is the recipe's own settings (those its spaces
hold), so that a search in which no trial beats the recipe reports the recipe itself. Each trial trains the recipe
with its sampled settings by the ordinary pipeline into the scratch folder OUT/trials/N; Optuna's TPE sampler
(seeded) proposes the settings and a median pruner stops a trial whose dev accuracy, reported after each epoch, falls
below the median of the earlier trials' at that epoch.
With `max_size`, a trial whose saved model folder (model.safetensors + tokenizer.json + config.json) is larger is
pruned after its first epoch (the size of a model folder does not change with training). A trial that fails (an
error, out of memory) is recorded as failed and the search goes on; Ctrl-C stops it, keeping the best so far. No
trial starts once the budget is spent; the running one finishes.

The study lives in OUT/study.db (Optuna's SQLite storage), so a second call with the same OUT resumes it: more
trials within a new budget, the earlier ones kept. A study.db that is no regular file inside OUT, no SQLite database
or a damaged one is one line (attentive/selection/study_file.py). The best trial's model is copied to OUT/best (a
normal model folder), the trial table to OUT/trials.json and a plot (dev accuracy over trials, each setting's
importance) to OUT/tune.png. The folder follows the folder rule (attentive/folders/output.py): `TUNE_RUN` names what
tune writes; nothing else there is ever replaced or removed.
"""
from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..data.example import Dataset
from ..data.source import DataSource, Spelling
from ..errors import AttentiveError
from ..folders.manifest import Owner, current_owner, record, remove_owned, with_manifest
from ..folders.output import OutputKind, claim, is_hidden
from ..folders.saved import MODEL_FILES
from ..recipes.for_data import recipe_for_data
from ..recipes.loader import entry, setting_key, with_settings
from ..recipes.types import Recipe, SearchSpace
from ..training.calibration import quiet_small_dev, warn_small_dev
from ..training.pipeline import TRAINING_RUN
from ..util.run_settings import RunSettings
from .limits import human_size, parse_budget, parse_size
from .study_file import check_study, damaged
from .tune_report import setting_importances, tied_trials, trial_row, trial_table, tune_plot

STUDY, TABLE, PLOT, BEST, TRIALS = "study.db", "trials.json", "tune.png", "best", "trials"
STUDY_NAME = "attentive-tune"
TUNE = Spelling("a dataset name (or a Dataset)", None, "train= (a file)")  # tune takes no texts in memory
TUNE_DATA = frozenset({"train", "dev", "text_column", "label_column", "pair_column", "aspect_column"})
SQLITE_FILES = frozenset({STUDY, f"{STUDY}-journal", f"{STUDY}-wal", f"{STUDY}-shm"})
MAX_TRIALS = 10_000  # trials a study holds at most (trial N trains in trials/N)
TUNE_RUN = OutputKind(command="tune", output="a tuning study", files=frozenset({*SQLITE_FILES, TABLE, PLOT}),
                      holds_output=lambda folder: (folder / STUDY).is_file(),
                      folders={BEST: TRAINING_RUN.files, TRIALS: frozenset(str(k) for k in range(MAX_TRIALS)),
                               # `tune --compact`'s: the best model's int8 export (a student distilled first where
                               # it reads context), written for OUT (attentive/distill/compact.py)
                               **dict.fromkeys((f"{BEST}-int8", f"{BEST}-student", f"{BEST}-student-int8"))},
                      replacing_needs_overwrite=False)  # a study there is resumed; --overwrite starts over


@dataclass
class TuneResult:
    """What `tune` found: the best trial's number, settings and dev accuracy, the trial table (trials.json's
    `trials`), each setting's importance (where two trials or more completed), the best model (loaded), the output
    folder and the files written, whether Ctrl-C stopped the search, and the trials tied with the best within dev's
    noise (`tied`: trials.json's, attentive/selection/tune_report.py `tied_trials`)."""

    best_trial: int
    best_params: dict
    best_dev_accuracy: float
    trials: list[dict]
    importances: dict[str, float]
    model: object = None
    out: Path | None = None
    written: list[Path] = field(default_factory=list)
    interrupted: bool = False
    fixed: dict = field(default_factory=dict)
    tied: dict | None = None


class TooLarge(Exception):
    """A trial's model folder is larger than `max_size`."""


@dataclass(frozen=True)
class TuneSearch:
    """What one `tune` call searches, and how: the data, the recipe without its `tune:` section (`base`), the spaces
    searched and the settings fixed, the budget in seconds, the size limit in bytes (None: none), the trials at most
    (None: as many as the budget allows), the sampler's seed, the run's settings and the callback, passed as one to
    the study and its trials."""

    data: Dataset
    base: Recipe
    spaces: dict[str, SearchSpace]
    fixed: dict
    seconds: float
    limit: int | None
    max_trials: int | None
    seed: int
    settings: RunSettings
    on_trial: Callable[[dict], None] | None = None


def tune(dataset: str | Dataset | DataSource | None = None, recipe: str | dict | Recipe = "default",
         out: str | Path | None = None, budget: str | float = "10m", max_size: str | int | None = None,
         overrides: list[str] | str | None = None, trials: int | None = None, seed: int = 0, *,
         settings: RunSettings | None = None, on_trial: Callable[[dict], None] | None = None,
         **given) -> TuneResult:
    """Search the settings of `recipe` named in its `tune:` section (see the module's docstring) on `budget` (a
    time: "30s", "10m", "1h", or seconds), at most `trials` trials if given; the best dev accuracy wins.

    The data is a named dataset or a `Dataset` (`dataset`), or your files (`train=`, optionally `dev=`: CSV, TSV or
    JSONL, with `text_column=`, `label_column=`, `pair_column=`, `aspect_column=`), or a `DataSource` of them. The
    run goes as `settings` says (an `attentive.RunSettings`: `data_dir`, `device`, `threads`, `overwrite`,
    `show_progress`, default off), each of its fields also a keyword (`device="cpu"`) that wins over it; `out` is
    its `out`. `overrides` ("section.key=value") and every other keyword (`epochs=3`) change the recipe as in
    `attentive.train` and fix those settings: they are not searched. `max_size` ("5MB", or bytes) prunes a trial
    whose model folder is larger. `seed` seeds the sampler (the networks' seed is the recipe's `train.seed`). With
    `out`, the study (study.db), the best model (best/), trials.json and tune.png are written there, and a study
    already there is resumed (`overwrite`: start it over); without it, all lives in a temporary folder and only the
    result is kept.
    `on_trial(row)` is called as each trial ends with its row of the trial table. A recipe without a `tune:` section,
    a bad space, a bad budget, `resume` (a study in `out` is resumed of itself) and no trial that completed (every
    model above `max_size`, say) are one line (AttentiveError)."""
    from ..data.keywords import split_keywords
    from ..util.checks import overrides_argument

    source, settings, recipe_settings = split_keywords(dataset, settings, given, TUNE_DATA, out)
    if settings.resume:
        raise AttentiveError("tune has no resume: a study already in out is resumed (overwrite=True starts it over)")
    seconds = parse_budget(budget)
    limit = parse_size(max_size)
    if trials is not None and (isinstance(trials, bool) or not isinstance(trials, int) or trials < 1):
        raise AttentiveError(f"trials: give 1 or more (got {trials!r})")
    data = source.load(spelling=TUNE)
    overrides = overrides_argument(overrides)
    typed = recipe_for_data(data, recipe, overrides, recipe_settings)  # the run's one parse of its recipe
    fixed_keys = [override.partition("=")[0].strip() for override in overrides]
    fixed_keys += [".".join(setting_key(typed.as_dict(), name)) for name in recipe_settings]
    base, spaces, fixed = search_space(typed, fixed_keys)
    if settings.threads is not None:
        from ..util.threads import use_threads

        use_threads(settings.threads, torch_needed=True)
    search = TuneSearch(data, base, spaces, fixed, seconds, limit, trials, seed, settings, on_trial)
    if settings.out is None:
        with tempfile.TemporaryDirectory(prefix="attentive-tune-") as scratch:
            with claim(Path(scratch), TUNE_RUN) as folder:
                result = _study(replace(search, settings=replace(settings, overwrite=False)), folder)
            result.out, result.written = None, []
            return result
    with claim(Path(settings.out), TUNE_RUN, overwrite=settings.overwrite) as folder:
        return _study(search, folder)


def search_space(recipe: Recipe, fixed_keys: list[str]) -> tuple[Recipe, dict[str, SearchSpace], dict]:
    """(`recipe` with its `tune:` section taken out, the spaces to search, the settings `fixed_keys` fix, {key:
    value}); each space's ends (or choices) checked as settings of the recipe."""
    declared = recipe.tune or {}
    base = recipe.model_copy(update={"tune": None})
    fixed = {key: entry(base.as_dict(), key) for key in fixed_keys}
    spaces = {key: space for key, space in declared.items() if key not in fixed}
    name = base.name
    if not spaces:
        why = "--set fixes every setting its tune: section searches" if declared else "it has no tune: section"
        raise AttentiveError(f"recipe {name!r}: nothing to tune ({why}): give a recipe whose tune: section maps "
                             "settings to search spaces, e.g. tune: {train.lr: {log_uniform: [0.0001, 0.003]}}")
    for key, space in spaces.items():
        for value in space.values:  # the choices, or the two ends
            try:
                with_settings(base, {key: value})
            except AttentiveError as exc:
                raise AttentiveError(f"recipe {name!r}: tune.{key}: {value!r} is no value of the setting ({exc})") \
                    from None
    return base, spaces, fixed


def model_size(folder: Path) -> int:
    """Bytes of a saved model folder's three files."""
    return sum((folder / name).stat().st_size for name in MODEL_FILES)


def own_settings(base: Recipe, spaces: dict[str, SearchSpace]) -> dict:
    """The recipe's own value of each searched setting that its space holds: a new study's first trial, so that the
    search reports the recipe itself when no trial beats it (as Optuna's enqueued trial; a setting whose value lies
    outside its space is sampled)."""
    own = {}
    for key, space in spaces.items():
        kind, values = space.kind, space.values
        value = entry(base.as_dict(), key)
        if kind == "choice":
            if value in values:
                own[key] = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and values[0] <= value <= values[1] \
                and (kind != "int" or isinstance(value, int)):
            own[key] = value
    return own


def _suggest(trial, key: str, space: SearchSpace):
    kind, values = space.kind, space.values
    if kind == "choice":
        return trial.suggest_categorical(key, values)
    if kind == "int":
        return trial.suggest_int(key, values[0], values[1])
    return trial.suggest_float(key, float(values[0]), float(values[1]), log=kind == "log_uniform")


def _setup(data: Dataset, base: Recipe, spaces: dict, fixed: dict, limit: int | None) -> dict:
    from ..training.pipeline import data_fingerprint

    return json.loads(json.dumps({"data": data_fingerprint(data), "dataset": data.name, "recipe": base.as_dict(),
                                  "spaces": written(spaces), "fixed": fixed, "max_size": limit}, default=str))


def written(spaces: dict[str, SearchSpace]) -> dict:
    """The spaces as a recipe writes them ({key: {kind: [values]}}): what the study and trials.json record."""
    return {key: space.model_dump() for key, space in spaces.items()}


@contextlib.contextmanager
def _quiet_optuna():
    import optuna

    before = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield optuna
    finally:
        optuna.logging.set_verbosity(before)


def _study(search: TuneSearch, folder) -> TuneResult:
    """The search in the claimed output `folder`: its study opened (or resumed), its trials run, trials.json and
    tune.png written, the best model loaded."""
    data, base, spaces, fixed, limit = search.data, search.base, search.spaces, search.fixed, search.limit
    out, owner = folder.path, folder.owner
    warn_small_dev(data, "a tuning trial, an epoch or a temperature")  # once the folder is claimed; no trial says it
    if search.settings.overwrite:  # start over: only tune's own files go
        _remove_own(out, owner)
    check_study(out, STUDY)  # before SQLite opens it: what it holds, read only
    record(out, owner, live=SQLITE_FILES)  # SQLite writes these in place from here on
    trials_dir = out / TRIALS
    _remove_trial_folders(trials_dir, owner)  # a killed run's trial
    setup = _setup(data, base, spaces, fixed, limit)
    with _quiet_optuna() as optuna:
        from optuna.pruners import MedianPruner
        from optuna.samplers import TPESampler
        from optuna.trial import TrialState
        from sqlalchemy.exc import DatabaseError

        try:
            storage = optuna.storages.RDBStorage(f"sqlite:///{(out / STUDY).resolve().as_posix()}")
        except DatabaseError as exc:
            raise damaged(out / STUDY, exc) from None
        try:
            study = optuna.create_study(study_name=STUDY_NAME, storage=storage, direction="maximize",
                                        load_if_exists=True)
            earlier = study.user_attrs.get("setup")
            if earlier is None:
                study.set_user_attr("setup", setup)
            elif earlier != setup:
                differ = ", ".join(key for key in setup if earlier.get(key) != setup[key])
                raise AttentiveError(f"{out} holds a study of other settings ({differ} differ): give the same data, "
                                     "recipe, --set and --max-size to resume it, --overwrite to start it over, or "
                                     "another --out")
            for stale in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING)):
                study.tell(stale.number, state=TrialState.FAIL)  # a killed run's: it never finished
            start = len(study.trials)
            if start == 0:  # a new study tries the recipe's own settings first (where its spaces hold them)
                study.enqueue_trial(own_settings(base, spaces))
            study.sampler = TPESampler(seed=search.seed + start)
            study.pruner = MedianPruner(n_startup_trials=3, n_warmup_steps=2)
            interrupted = _search(study, search, trials_dir, out)
            rows = trial_table(study)
            importances = setting_importances(study, search.seed)
            best = study.user_attrs.get("best")
        except DatabaseError as exc:
            raise damaged(out / STUDY, exc) from None
        finally:
            with contextlib.suppress(Exception):
                storage.remove_session()
                storage.engine.dispose()
    with contextlib.suppress(OSError):
        trials_dir.rmdir()
    tied = tied_trials(rows, best["trial"] if best is not None else None, len(data.splits.get("dev") or ()))
    table = {"study": STUDY_NAME, "dataset": data.name, "recipe": base.name, "spaces": written(spaces),
             "fixed": fixed, "max_size": limit, "best": best, "importances": importances, "trials": rows,
             "tied": tied}
    folder.commit({TABLE: (json.dumps(table, indent=2, ensure_ascii=False, default=str) + "\n").encode("utf-8"),
                   PLOT: tune_plot(rows, importances, data.name, base.name)})
    if best is None:
        raise AttentiveError(_nothing_completed(rows, limit, out))
    from ..api import load

    return TuneResult(best["trial"], best["params"], best["dev_accuracy"], rows, importances, load(out / BEST),
                      out, [out / STUDY, out / BEST, out / TABLE, out / PLOT], interrupted, fixed, tied)


def _search(study, search: TuneSearch, trials_dir: Path, out: Path) -> bool:
    """Run the trials of `search` in `study` until the budget is spent (or `max_trials` ran, or the study is full),
    each in its folder under `trials_dir`, the best copied to `out`/best; True when Ctrl-C stopped the search."""
    import optuna
    from optuna.trial import TrialState

    from ..training.pipeline import train as train_dataset

    seconds, limit, max_trials, on_trial = search.seconds, search.limit, search.max_trials, search.on_trial
    started, ran = time.monotonic(), 0
    while time.monotonic() - started < seconds and (max_trials is None or ran < max_trials):
        if len(study.trials) >= MAX_TRIALS:
            break
        trial = study.ask()
        ran += 1
        params = {key: _suggest(trial, key, space) for key, space in search.spaces.items()}
        trial_folder = trials_dir / str(trial.number)
        began = time.perf_counter()

        def on_epoch(record, trial=trial, trial_folder=trial_folder):
            if record["epoch"] == 1 and "size" not in trial.user_attrs:  # the best epoch so far is saved: measure it
                size = model_size(trial_folder)
                trial.set_user_attr("size", size)
                if limit is not None and size > limit:
                    raise TooLarge(size)
            trial.report(record["dev_accuracy"], record["epoch"])
            if trial.should_prune():
                raise optuna.TrialPruned()

        state, value, note = TrialState.FAIL, None, None
        try:
            with quiet_small_dev():  # said once, when the search started
                settings = replace(search.settings, out=trial_folder, overwrite=True,
                                   show_progress=search.settings.progress(False))
                model = train_dataset(search.data, with_settings(search.base, params), settings, on_epoch=on_epoch,
                                      described={"tuning": {"trial": trial.number, "params": params}})
            size = model_size(trial_folder)
            trial.set_user_attr("size", size)
            if limit is not None and size > limit:
                raise TooLarge(size)
            value = float(model.config["training"]["dev_accuracy"])
            state = TrialState.COMPLETE
            best = study.user_attrs.get("best")
            if best is None or value > best["dev_accuracy"]:
                _copy_best(trial_folder, out / BEST)
                study.set_user_attr("best", {"trial": trial.number, "params": params, "dev_accuracy": value,
                                             "size": size})
        except optuna.TrialPruned:
            state, note = TrialState.PRUNED, "pruned: dev accuracy below the median of earlier trials"
        except TooLarge as exc:
            state, note = TrialState.PRUNED, f"too large: {human_size(exc.args[0])} > {human_size(limit)}"
        except KeyboardInterrupt:
            _finish(study, trial, TrialState.FAIL, None, "stopped by Ctrl-C", began, trial_folder, on_trial)
            return True
        except Exception as exc:  # an error or out of memory: recorded, and the search goes on
            note = f"failed: {type(exc).__name__}: {str(exc)[:300]}"
        _finish(study, trial, state, value, note, began, trial_folder, on_trial)
    return False


def _finish(study, trial, state, value, note, began, trial_folder, on_trial) -> None:
    trial.set_user_attr("seconds", round(time.perf_counter() - began, 2))
    if note is not None:
        trial.set_user_attr("note", note)
    study.tell(trial, value if state.name == "COMPLETE" else None, state=state)
    _remove_trial(trial_folder)
    if on_trial is not None:
        on_trial(trial_row(study.get_trials(deepcopy=False)[trial.number]))


def _copy_best(trial_folder: Path, best: Path) -> None:
    """The trial's model folder (and its metrics log) as OUT/best, written as one with its manifest."""
    from ..util.atomic import atomic_write_files

    files = {name: (trial_folder / name).read_bytes() for name in TRAINING_RUN.files if (trial_folder / name).is_file()}
    stale = TRAINING_RUN.files - set(files)  # an older best's file this one lacks
    atomic_write_files(best, with_manifest(best, files, current_owner(), dropped=stale))
    for name in stale:
        with contextlib.suppress(FileNotFoundError):
            (best / name).unlink()


def _remove_trial(folder: Path, owner: Owner | None = None) -> None:
    """What this study's training wrote in a trial folder (its checkpoint too), then the folder if that leaves it
    empty; anything else stays."""
    remove_owned(folder, owner or current_owner(), skip=is_hidden)


def _remove_trial_folders(trials_dir: Path, owner: Owner) -> None:
    if trials_dir.is_dir() and not trials_dir.is_symlink():
        for trial in trials_dir.iterdir():
            if trial.name in TUNE_RUN.folders[TRIALS] and trial.is_dir() and not trial.is_symlink():
                _remove_trial(trial, owner)


def _remove_own(out: Path, owner: Owner) -> None:
    """An earlier study's files (--overwrite: start over): the study under tune's own names, and the best model's
    files this study wrote."""
    for name in SQLITE_FILES:
        if (out / name).is_file() and not (out / name).is_symlink():
            (out / name).unlink()
    remove_owned(out, owner, names=(TABLE, PLOT))
    remove_owned(out / BEST, owner, skip=is_hidden)


def _nothing_completed(rows: list[dict], limit: int | None, out: Path) -> str:
    large = [row for row in rows if (row["note"] or "").startswith("too large")]
    if large and len(large) == len(rows):
        smallest = min(row["size"] for row in large if row["size"] is not None)
        return (f"no trial fit the size: every model folder was larger than {human_size(limit)} (the smallest "
                f"{human_size(smallest)}): give a larger --max-size, or a smaller recipe (--recipe default, fewer "
                f"wide.buckets); the trials are in {out / TABLE}")
    failed = [row for row in rows if row["state"] == "fail" and row["note"]]
    if failed:
        return f"no trial completed ({len(failed)} failed; the first: {failed[0]['note']}): see {out / TABLE}"
    return f"no trial completed within the budget: give a larger --budget (the trials are in {out / TABLE})"


__all__ = ["TUNE_RUN", "TuneResult", "search_space", "tune"]
