"""User-facing errors: the CLI prints them as one line, never as a traceback."""


class AttentiveError(Exception):
    """An error caused by what the user gave (a file, a name, an option), shown as one line."""


class DataError(AttentiveError):
    """A data file is missing or malformed; the message names the file and, where known, the line."""

    def __init__(self, path, problem: str, line: int | None = None):
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {problem}")
        self.path, self.line, self.problem = path, line, problem


class DataWarning(UserWarning):
    """What the data report finds wrong in data that still trains (attentive/data/checks.py data_warnings): labels
    read without their spaces, labels differing only by case, duplicate texts, classes too small to learn."""
