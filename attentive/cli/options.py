"""The options several commands take, each declared once here: its flag, default and help (a command that means
something narrower by it says so with `retold`, the flag and default unchanged). The data options (`--dataset`,
`--train`, `--dev`, `--test`, `--file`, the columns, `--label-separator`, `--data-dir`) become the one `DataSource`
(attentive/data/source.py) through `data_source`, which says in one line when the data is given in none or several
ways; a command's parameters keep the names `DATA_OPTIONS` gives them, so that `data_source(**given)` reads them.
An option's value out of its range (`min`/`max`, or a check run as a typer callback: `checked_device`, `checked_by`)
is a usage error naming the option, raised while the command line is read, before any work starts."""
from __future__ import annotations

from copy import copy
from pathlib import Path

import typer

from ..data.source import CLI, DataSource
from ..errors import AttentiveError


def checked_device(device: str) -> str:
    """--device as given where it names a device available here (`available_devices`), else a usage error (one line
    naming the option, the value and the devices there are), raised while the command line is read, before any
    work starts."""
    if device in ("auto", "cpu"):  # always there: PyTorch is not imported to say so
        return device
    from ..answer.torch_backend import available_devices

    available = available_devices()
    if device not in available:
        missing = "no CUDA GPU is visible here" if device.startswith("cuda") and "cuda" not in available else \
            "not a device available here"
        raise typer.BadParameter(f"{device!r}: {missing}; give one of {', '.join(available)}")
    return device


def checked_by(check):
    """A typer callback that passes an option's value to `check` (which raises AttentiveError on a bad one) and keeps
    the value, the error said as a usage error naming the option, before any work starts."""
    def callback(value):
        try:
            check(value)
        except AttentiveError as exc:
            raise typer.BadParameter(str(exc)) from None
        return value

    return callback


def retold(option, help: str):
    """`option` (its flag, default and checks) with a command's own help."""
    told = copy(option)
    told.help = help
    return told


# the data options
Dataset = typer.Option(None, "--dataset", help="a dataset name from `attentive datasets`")
ModelDataset = retold(Dataset, "a dataset name from `attentive datasets` (default: the dataset the model was "
                               "trained on)")
TrainFile = typer.Option(None, "--train", help="your own training file (CSV/TSV/JSONL)")
DevFile = typer.Option(None, "--dev", help="its dev file (default: a stratified tenth of train)")
TestFile = typer.Option(None, "--test", help="its test file")
LabelledFile = typer.Option(None, "--file", help="your own labelled file (CSV/TSV/JSONL) instead of --dataset and "
                                                 "--split")
Split = typer.Option("test", "--split", help="the split of the dataset: train, dev or test")
TextColumn = typer.Option("text", "--text-column", help="your file's text column (CSV/TSV header or JSONL key)")
LabelColumn = typer.Option("label", "--label-column", help="your file's label column (CSV/TSV header or JSONL key)")
# evaluate, analyze and predict: a model's own columns unless given (attentive/data/reading.py)
ModelTextColumn = retold(TextColumn, "your file's text column (CSV/TSV header or JSONL key; default: the model's, "
                                     "as training read its files)")
ModelTextColumn.default = None
ModelLabelColumn = retold(LabelColumn, "your file's label column (CSV/TSV header or JSONL key; default: the "
                                       "model's, as training read its files)")
ModelLabelColumn.default = None
PairColumn = typer.Option(None, "--pair-column", help="second-text column, for pair recipes and models")
AspectColumn = typer.Option(None, "--aspect-column", help="aspect column, for aspect recipes and models")
LabelSeparator = typer.Option(None, "--label-separator", help="CSV/TSV label fields hold several labels cut by "
                                                               "this (multi-label), e.g. '|'")
DataDir = typer.Option(None, "--data-dir", help="benchmark data folder (default: $ATTENTIVE_DATA or ../shared/data)")

# a command's parameter name for each data option (train records them so, and --resume reads them back)
DATA_OPTIONS = {"dataset": Dataset, "train_file": TrainFile, "dev_file": DevFile, "test_file": TestFile,
                "text_column": TextColumn, "label_column": LabelColumn, "pair_column": PairColumn,
                "aspect_column": AspectColumn, "label_separator": LabelSeparator, "data_dir": DataDir}

