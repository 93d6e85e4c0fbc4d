"""Every command the README and docs/ show runs, on the bundled SST-2 sample.

The convention: a fenced block whose line before is the HTML comment ``<!-- run -->`` is run (```bash with bash,
```python with this Python); a command block that the suite cannot run quickly (the benchmark datasets under
../shared/data, torchrun with several processes, a Ray cluster, `make` itself) says why on the line before its
fence, as ``<!-- not run: REASON -->``. Every ```bash and ```python block carries one of the two marks.

The tagged blocks of one file run in order in one fresh working directory, so a block may use what an earlier one of
the same file wrote. The directory holds what the docs say their examples start from: `train.csv`, `dev.csv` and
`test.csv` (a `text` and a `label` column: 400 / 100 / 100 sentences of the bundled `sst2_sample`), `reviews.csv`
(the same training rows under the columns `review` and `stars`), `reviews.jsonl` (an `id` and a `text` a line),
`tags.jsonl` (multi-label: a list of labels a line), `aspects.csv` (`text`, `aspect`, `label`), `pairs.csv`
(`text`, `text_pair`, `label`) and `runs/mine`, the default model trained on train.csv (one epoch, trained once for
the session). A bash block runs with `set -euo pipefail`, `attentive` being the script beside this Python, through
a wrapper that cuts training short: `train`, `distill` and `cv` get `--set train.epochs=1` appended and
`tune` `--set train.epochs=1 --trials 2`, so that a block runs in seconds; everything else runs as written. Each
block must exit 0; whatever it leaves running (a server put in the background) is stopped when it ends.

The wrapper runs each `attentive` command in a fork of one process that has already imported the CLI, torch and
scikit-learn (tests/cli_zygote.py: the installed console script itself, with the command's arguments, working
directory, environment, standard streams, signals and exit status), rather than in a new interpreter that spends
seconds importing them again; ATTENTIVE_DOCS_FRESH=1 runs every command in a new interpreter instead. The ```python
blocks always run in a new interpreter: what they import is part of what the page shows.
"""
from __future__ import annotations

import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUN, NOT_RUN = "<!-- run -->", re.compile(r"<!-- not run: \S.* -->")
FENCE = re.compile(r"^```(\w*)\s*$")
WRAPPER = """#!/usr/bin/env bash
# The docs' training commands cut to one epoch (tune to two trials); everything else as written. Each runs in a fork
# of the session's CLI process (tests/cli_zygote.py), or as its own process with ATTENTIVE_DOCS_FRESH=1.
if [ -n "${ATTENTIVE_DOCS_FRESH:-}" ]; then run=("%(real)s"); else run=("%(python)s" -S "%(client)s" "%(socket)s"); fi
case "${1:-}" in
    train|distill|cv) exec "${run[@]}" "$@" --set train.epochs=1 ;;
    tune) exec "${run[@]}" "$@" --set train.epochs=1 --trials 2 ;;
    *) exec "${run[@]}" "$@" ;;
esac
"""
ZYGOTE = Path(__file__).with_name("cli_zygote.py")


