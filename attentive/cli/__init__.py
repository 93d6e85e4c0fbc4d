"""The `attentive` command line; each command is a thin wrapper over the Python API (attentive.api)."""
from __future__ import annotations

import sys

from . import (  # noqa: F401  (each registers its commands)
    abstaining,
    answering,
    deploying,
    fewlabels,
    listing,
    selection,
    training,
)
from .app import app, err

# `attentive --help` lists the commands in the order a user meets them, whatever the order of the imports above
ORDER = ["train", "distill", "evaluate", "abstain", "predict", "explain", "export", "serve", "analyze", "cv", "tune",
         "suggest", "datasets", "recipes", "demo"]
app.registered_commands.sort(key=lambda command: ORDER.index(command.callback.__name__))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every error is one line on stderr with exit status 2, never a traceback (attentive.cli.errors)."""
    from .errors import run_reporting_errors

    return run_reporting_errors(app, argv, err)


def run() -> None:
    sys.exit(main())
