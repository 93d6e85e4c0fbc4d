"""The candidate grids (benchmarks/grids/*.yaml) and their runner, benchmarks/sweep.py: every grid loads, every
candidate is a recipe attentive accepts, no two runs share a result file, and the runner gives the job lines the bash
arrays of benchmarks/sweep_*.sh gave before the grids became data (issue 32)."""
from __future__ import annotations

import shlex

import pytest

import attentive
from attentive import AttentiveError
from benchmarks.sweep import GRIDS, job_lines, load_grid, main

GRID_NAMES = sorted(path.stem for path in GRIDS.glob("*.yaml"))

# Job lines the bash scripts printed (seed 0, the grid's first dataset), one per way a candidate is written: no
# overrides, two parents, a long chain whose last step sets a key again, a recipe of its own.
BASH_LINES = {
    "defaults": [
        "lama_ctx sst2 0 --variant base --results-dir benchmarks/results/sweeps",
        "lama_ctx sst2 0 --variant dist-frozen-wide --results-dir benchmarks/results/sweeps --set embedder.vectors="
        "distilled --set embedder.scale=0.15 --set tokenizer.min_frequency=2 --set tokenizer.keep_known=true --set "
        "tokenizer.pieces=true --set embedder.trainable=false --set wide.type=ngrams --set train.wide_lr=0.03",
        "lama_ctx sst2 0 --variant dist-glove-wide-edrop02-b1m-lr5e-4-wlr0015 --results-dir benchmarks/results/sweeps "
        "--set embedder.vectors=distilled --set embedder.scale=0.15 --set tokenizer.min_frequency=2 --set "
        "tokenizer.keep_known=true --set tokenizer.pieces=true --set embedder.vectors=distilled+glove --set "
        "wide.type=ngrams --set embedder.dropout=0.2 --set wide.buckets=1048576 --set train.lr=0.0005 --set "
        "train.wide_lr=0.015",
        "lama_ctx sst2 0 --variant dist-glove-wide-w2v --results-dir benchmarks/results/sweeps --set embedder.vectors="
        "distilled --set embedder.scale=0.15 --set tokenizer.min_frequency=2 --set tokenizer.keep_known=true --set "
        "tokenizer.pieces=true --set embedder.vectors=distilled+glove+word2vec --set wide.type=ngrams --set "
        "train.wide_lr=0.03"],
    "aspect": [
        "san_aspect semeval14_category 0 --variant san_aspect-dist --results-dir benchmarks/results/sweeps --set "
        "embedder.vectors=distilled+glove --set embedder.scale=0.15 --set tokenizer.keep_known=true --set "
        "tokenizer.pieces=true",
        "default_aspect semeval14_category 0 --variant default_aspect-ema1 --results-dir benchmarks/results/sweeps "
        "--set train.ema_epochs=1"],
    "pair": [
        "default_pair sick 0 --variant gated-ema1-off05 --results-dir benchmarks/results/sweeps --set head.type="
        "gated_pair --set head.factors=50 --set head.normalise=true --set head.same_start=true --set head.offset=1 "
        "--set pooler.heads=30 --set head.dropout=0 --set encoder.hidden=100 --set train.ema_epochs=1 --set "
        "head.offset=0.5",
        "minilm_frozen sick 0 --variant minilm-frozen-matching --results-dir benchmarks/results/sweeps --set "
        "head.type=matching_pair --set head.hidden=300 --set head.dropout=0.3",
        "default_pair sick 0 --variant pair-h150-ema1-dist --results-dir benchmarks/results/sweeps --set "
        "encoder.hidden=150 --set train.ema_epochs=1 --set embedder.vectors=distilled+glove --set embedder.scale=0.15 "
        "--set tokenizer.min_frequency=2 --set tokenizer.keep_known=true --set tokenizer.pieces=true"],
    "length": ["default imdb 0 --variant whole-texts --results-dir benchmarks/results/sweeps --set "
               "tokenizer.max_length=null"],
}
# Every candidate of the bash scripts, in their order (result files are named after them), and their seeds
BASH_CANDIDATES = {
    "defaults": ("base dist dist-wide dist-frozen glove-f1 dist-glove-wide dist-wide-lr01 dist-wide-m5-s1 dist-m5-s1 "
                 "dist-raw dist-glove dist-frozen-wide dist-glove-wide-w2v dist-glove-wide-edrop02 "
                 "dist-glove-wide-edrop02-b1m dist-glove-wide-edrop02-m5 dist-glove-wide-edrop02-b1m-lr5e-4 "
                 "dist-glove-wide-b1m-lr5e-4 dist-glove-wide-edrop02-lr5e-4 dist-glove-wide-edrop02-b1m-lr5e-4-ema05 "
                 "dist-glove-wide-edrop02-b1m-lr5e-4-ema1 dist-glove-wide-edrop02-b1m-lr5e-4-wlr0015 "
                 "dist-glove-wide-edrop02-b1m-lr5e-4-wlr006 dist-glove-wide-edrop02-b1m-lr5e-4-h150 "
                 "dist-glove-wide-edrop02-b1m-lr5e-4-hdrop03", (0,)),
    "aspect": ("lama_aspect lama_aspect-dist san_aspect-dist atae_lstm-dist lama_aspect-edrop02 lama_aspect-m5 "
               "lama_aspect-edrop02-m5 lama_aspect-edrop03 lama_aspect-edrop02-ae lama_aspect-edrop02-h150 "
               "default_aspect default_aspect-ema1", (0, 1)),
    "pair": ("pair-base pair-edrop02 pair-m5 pair-hdrop05 pair-uvd pair-h150 pair-lr5e-4 pair-hdrop01 pair-bs32 "
             "pair-h150-ema1 pair-h150-ema05 pair-h150-ema2 pair-h150-ema1-bs32 gated-ema1 gated-ema1-e20 "
             "gated-ema1-f100 gated-ema1-f150 gated-ema1-off05 gated-ema1-bs32 pair-h150-ema1-s2 pair-h150-ema1-s10 "
             "pair-h150-ema1-lr2e-3 pair-h150-ema1-e15 pair-h200-ema1 minilm-frozen-matching pair-h150-ema1-dist",
             (0, 1, 2)),
    "length": ("whole-texts", (0, 1)),
}


