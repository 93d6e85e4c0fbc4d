"""The prose is a checked reference: every pointer to a file or a name of the package, in a docstring or comment of
attentive/ (the shipped recipes' YAML comments included), in DESIGN.md, README.md and docs/*.md, names something that
exists; and that prose carries no dates, issue numbers, commit ids or citations of the retired benchmark notes.

The pointer grammar (a backticked span is `X` or ``X``; a trailing `()` is ignored):

- A **path**: a span, or a word outside backticks, that holds a `/` and ends in `.py`, `.md`, `.sh` or `.yaml`
  (`folders/output.py`, `attentive/folders/output.py`, tests/helpers.py), in a span optionally followed by `:NAME`
  or `.NAME`, a top-level definition of that file (`models/classifier.py:build_model`). It resolves against the
  repository's root, then attentive/. A backticked file name without a folder (`heads.py`) resolves if a file of
  that name is anywhere in attentive/, tests/, benchmarks/, docs/ or the root.
- A **dotted name**: a backticked `a.b[.c...]` of identifiers whose first part is `attentive`, the name of one of
  the package's modules or folders (`saved`, `inputs`, `training`), a class it defines (`Recipe`), or a lower-case
  name with an underscore (`io_utils`: how a module is named, so that a moved or renamed module is caught). A `/`
  counts as a `.` where the first part is a folder of the package (`cli/errors.run_reporting_errors`). It resolves
  when its longest leading parts name a module (`recipes.for_data` is `attentive.recipes.for_data`) and each later
  part is a top-level name of it (`def`, `class`, assignment, import, `__all__` entry) or an attribute of the class
  before it (methods, class-level and `self.` assignments, fields, the package's own bases'; a field's annotated
  class for the part after it); a name a module imports resolves as the package's class of that name, and a
  module's name may stand for its class's instance (`model.predict` as `Model.predict`). Everything is read with
  `ast`; nothing is imported.
- Not pointers: recipe keys (first part a recipe section: `train.epochs`, `wide.prior`), dotted names of other
  libraries or of variables (`fcntl.flock`, `recipe.train.lr`), data and output file names (`config.json`,
  `train.csv`), placeholders in capitals (`NAME.nonzero_rows`), and strings the package's source holds
  (`attentive.labels`). A key of a JSON file is written in quotes (`"metrics.f1"`) or as YAML
  (`calibration: {temperature: T}`), not as a dotted name.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "attentive"
PAGES = [REPO / "DESIGN.md", REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RECIPE_SECTIONS = {"tokenizer", "embedder", "aspect", "encoder", "pooler", "head", "wide", "train", "tune", "align"}
EXTENSIONS = ("py", "md", "sh", "yaml")
SPAN = re.compile(r"(`+)([^`\n]+?)\1")
PATH = re.compile(r"((?:[\w.-]+/)*[\w-]+\.(?:%s))(?:[:.]([A-Za-z_]\w*))?" % "|".join(EXTENSIONS))
LOOSE_PATH = re.compile(r"(?<![\w/.`-])((?:[\w-]+/)+[\w-]+\.(?:%s))\b" % "|".join(EXTENSIONS))
DATA_FILES = {"json", "jsonl", "csv", "tsv", "txt", "gz", "png", "html", "onnx", "safetensors", "db", "lock"}
DOTTED = re.compile(r"[A-Za-z_]\w*(?:[./][A-Za-z_]\w*)+")
# The issue's grep, and the retired benchmark diary and appendix: prose states what the code does and compatibility
# as format versions; how a default was chosen, and when, lives in benchmarks/DECISIONS.md.
HISTORY = re.compile(r"20[0-9]{2}-[0-9]{2}-[0-9]{2}|issue [0-9]+|notes\.md|commit [0-9a-f]{7}|APPENDIX")
DESIGN_LIMIT = 12 * 1024


@cache
def parsed(source: str) -> ast.Module:
    return ast.parse(source)


def prose(path: Path, source: str) -> list[str]:
    """The docstrings and comments of a .py file, the comments of a .yaml file, a page's whole text."""
    if path.suffix == ".yaml":
        return [line for line in source.splitlines() if line.lstrip().startswith("#")]
    if path.suffix != ".py":
        return [source]
    found = [ast.get_docstring(node, clean=False) for node in ast.walk(parsed(source))
             if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
    found += [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type == tokenize.COMMENT]
    return [text for text in found if text]


class Package:
    """What the package defines, read with `ast` (nothing is imported): its modules' top-level names, its classes'
    attributes and bases, and the strings its source holds."""

    def __init__(self, root: Path):
        self.modules: dict[str, dict[str, ast.AST | None]] = {}
        self.classes: dict[str, list[ast.ClassDef]] = {}
        self.strings: set[str] = set()
        self.folders = {path.name for path in root.rglob("*") if path.is_dir() and path.name != "__pycache__"}
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root.parent).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            tree = parsed(path.read_text(encoding="utf-8"))
            self.modules[name] = self.top_level(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append(node)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    self.strings.add(node.value)
        self.module_names = {module.rpartition(".")[2] for module in self.modules}

    @staticmethod
    def top_level(tree: ast.Module) -> dict[str, ast.AST | None]:
        names: dict[str, ast.AST | None] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            names[name.id] = None
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
                    names.update({c.value: None for c in ast.walk(node.value) if isinstance(c, ast.Constant)})
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update({(alias.asname or alias.name).split(".")[0]: None for alias in node.names})
        return names

    @cache  # noqa: B019 (one Package a session)
    def attributes(self, name: str, seen: frozenset = frozenset()) -> set[str] | None:
        """The attributes of the package's classes called `name` (with their bases'), None if it defines none."""
        if name not in self.classes or name in seen:
            return None
        found: set[str] = set()
        for cls in self.classes[name]:
            for node in ast.walk(cls):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.add(node.name)
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                    found.add(node.attr)
            for node in cls.body:
                if isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    found |= {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
            for base in cls.bases:
                base_name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
                found |= self.attributes(base_name, seen | {name}) or set()
        return found

    def is_pointer(self, parts: list[str]) -> bool:
        first = parts[0]
        if first in RECIPE_SECTIONS:
            return False
        return (first == "attentive" or first in self.module_names or first in self.folders or first in self.classes
                or ("_" in first.strip("_") and first.islower()))

    def resolves(self, parts: list[str]) -> bool:
        for k in range(len(parts), 0, -1):
            tail = ".".join(parts[:k])
            matches = [module for module in self.modules if module == tail or module.endswith("." + tail)]
            if matches:
                return any(self.resolve_in(self.modules[module], parts[k:]) for module in matches) \
                    or (k == 1 and self.resolve_class(parts[0].capitalize(), parts[1:]))
        return self.resolve_class(parts[0], parts[1:])

    def resolve_in(self, names: dict[str, ast.AST | None], rest: list[str]) -> bool:
        if not rest:
            return True
        if rest[0] not in names:
            return False
        node = names[rest[0]]
        if len(rest) == 1:
            return True
        if isinstance(node, ast.ClassDef) or node is None:
            return self.resolve_class(rest[0], rest[1:])
        return False

    def resolve_class(self, name: str, rest: list[str]) -> bool:
        attributes = self.attributes(name)
        if attributes is None:
            return False
        return not rest or (rest[0] in attributes and (len(rest) == 1 or any(
            self.resolve_class(kind, rest[1:]) for kind in self.annotation(name, rest[0]))))

    def annotation(self, name: str, attribute: str) -> list[str]:
        """The class names in the annotation of `attribute` in the package's classes called `name`."""
        return [node.id for cls in self.classes.get(name, []) for field in cls.body
                if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
                and field.target.id == attribute for node in ast.walk(field.annotation) if isinstance(node, ast.Name)]


@cache
def package() -> Package:
    return Package(PACKAGE)


@cache
def repository_file_names() -> frozenset[str]:
    return frozenset(path.name for folder in (PACKAGE, REPO / "tests", REPO / "benchmarks", REPO / "docs")
                     for path in folder.rglob("*") if path.is_file()) | {path.name for path in REPO.glob("*")}


def file_resolves(relative: str, name: str | None) -> bool:
    if "/" not in relative:
        return relative in repository_file_names() and name is None
    for base in (REPO, PACKAGE):
        path = base / relative
        if path.is_file():
            return name is None or path.suffix != ".py" or name in Package.top_level(
                parsed(path.read_text(encoding="utf-8")))
    return False


def pointers(text: str) -> list[tuple[str, bool]]:
    """Each pointer of `text`: (as written, whether it resolves)."""
    found = []
    outside = SPAN.sub(" ", text)
    for relative in LOOSE_PATH.findall(outside):
        found.append((relative, file_resolves(relative, None)))
    for _, span in SPAN.findall(text):
        span = span.strip().removesuffix("()")
        path = PATH.fullmatch(span)
        if path:
            found.append((span, file_resolves(path.group(1), path.group(2))))
        elif DOTTED.fullmatch(span) and span not in package().strings and span.rpartition(".")[2] not in DATA_FILES:
            parts = re.split(r"[./]", span)
            if package().is_pointer(parts) and ("/" not in span or parts[0] in package().folders):
                found.append((span, package().resolves(parts)))
    return found


def sources() -> list[Path]:
    return [*sorted(PACKAGE.rglob("*.py")), *sorted(PACKAGE.rglob("*.yaml")), *PAGES]


def stale_pointers() -> list[str]:
    stale = []
    for path in sources():
        for text in prose(path, path.read_text(encoding="utf-8")):
            stale += [f"{path.relative_to(REPO)}: {pointer}" for pointer, ok in pointers(text) if not ok]
    return stale


def test_every_pointer_in_the_prose_resolves():
    assert stale_pointers() == [], "point where the name lives now, or see this file's docstring for the grammar"


def test_a_stale_pointer_is_caught():
    def stale(text: str) -> list[str]:
        return [pointer for pointer, ok in pointers(text) if not ok]

    assert stale("`folders/output.py`, `attentive/folders/output.py`, `util.atomic.atomic_write_files`, "
                 "`recipes.for_data.recipe_for_data`, `models/classifier.py:build_model`, `Recipe.resolved`, "
                 "`cli/errors.run_reporting_errors`, `heads.py`, `attentive.Model.explain`, `saved.saved_recipe`, "
                 "tests/helpers.py, `train.epochs`, `fcntl.flock`, `config.json`, `attentive.labels`") == []
    assert stale("`io_utils.atomic_write_files`, `api.open_model`, `models/alignment.py`, training/gone.py, "
                 "`models/classifier.py:gone`, `Recipe.gone`, `recipe_schema.RETIRED`, `saved.gone`, `gone.py`") == [
        "training/gone.py", "io_utils.atomic_write_files", "api.open_model", "models/alignment.py",
        "models/classifier.py:gone", "Recipe.gone", "recipe_schema.RETIRED", "saved.gone", "gone.py"]
    # in a docstring and in a comment of a module
    module = '"""See `api.open_model`."""\nx = 1  # and `folders/gone.py`\n'
    assert [stale(text) for text in prose(Path("m.py"), module)] == [["api.open_model"], ["folders/gone.py"]]


def test_the_prose_carries_no_dates_issue_numbers_commit_ids_or_notes():
    found = []
    for folder in (PACKAGE, REPO / "docs"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".md", ".yaml", ".txt"):
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                    if HISTORY.search(line):
                        found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []


def test_design_md_is_a_map():
    assert (REPO / "DESIGN.md").stat().st_size <= DESIGN_LIMIT