def blocks(page: Path) -> list[tuple[int, str, str, str]]:
    """Every fenced block of `page`: (line number of its fence, its language, the mark on the line before, its
    text)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if opened:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            mark = lines[i - 1].strip() if i else ""
            found.append((i + 1, opened.group(1), mark, "\n".join(lines[i + 1:end]) + "\n"))
            i = end
        i += 1
    return found


def runnable(page: Path) -> list[tuple[int, str, str]]:
    """The tagged blocks of `page`: (fence line, language, text)."""
    return [(line, language, text) for line, language, mark, text in blocks(page) if mark == RUN]


def test_every_command_block_is_marked_run_or_says_why_not():
    unmarked = [f"{page.relative_to(REPO)}:{line}" for page in PAGES for line, language, mark, _ in blocks(page)
                if language in ("bash", "python") and mark != RUN and not NOT_RUN.fullmatch(mark)]
    assert unmarked == []
    assert sum(len(runnable(page)) for page in PAGES) >= 20  # the docs are mostly run, not shown


def test_the_readme_and_docs_link_only_to_files_that_exist():
    broken = [f"{page.relative_to(REPO)}: {target}" for page in PAGES
              for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8"))
              if not re.match(r"[a-z]+://|#", target) and not (page.parent / target.split("#")[0]).exists()]
    assert broken == []


def test_the_readme_is_short_and_points_to_every_page():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 12_000
    for page in [*PAGES[1:], REPO / "DESIGN.md", REPO / "BENCHMARKS.md"]:
        assert f"]({page.relative_to(REPO).as_posix()})" in readme, page.name
    assert "make demo" in readme and "make test" in readme


def _write_csv(path: Path, header: list[str], rows) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture(scope="session")
def start(tmp_path_factory) -> Path:
    """The folder every page's examples start from (see the module docstring), the model trained once."""
    import attentive
    from attentive.data.registry import load_dataset

    folder = tmp_path_factory.mktemp("docs-start")
    sample = load_dataset("sst2_sample").splits
    rows = {"train": sample["train"][:400], "dev": sample["dev"][:100], "test": sample["test"][:100]}
    for split, examples in rows.items():
        _write_csv(folder / f"{split}.csv", ["text", "label"], [(ex.text, ex.label) for ex in examples])
    _write_csv(folder / "reviews.csv", ["review", "stars"], [(ex.text, ex.label) for ex in rows["train"]])
    (folder / "reviews.jsonl").write_text("".join(json.dumps({"id": i, "text": ex.text}) + "\n"
                                                  for i, ex in enumerate(sample["test"][200:220])), encoding="utf-8")
    draw = random.Random(13)
    examples = rows["train"][:300]
    tags = [[ex.label] + (["long"] if len(ex.text.split()) > 20 else []) for ex in examples]
    (folder / "tags.jsonl").write_text("".join(json.dumps({"text": ex.text, "label": labels}) + "\n"
                                               for ex, labels in zip(examples, tags)), encoding="utf-8")
    _write_csv(folder / "aspects.csv", ["text", "aspect", "label"],
               [(ex.text, draw.choice(["food", "service"]), ex.label) for ex in examples])
    _write_csv(folder / "pairs.csv", ["text", "text_pair", "label"],
               [(a.text, b.text, "same" if a.label == b.label else "different")
                for a, b in zip(examples, examples[150:] + examples[:150])])
    attentive.train(train=folder / "train.csv", dev=folder / "dev.csv", test=folder / "test.csv",
                    out=folder / "runs" / "mine", epochs=1, show_progress=False)
    return folder


@pytest.fixture(scope="session")
def wrapped(tmp_path_factory):
    """A folder holding the `attentive` wrapper of the module docstring, to put first on PATH; the CLI process whose
    forks run the commands lives as long as the session."""
    folder = tmp_path_factory.mktemp("docs-bin")
    real, where = Path(sys.executable).parent / "attentive", folder / "cli.sock"
    assert len(str(where)) < 100  # a Unix socket's path is short
    (folder / "attentive").write_text(WRAPPER % {"real": real, "python": sys.executable, "client": ZYGOTE,
                                                 "socket": where}, encoding="utf-8")
    (folder / "attentive").chmod(0o755)
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}", "ATTENTIVE_THREADS": "1"}
    log = folder / "cli.log"
    with open(log, "wb") as errors:
        server = subprocess.Popen([sys.executable, str(ZYGOTE), "serve", str(where), str(real)], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors)
    try:
        assert server.stdout.readline() == b"ready\n", log.read_text(errors="replace")[-4000:]
        yield folder
    finally:
        server.kill()
        server.wait()


def _run_block(language: str, text: str, workdir: Path, env: dict, where: str) -> None:
    script = workdir.parent / ("block.sh" if language == "bash" else "block.py")
    script.write_text(("set -euo pipefail\n" if language == "bash" else "") + text, encoding="utf-8")
    command = ["bash", str(script)] if language == "bash" else [sys.executable, str(script)]
    log = workdir.parent / "block.log"
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(command, cwd=workdir, env=env, stdout=output, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            process.wait(timeout=600)
        finally:
            try:
                os.killpg(process.pid, signal.SIGTERM)  # whatever the block left running (a server)
            except ProcessLookupError:
                pass
    printed = log.read_text(encoding="utf-8", errors="replace")
    assert process.returncode == 0, f"{where} exited {process.returncode}:\n{text}\n--- output ---\n{printed[-4000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("doc", [page for page in PAGES if runnable(page)], ids=lambda page: page.name)
def test_every_tagged_command_of_the_page_runs(doc, start, wrapped, tmp_path):
    workdir = tmp_path / "work"
    shutil.copytree(start, workdir)
    env = {**os.environ, "PATH": f"{wrapped}{os.pathsep}{os.environ.get('PATH', '')}", "ATTENTIVE_THREADS": "1"}
    for line, language, text in runnable(doc):
        _run_block(language, text, workdir, env, f"{doc.relative_to(REPO)}:{line}")