def effective(line: str) -> tuple[list[str], dict[str, str]]:
    """A job line's words before its overrides, and the overrides as they act: the last value of each key."""
    words = shlex.split(line)
    start = words.index("--set") if "--set" in words else len(words)
    assert words[start::2] == ["--set"] * len(words[start + 1::2])
    return words[:start], dict(override.split("=", 1) for override in words[start + 1::2])


@pytest.fixture(autouse=True)
def _no_sweep_environment(monkeypatch):
    for name in ("SEEDS", "HELD"):  # the runner's defaults for --seeds and --held
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("name", GRID_NAMES)
def test_every_candidate_of_every_grid_is_a_recipe_attentive_loads(name):
    grid = load_grid(name)
    assert grid.datasets and grid.seeds and grid.candidates
    for candidate in grid.candidates.values():
        attentive.load_recipe(candidate.recipe, list(candidate.overrides))  # a misspelt or retired setting fails


def test_no_two_runs_of_the_grids_share_a_result_file():
    runs = [tuple(effective(line)[0][:5]) for name in GRID_NAMES for line in job_lines(load_grid(name))]
    assert len(runs) == len(set(runs))  # recipe, dataset, seed and --variant name the result file


@pytest.mark.parametrize("name", sorted(BASH_CANDIDATES))
def test_the_grids_keep_the_bash_scripts_candidates_and_their_job_lines(name, capsys):
    grid = load_grid(name)
    names, seeds = BASH_CANDIDATES[name]
    assert [n for n in grid.candidates if n in names.split()] == names.split() and grid.seeds == seeds
    for line in BASH_LINES[name]:
        recipe, dataset, _, _, candidate = shlex.split(line)[:5]
        assert main([name, "--candidates", candidate, "--datasets", dataset, "--seeds", "0", "--dry-run"]) == 0
        printed = capsys.readouterr().out.splitlines()
        assert len(printed) == 1 and effective(printed[0]) == effective(line)