# the other options several commands share
Recipe = typer.Option("default", "--recipe", help="a recipe name or a YAML file")
Overrides = typer.Option([], "--set", help="override a recipe entry: section.key=value")

Device = typer.Option("auto", "--device", callback=checked_device, help="cpu, cuda (cuda:N) or auto (cuda where "
                                                                        "there is a GPU, else cpu)")
Threads = typer.Option(None, "--threads", min=1, envvar="ATTENTIVE_THREADS",
                       help="threads to compute with (default: $OMP_NUM_THREADS, else the usable cores divided by the "
                            "local processes)")
Fp32 = typer.Option(False, "--fp32", help="an export holding model.int8.onnx (exported with --int8): run model.onnx "
                                          "instead (default: the int8 graph, as exported)")
InputFile = typer.Option(None, "--input", help='a CSV or TSV file (its text in the model\'s text column), a .txt '
                                               'file (a text a line), or JSONL, a "text" field a line ("text_pair" '
                                               'for pair models, optionally "aspect" for aspect models)')
PairTexts = typer.Option([], "--pair", help="pair models: the second text of each text, in order")
Aspects = typer.Option([], "--aspect", help='aspect models: the aspect(s) to answer for (default: a JSONL "aspect" '
                                            'field, else every aspect the model knows)')
OnError = typer.Option("stop", "--on-error", help="a bad input line: stop (after answering every good line before "
                                                  "it) or skip it with a warning")


def data_source(*, dataset: str | None = None, train_file: Path | None = None, dev_file: Path | None = None,
                test_file: Path | None = None, text_column: str = TextColumn.default,
                label_column: str = LabelColumn.default, pair_column: str | None = None,
                aspect_column: str | None = None, label_separator: str | None = None,
                data_dir: Path | None = None) -> DataSource:
    """The DataSource of a command's data options (a registry name, or the user's own files; `label_separator`:
    their label fields hold label sets), refused in one line unless the data is given one way."""
    source = DataSource(dataset=dataset, train=train_file, dev=dev_file, test=test_file, text_column=text_column,
                        label_column=label_column, pair_column=pair_column, aspect_column=aspect_column,
                        label_separator=label_separator, data_dir=data_dir)
    source.check(CLI)
    return source


def load_data(unlabelled_rows: list | None = None, **given):
    """The Dataset of a command's data options (`data_source`); the train file's rows without a label go to
    `unlabelled_rows` where it is a list."""
    return data_source(**given).load(spelling=CLI, unlabelled_rows=unlabelled_rows)


def data_arguments(given: dict) -> list[str]:
    """The command line giving these data options (named as in `DATA_OPTIONS`) again, those that are set."""
    return [part for name, value in given.items() if value is not None
            for part in (DATA_OPTIONS[name].param_decls[0], str(value))]


def scored_data(model, split: str, labelled_file: Path | None, *, dataset: str | None, data_dir: Path | None,
                **columns):
    """(data, split) for evaluate and analyze: the user's labelled file (`--file`; its one split, test) read as the
    model reads its files (attentive/data/reading.py: its recorded columns, those of `columns` given, not None,
    winning), else `split` of the dataset (default: the one the model was trained on; a model trained on the
    user's files has none, and is told to give --file)."""
    from ..data.reading import READING, described, reading_for

    if labelled_file is not None:
        from ..data.registry import load_test_file

        return load_test_file(labelled_file, **reading_for(model.config, **columns)), "test"
    if dataset is None and model.config.get(READING) is not None:
        trained_on = model.config.get("dataset")
        raise AttentiveError(f"the model was trained on {f'your file {trained_on}' if trained_on else 'your files'}, "
                             f"not a named dataset: give --file FILE (read with the model's "
                             f"{described(model.config[READING])})")
    given = {name: value for name, value in columns.items() if value is not None}
    return load_data(dataset=dataset or model.config.get("dataset"), data_dir=data_dir, **given), split
