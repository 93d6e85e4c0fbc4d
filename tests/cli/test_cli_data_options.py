"""The CLI's data options are declared once (attentive/cli/options.py; issue 44 item 2): every command that takes
`--text-column`, `--dataset`, `--data-dir`, ... takes the same option (its flag, default and checks; a command may
only say what it means by it in its own words), no other module of attentive/cli declares one, and one function
turns them into the `DataSource`, with the one message when the data is given in none or several ways."""
import ast
import inspect
from pathlib import Path

import pytest
import typer

import attentive.cli
from attentive.cli import app, options
from attentive.data.source import CLI
from attentive.errors import AttentiveError

SHARED = {name: value for name, value in vars(options).items() if isinstance(value, typer.models.OptionInfo)}
FLAGS = {option.param_decls[0] for option in SHARED.values()}
DATA_FLAGS = {option.param_decls[0] for option in options.DATA_OPTIONS.values()} | {"--file", "--split"}
CLI_FOLDER = Path(attentive.cli.__file__).parent


def the_same_but_help(one, other) -> bool:
    ignore = {"help"}
    return {k: v for k, v in vars(one).items() if k not in ignore} == \
        {k: v for k, v in vars(other).items() if k not in ignore}


def shared_parameters():
    """(command, parameter name, its OptionInfo) for every parameter of every command that takes a shared flag."""
    for command in app.registered_commands:
        for name, parameter in inspect.signature(command.callback).parameters.items():
            if isinstance(parameter.default, typer.models.OptionInfo) and parameter.default.param_decls[0] in FLAGS:
                yield command.callback.__name__, name, parameter.default


def test_every_command_takes_the_shared_options():
    seen = set()
    for command, name, option in shared_parameters():
        shared = [value for value in SHARED.values() if value.param_decls == option.param_decls]
        assert shared, (command, name)
        assert any(option is value or the_same_but_help(option, value) for value in shared), (command, name)
        seen.add((command, option.param_decls[0]))
    takers = {command for command, flag in seen if flag == "--text-column"}
    assert takers == {"train", "distill", "evaluate", "analyze", "cv", "tune", "suggest"}
    assert {command for command, flag in seen if flag == "--data-dir"} == takers - {"suggest"} | {"datasets"}
    for flag in DATA_FLAGS:  # a data option's parameter has one name everywhere (data_source reads it by it)
        assert len({name for command, name, option in shared_parameters() if option.param_decls[0] == flag}) == 1


def test_a_column_option_says_the_same_in_every_command():
    commands = typer.main.get_command(app).commands
    with_model = {"evaluate", "analyze", "suggest"}  # read a file as the model does: its own columns by default
    for flag in ("--text-column", "--label-column", "--pair-column", "--aspect-column", "--label-separator",
                 "--data-dir", "--dev", "--test", "--threads", "--device"):
        for group in (with_model, set(commands) - with_model):
            found = {(param.help, repr(param.default)) for name, command in commands.items() if name in group
                     for param in command.params if flag in param.opts}
            assert len(found) <= 1, (flag, found)
    for flag in ("--text-column", "--label-column"):
        assert {repr(param.default) for name in with_model for param in commands[name].params
                if flag in param.opts} == {"None"}
    text = next(param for param in commands["cv"].params if "--text-column" in param.opts)
    assert text.default == "text" and text.help == options.TextColumn.help


def test_no_other_module_declares_a_shared_option():
    for path in sorted(CLI_FOLDER.glob("*.py")):
        if path.name == "options.py":
            continue
        source = path.read_text()
        for flag in DATA_FLAGS:
            assert f'"{flag}"' not in source, (path.name, flag)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "Option":
                flags = {arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}
                assert not flags & FLAGS, (path.name, flags & FLAGS)


def test_one_function_gives_the_data_source(tmp_path):
    for given in ({}, {"dataset": "sst2_sample", "train_file": tmp_path / "train.csv"}):
        with pytest.raises(AttentiveError) as error:
            options.data_source(**given)
        assert str(error.value) == CLI.message()
    source = options.data_source(train_file=tmp_path / "train.csv", dev_file=tmp_path / "dev.csv",
                                 text_column="review", pair_column="second", label_separator="|")
    assert (source.train, source.dev, source.text_column, source.label_column, source.pair_column,
            source.label_separator) == (tmp_path / "train.csv", tmp_path / "dev.csv", "review", "label", "second", "|")
    assert options.data_source(dataset="sst2_sample", data_dir=tmp_path).data_dir == tmp_path


def test_the_data_options_given_again_read_back_the_same(tmp_path):
    """train --nproc N starts itself again under torchrun with the data options it was given."""
    given = {"dataset": None, "train_file": tmp_path / "a.csv", "dev_file": None, "test_file": tmp_path / "t.csv",
             "text_column": "review", "label_column": "stars", "pair_column": None, "aspect_column": "aspect",
             "label_separator": "|", "data_dir": tmp_path}
    train = typer.main.get_command(app).commands["train"]
    context = train.make_context("train", [*options.data_arguments(given), "--out", str(tmp_path / "run")])
    assert {name: context.params[name] for name in given} == given