def test_the_runner_holds_dev_back_reads_seeds_and_pipes_its_lines_to_jobs_sh(monkeypatch, capfd):
    grid = load_grid("pair")
    held = job_lines(grid, ["pair-h150"], seeds=[3], held=0.5)
    assert held == ["default_pair sick 3 --variant pair-h150 --results-dir benchmarks/results/sweeps-held "
                    "--held-out-dev 0.5 --set encoder.hidden=150"]
    monkeypatch.setenv("SEEDS", "4 5")
    monkeypatch.setenv("PY", "echo")  # jobs.sh runs `$PY -m benchmarks.run ...`: print the commands instead
    assert main(["pair", "--candidates", "pair-h150", "--", "--device", "cpu"]) == 0
    assert capfd.readouterr().out.splitlines() == [
        f"-m benchmarks.run --recipe default_pair --dataset sick --seeds {seed} --variant pair-h150 --results-dir "
        "benchmarks/results/sweeps --set encoder.hidden=150 --skip-existing --no-progress --device cpu"
        for seed in (4, 5)]


def test_a_candidate_takes_its_ancestors_settings_once_and_its_own_last(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text("recipe: lama\ndatasets: [sst2]\nseeds: [0]\ncandidates:\n"
                    "  a: {set: {pooler.heads: 5, embedder.vectors: glove}}\n"
                    "  b: {extends: a, set: {embedder.vectors: distilled}}\n"
                    "  c: {extends: a, set: {train.lr: 0.001}}\n"
                    "  d: {recipe: lama_ctx, extends: [b, c], set: {embedder.scale: null, tokenizer.pieces: true}}\n")
    d = load_grid(str(path)).candidates["d"]
    assert d.recipe == "lama_ctx"  # its own; `extends` passes settings only
    assert d.overrides == ("pooler.heads=5", "embedder.vectors=distilled", "train.lr=0.001", "embedder.scale=null",
                           "tokenizer.pieces=true")  # a's settings once: c does not bring glove back


@pytest.mark.parametrize("candidates, problem", [
    ("  a: {}\n  a: {set: {pooler.heads: 5}}\n", "line 6: 'a' written twice"),
    ("  a: {set: {pooler.heads: 5, pooler.heads: 6}}\n", "'pooler.heads' written twice"),
    ("  a: {extends: b}\n  b: {extends: a}\n", "circle: a -> b -> a"),
    ("  a: {extends: z}\n", "'a' extends 'z', which is no candidate here"),
    ("  a: {sets: {pooler.heads: 5}}\n", "candidate 'a' takes only extends, recipe, set"),
    ("  a: {set: {head.features: [u, v]}}\n", "head.features takes one value, not a list or mapping"),
])
def test_a_grid_that_says_something_twice_or_unclear_is_refused_naming_the_problem(tmp_path, candidates, problem):
    path = tmp_path / "grid.yaml"
    path.write_text(f"recipe: lama\ndatasets: [sst2]\nseeds: [0]\ncandidates:\n{candidates}")
    with pytest.raises(AttentiveError, match="^" + str(path)) as error:
        load_grid(str(path))
    assert problem in str(error.value) and "\n" not in str(error.value)


def test_the_runner_refuses_an_unknown_candidate_naming_the_grid(capsys):
    assert main(["aspect", "--candidates", "lama_aspect-nope", "--dry-run"]) == 2
    assert "aspect.yaml: no candidate 'lama_aspect-nope'" in capsys.readouterr().err
