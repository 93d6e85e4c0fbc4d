"""Helpers shared by every benchmark script: machine description, git commit, the result-file writer, and the atomic
file writers it and `render.py` (BENCHMARKS.md) use (`write_json`, `write_text`).

Every benchmark run writes one JSON file, ``benchmarks/results/<name>.json``, and ``python -m benchmarks.render``
turns the folder into BENCHMARKS.md. Nobody types a number into BENCHMARKS.md by hand.

Result schema
-------------
Fields added by :func:`write_result` (the same for every script):

``name``          the file's stem, e.g. ``"tfidf_lr-imdb-s0"``
``command``       the exact command line that produced the file (``python -m benchmarks.harness.baselines --dataset
imdb ...``)
``git_commit``    short commit hash, ``-dirty`` appended when tracked or untracked source files differ from it
                  (result files and BENCHMARKS.md are not counted); ``"unknown"`` outside a git checkout / before
                  the first commit
``machine``       :func:`machine_info`: platform, python, cpu_model, cpu_cores, torch_version, torch_threads,
                  cuda_device (``None`` on a CPU-only machine)
``date``          UTC time the file was written, ISO 8601

Fields of the payload (given by the script):

``kind``          ``"baseline"`` (TF-IDF+LR, fastText: ``benchmarks/harness/baselines.py``) or ``"model"`` (a neural
recipe)
``model``         baseline name (``"tfidf_lr"``, ``"fasttext"``); for ``kind: "model"`` use ``recipe`` instead
``recipe``        recipe name of a neural model (``"lama"``, ``"lama_ctx"``, ``"san"`` ...)
``variant``       optional: distinguishes runs of one model/recipe that must not be averaged together
                  (e.g. ``"gpu"``, ``"glove"``); runs are grouped by (kind, model or recipe, dataset, variant),
                  with the variants of ``SAME_SETTINGS`` read as the one they equal
``dataset``       registry name (``"imdb"``, ``"r8"``, ``"sst2"``, ``"news"`` ...)
``seed``          the model seed (runs of one group differ only in it)
``wall_time_s``   seconds for the whole run (training, selection and evaluation)
``dev``, ``test`` :func:`attentive.api.compute_metrics` dicts (``accuracy``, ``macro_f1``, ``per_class``,
                  ``confusion``, ``n``, ``labels``)
``selected_on``   what chose hyper-parameters / the checkpoint (always the dev split, never test)
``hyperparameters`` the chosen setting

Optional fields:

``train_s``       seconds of the ``attentive.train`` call alone (neural runs): ``wall_time_s`` less the evaluation of
                  dev and test (what the harness measures after those, the linear part alone refitted and
                  ``--analyze``, is in neither)
``epoch_times_s`` list of seconds per training epoch (neural runs); BENCHMARKS.md shows their mean
``best_epoch``    epoch whose checkpoint was kept (neural runs)
``dev_curve``     dev accuracy after each epoch (neural runs from commit 7ceed1b on)
``params``        number of trainable parameters (neural runs)
``device``        ``"cpu"`` or ``"cuda"``: where the run trained (neural runs); when absent, a run counts as a CPU
                  run if ``machine.cuda_device`` is ``None``
``paper_reference`` the number the paper reports for this model/dataset (shown in a "paper" column)
``grid``          dev scores of every hyper-parameter setting tried (baselines)
``recipe_as_run`` the name the recipe had when the run was made, where it has another today: the biGRU default's runs
                  (``--recipe default`` until commit a798496, 2026-11-27) were renamed ``opinion-*.json`` with
                  ``recipe: "opinion"``; their ``command`` is as run. Runs of ``student`` (``default``'s name until
                  then; the package no longer knows the name) keep their files and are read as ``default``
"""
from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"

# The datasets of the defaults table (benchmarks/product/accuracy/reproduce_defaults.sh), in its row order.
DEFAULTS_DATASETS = ("imdb", "r8", "news", "newsgroups20", "banking77", "sst2", "sst5", "opener", "sentube_auto",
                     "sentube_tablets", "semeval2013", "tweeteval_emotion", "tweeteval_irony", "tweeteval_offensive",
                     "clinc150")
# The defaults table's comparison with `opinion`: the short opinion sets (the six of Barnes et al. and SST, with the
# three TweetEval tasks) and the topic and intent sets; IMDB, long reviews, is in neither.
SHORT_OPINION = ("sst2", "sst5", "opener", "sentube_auto", "sentube_tablets", "semeval2013", "tweeteval_emotion",
                 "tweeteval_irony", "tweeteval_offensive")
TOPIC_INTENT = ("r8", "news", "newsgroups20", "banking77", "clinc150")
# Document sets: their int8 size bound is 10 MB, the sentence and intent sets' 5 MB.
DOCUMENT_SETS = ("imdb", "news", "r8", "newsgroups20")

# Runs made with the same settings under another variant name: (recipe, dataset, variant as run) -> the variant they
# count as, so that their seeds and later ones form one group (BENCHMARKS.md's machine column says where each ran).
# The `gpu*` runs below trained on a GPU lent to an early session with exactly the settings
# benchmarks/papers/lama/reproduce_table3.sh gives the dataset: IMDB `L800` (word2vec with the unlabelled reviews, 800
# tokens),
# R8 `L1000` (1,000 tokens, up to 20 epochs, patience 5); LAMA's 10 heads and score scale 5 are the recipes' own since.
SAME_SETTINGS = {**{(recipe, "imdb", "gpu"): "L800" for recipe in ("bigru", "cnn", "avg", "san")},
                 **{(recipe, "imdb", "gpu-m10-scale5"): "L800" for recipe in ("lama", "lama_ctx")},
                 ("lama_ctx", "r8", "gpu-L1000-scale5"): "L1000",
                 # `--recipe student --variant alone`: the default's settings since commit a798496
                 **{("default", dataset, "alone"): "defaults" for dataset in DEFAULTS_DATASETS}}


