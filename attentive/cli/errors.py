"""The one place where the command line's errors become one line on stderr and an exit status: the user's mistakes
(AttentiveError, usage errors from whichever copy of click typer vendors, files that cannot be read or written)
exit with 2; a bug exits with 1, still as one line unless ATTENTIVE_TRACEBACK=1 asks for the traceback."""
from __future__ import annotations

import importlib
import os

import typer
from rich.console import Console
from rich.text import Text

from ..errors import AttentiveError


def exception_classes(name: str) -> tuple[type, ...]:
    """The exception class `name` from click and from the copy of click that typer vendors, whichever exist: the
    installed typer raises its own copy's exceptions, which `except click.ClickException` never matches."""
    found = []
    for module in ("click.exceptions", "typer._click.exceptions", "typer.exceptions"):
        try:
            cls = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if isinstance(cls, type) and cls not in found:
            found.append(cls)
    return tuple(found)


def _one_line(message) -> str:
    return " ".join(str(message).split())


def run_reporting_errors(app: typer.Typer, argv: list[str] | None, err: Console) -> int:
    """Run the typer `app` on `argv` and return its exit status, every error reported on `err` as one line."""
    def error_line(message: str) -> None:
        err.print(Text("error: ", style="red") + Text(message), soft_wrap=True)

    try:
        status = app(args=argv, standalone_mode=False, prog_name="attentive")
    except exception_classes("NoArgsIsHelpError"):  # `attentive` alone: typer has printed the help
        commands = ", ".join(c.name or c.callback.__name__ for c in app.registered_commands)
        error_line(f"Usage: attentive COMMAND [OPTIONS], with COMMAND one of {commands} (see `attentive --help`)")
        return 2
    except AttentiveError as exc:
        error_line(str(exc))
        return 2
    except exception_classes("UsageError") as exc:
        command = exc.ctx.command_path if getattr(exc, "ctx", None) is not None else "attentive"
        error_line(f"{_one_line(exc.format_message())} (see `{command} --help`)")
        return 2
    except exception_classes("ClickException") as exc:
        error_line(_one_line(exc.format_message()))
        return 2
    except exception_classes("Exit") as exc:
        return getattr(exc, "exit_code", 0)
    except (*exception_classes("Abort"), KeyboardInterrupt):
        err.print("interrupted")
        return 130
    except OSError as exc:  # a file the user named could not be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        error_line(f"{where}{exc.strerror or exc}")
        return 2
    except Exception as exc:  # a bug: still one line, unless asked for the traceback
        if os.environ.get("ATTENTIVE_TRACEBACK"):
            raise
        error_line(f"internal error, please report it: {type(exc).__name__}: {_one_line(exc)} "
                   "(ATTENTIVE_TRACEBACK=1 shows the traceback)")
        return 1
    return status if isinstance(status, int) else 0