def variant_names(recipe: str, dataset: str, variant: str | None) -> list[str | None]:
    """`variant` and the names runs with its settings were made under (SAME_SETTINGS)."""
    return [variant] + [as_run for (r, d, as_run), same in SAME_SETTINGS.items()
                        if (r, d, same) == (recipe, dataset, variant)]


# Paths whose changes do not make a run "dirty": the outputs of the benchmarks themselves.
_NOT_SOURCE = (":(exclude)benchmarks/results", ":(exclude)BENCHMARKS.md", ":(exclude)benchmarks/APPENDIX.md")


def cpu_model() -> str | None:
    """The CPU model name from /proc/cpuinfo (Linux), else platform.processor(), else None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _cpu_cores() -> int | None:
    """Cores this process may use (affinity-aware on Linux)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def _torch_info() -> dict:
    """torch version, intra-op threads and CUDA device name; all None when torch cannot be imported."""
    try:
        import torch
    except Exception:  # noqa: BLE001 - torch is optional for the baselines
        return {"torch_version": None, "torch_threads": None, "cuda_device": None}
    cuda = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {"torch_version": torch.__version__, "torch_threads": torch.get_num_threads(), "cuda_device": cuda}


def machine_info() -> dict:
    """What the run ran on: platform, python, CPU model and cores, torch version/threads, CUDA device if any."""
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_model": cpu_model(),
        "cpu_cores": _cpu_cores(),
        **_torch_info(),
    }


def _git(*args: str) -> str | None:
    """Output of a read-only git command in the repo root, or None if git fails."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def git_commit() -> str:
    """Short hash of HEAD, with ``-dirty`` when source files (tracked or untracked) differ from it.

    A copy of the tree without its .git folder (a run on a lent GPU machine) names it in $BENCHMARK_GIT_COMMIT.
    """
    if os.environ.get("BENCHMARK_GIT_COMMIT"):
        return os.environ["BENCHMARK_GIT_COMMIT"]
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    status = _git("status", "--porcelain", "--", ".", *_NOT_SOURCE)
    if status:
        commit += "-dirty"
    return commit


def command_line() -> str:
    """The command that started this process, as a user would retype it (``python -m pkg.mod args``)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        module = spec.name.removesuffix(".__main__")
        return shlex.join(["python", "-m", module, *sys.argv[1:]])
    return shlex.join(["python", *sys.argv])


def utc_now() -> str:
    """Current UTC time, ISO 8601, to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


_COMMIT_AT_START: str | None = None


def commit_at_start() -> str:
    """The commit the running process started from (read once, at the first call: the scripts call it first)."""
    global _COMMIT_AT_START
    if _COMMIT_AT_START is None:
        _COMMIT_AT_START = git_commit()
    return _COMMIT_AT_START


def write_result(name: str, payload: dict, results_dir: str | Path | None = None) -> Path:
    """Write ``<results_dir>/<name>.json`` atomically: the standard fields (see module doc) plus `payload`.

    Returns the path written. `results_dir` defaults to ``benchmarks/results`` in the repository.
    """
    record = {
        "name": name,
        "command": command_line(),
        "git_commit": commit_at_start(),
        "machine": machine_info(),
        "date": utc_now(),
        **payload,
    }
    path = Path(results_dir or RESULTS_DIR) / f"{name}.json"
    write_json(path, record)
    return path


def write_text(path: str | Path, text: str) -> None:
    """Write `text` (UTF-8) to `path` as one: into a temporary file beside it, then renamed over it, so that a reader
    (a render running beside a benchmark) sees the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_json(path: str | Path, obj) -> None:
    """Write `obj` to `path` as indented UTF-8 JSON, atomically (`write_text`). NaN and infinities, which JSON has no
    words for, are a ValueError naming the file, and nothing is written."""
    try:
        text = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    write_text(path, text + "\n")


def made_result(name: str, seed: int, accuracy: float, **extra) -> dict:
    """A hand-made result of the schema above, for the benchmarks' own tests: a neural run on IMDB with `accuracy` on
    test; `extra` fields added or replaced."""
    metrics = {"accuracy": accuracy, "macro_f1": accuracy - 0.01, "n": 100}
    return {
        "name": name, "command": f"python -m benchmarks.x --seed {seed}", "git_commit": "abc1234",
        "machine": {"cpu_model": "AMD EPYC 7B13 64-Core Processor", "cpu_cores": 2, "cuda_device": None},
        "date": "2025-01-01T00:00:00+00:00", "kind": "model", "recipe": "lama_ctx", "dataset": "imdb",
        "seed": seed, "wall_time_s": 100.0, "dev": {"accuracy": 0.9}, "test": metrics,
        "epoch_times_s": [100.0, 120.0], **extra,
    }


def write_made(directory, result: dict) -> None:
    """`result` as a loose result file in `directory`."""
    (directory / f"{result['name']}.json").write_text(json.dumps(result), encoding="utf-8")
