"""Recipes: small YAML files naming a model's parts and hyper-parameters (attentive/recipes/*.yaml).

`--set section.key=value` overrides any entry; values are parsed as YAML (numbers, booleans, null, lists).

A recipe is read before anything trusts it: at most RECIPE_CAP bytes, YAML without aliases (`*name`: a recipe is a
few lines, and an alias "bomb" of nested references expands to gigabytes when the recipe is written to config.json)
or merge keys (`<<`: a key given directly would win over the merged one silently), a mapping of known top-level keys
(the sections, `name`, `description`) whose sections are mappings. Each failure is one line naming the file and the
key.
"""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import yaml
from pydantic import ValidationError

from ..errors import AttentiveError
from .retired import RETIRED_SECTIONS, drop_retired
from .types import Recipe, SearchSpace, first_problem, section_fields

RECIPE_DIR = Path(__file__).parent
SECTIONS = ("tokenizer", "embedder", "aspect", "encoder", "pooler", "head", "wide", "train")

TOP_LEVEL = (*SECTIONS, "name", "description", "tune")  # what a recipe may hold at its top (tune: the search
# spaces of `attentive tune`, types.SearchSpace)
RECIPE_CAP = 2**20  # bytes of a recipe file


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing aliases (`*name`) where it would compose them, a key given twice in one
    mapping (where PyYAML keeps the last silently: `lr: 0.1` and later `lr: 0.01` would train with 0.01), and a
    merge key (`<<`, where a key given directly wins over the merged one silently)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, f"an alias (*{event.anchor}): recipes take no aliases, "
                                              "write the value out", event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first_line: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise _merge_refused(key_node, value_node)
                key, line = self.construct_object(key_node, deep=True), key_node.start_mark.line + 1
                try:
                    given = key in first_line
                except TypeError:  # an unhashable key: the safe loader's own error says so
                    break
                if given:
                    where = f", first on line {first_line[key]}" if first_line[key] != line else ""
                    raise yaml.constructor.ConstructorError(None, None, f"key {str(key)[:60]!r} given twice{where}: "
                                                            "keep one", key_node.start_mark)
                first_line[key] = line
        return super().construct_mapping(node, deep)


def _merge_refused(key_node, value_node) -> yaml.constructor.ConstructorError:
    """The error at a merge key (`<<`), naming the keys it merges."""
    merged = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
    keys = [repr(str(key.value)[:60]) for node in merged if isinstance(node, yaml.MappingNode)
            for key, _ in node.value if isinstance(key, yaml.ScalarNode)]
    what = f" merging {', '.join(keys)}" if keys else ""
    return yaml.constructor.ConstructorError(None, None, f"a merge key (<<){what}: recipes take no merge keys, write "
                                             "the settings out", key_node.start_mark)


def safe_yaml(text: str):
    """`text` parsed as YAML by the safe loader, without aliases, merge keys or a key given twice in one mapping;
    yaml.YAMLError (or RecursionError, for nesting deeper than the parser's stack) on failure."""
    return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 (a SafeLoader subclass)


def available_recipes() -> list[str]:
    """The names of the shipped recipes (attentive/recipes/*.yaml), sorted: what `--recipe NAME` and
    `load_recipe(NAME)` accept besides a YAML file."""
    return sorted(path.stem for path in RECIPE_DIR.glob("*.yaml"))


def load_recipe(name_or_path: str | dict | Recipe, overrides: list[str] | None = None,
                settings: dict | None = None) -> Recipe:
    """The typed recipe (attentive/recipes/types.py) of a shipped name, a YAML file, a dict (copied, never changed)
    or a Recipe, with `overrides` ("section.key=value") and `settings` (keywords: `heads=5`, or `pooler__heads=5`
    where several sections hold the key) applied, its defaults filled in and every setting checked for type, range
    and spelling: one line naming the key and the --set, keyword or recipe file that gave it."""
    if isinstance(name_or_path, Recipe):
        if not overrides and not settings:  # typed and checked already, and frozen: parsed once is enough
            return name_or_path
        name_or_path = name_or_path.as_dict()
    if isinstance(name_or_path, dict):
        check_shape(name_or_path, "recipe")  # before the copy: nothing unchecked is expanded
        recipe, path = copy.deepcopy(name_or_path), Path(str(name_or_path.get("name", "recipe")))
    else:
        recipe, path = _read_recipe(name_or_path)
    recipe.update({section: {} for section in SECTIONS if section in recipe and recipe[section] is None})
    given = {}  # key -> the --set or keyword that gave it
    for override in overrides or []:
        apply_override(recipe, override)
        given[override.partition("=")[0].strip()] = f"--set {override}"
    for name, value in (settings or {}).items():
        section, key = setting_key(recipe, name)
        recipe[section][key] = value
        given[f"{section}.{key}"] = f"{name}={value!r}"
    retired = drop_retired(recipe)
    if retired is not None:
        raise AttentiveError(f"{retired}: a setting this version no longer has")
    missing = [s for s in SECTIONS if s not in recipe and Recipe.model_fields[s].is_required()]  # no defaults
    if missing:
        raise AttentiveError(f"{path}: recipe lacks section(s) {', '.join(missing)}")
    try:
        return Recipe.model_validate(recipe)
    except ValidationError as exc:
        key, meaning = first_problem(exc)
        raise AttentiveError(f"{giver(given, key) or f'recipe {path}'}: {key} must be {meaning}, not "
                             f"{entry(recipe, key)!r}") from None


def recipe_from_config(recipe: dict) -> Recipe:
    """The typed recipe of a run's config.json (`recipe.as_dict()`, its derived values numbers already): what a
    resumed run reads back from its checkpoint, checked as any recipe is."""
    return load_recipe(recipe)


def with_settings(recipe: Recipe, values: dict) -> Recipe:
    """A new recipe: `recipe` with each "section.key" (or "section.key.subkey") of `values` set and checked, as
    `--set` sets it."""
    return load_recipe(recipe, [f"{key}={json.dumps(value)}" for key, value in values.items()])


def giver(given: dict[str, str], key: str) -> str | None:
    """The --set or keyword behind a problem with `key`: the one that gave it, else the one that gave the type
    beside it (`--set pooler.type=mean` leaves pooler.heads, which a mean pooler does not take), else, inside a
    group of settings, one that gave another entry of the group (`--set train.regulariser.weight=1` asks for a
    regulariser type). None when the recipe itself holds the problem."""
    group = key.rpartition(".")[0]
    return given.get(key) or given.get(f"{group}.type") or next(
        (by for name, by in given.items() if "." in group and name.startswith(f"{group}.")), None)


def entry(recipe: dict, key: str):
    """The value at a dotted key (`pooler.heads`, `train.regulariser.type`), None where there is none."""
    value = recipe
    for name in key.split("."):
        value = value.get(name) if isinstance(value, dict) else None
    return value


def _read_recipe(name_or_path: str) -> tuple[dict, Path]:
    path = Path(name_or_path)
    if not path.suffix:
        path = RECIPE_DIR / f"{name_or_path}.yaml"
    if not path.exists():
        from ..util.spelling import did_you_mean

        raise AttentiveError(f"unknown recipe {name_or_path!r}{did_you_mean(name_or_path, available_recipes())}; "
                             f"known: {', '.join(available_recipes())}")
    try:
        with open(path, "rb") as handle:
            data = handle.read(RECIPE_CAP + 1)
    except OSError as exc:
        raise AttentiveError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > RECIPE_CAP:
        raise AttentiveError(f"{path}: more than {RECIPE_CAP:,} bytes, too large for a recipe")
    try:
        loaded = safe_yaml(data.decode("utf-8")) or {}
    except UnicodeDecodeError:
        raise AttentiveError(f"{path}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else f"{path}"
        raise AttentiveError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    except RecursionError:
        raise AttentiveError(f"{path}: YAML nested too deep for a recipe") from None
    check_shape(loaded, path)
    loaded.setdefault("name", path.stem)
    return loaded, path


def check_shape(recipe, where: str | Path) -> None:
    """A recipe is a mapping of known top-level keys, whose sections are mappings (or empty) and whose name and
    description are text; else an AttentiveError naming `where` and the key. Nothing under an unknown key is read."""
    if not isinstance(recipe, dict):
        raise AttentiveError(f"{where}: a recipe is a mapping of sections ({', '.join(SECTIONS)}), not a "
                             f"{type(recipe).__name__}")
    unknown = [key for key in recipe if key not in TOP_LEVEL and key not in RETIRED_SECTIONS]
    if unknown:
        raise AttentiveError(f"{where}: unknown top-level key {str(unknown[0])[:60]!r} (a recipe holds "
                             f"{', '.join(TOP_LEVEL)})")
    for key, value in recipe.items():
        if key in (*SECTIONS, *RETIRED_SECTIONS) and not isinstance(value, (dict, type(None))):
            raise AttentiveError(f"{where}: {key} must be a mapping of settings, not a {type(value).__name__}")
        if key in ("name", "description") and not isinstance(value, str):
            raise AttentiveError(f"{where}: {key} must be text, not a {type(value).__name__}")
    check_tune(recipe.get("tune"), where)


def check_tune(spaces, where: str | Path) -> None:
    """A recipe's `tune:` section (absent or empty, or a mapping of "section.key" to one search space each); else
    an AttentiveError naming `where` and the entry."""
    if spaces is None:
        return
    if not isinstance(spaces, dict):
        raise AttentiveError(f"{where}: tune must be a mapping of settings (section.key) to search spaces, not a "
                             f"{type(spaces).__name__}")
    for key, space in spaces.items():
        section, _, name = str(key).partition(".")
        if not isinstance(key, str) or section not in SECTIONS or not name:
            raise AttentiveError(f"{where}: tune.{str(key)[:60]}: a tuned setting is section.key with section in "
                                 f"{', '.join(SECTIONS)}")
        try:
            SearchSpace.model_validate(space)
        except ValidationError as exc:
            raise AttentiveError(f"{where}: tune.{key} must be {first_problem(exc)[1]}") from None


def setting_key(recipe: dict, name: str) -> tuple[str, str]:
    """(section, key) of a keyword setting: `pooler__heads`, or `heads` when exactly one section of the recipe (or of
    the typed sections) holds a key of that name."""
    if "__" in name:
        section, key = name.split("__", 1)
        if section not in SECTIONS:
            raise AttentiveError(f"{name}: no recipe section {section!r} (sections: {', '.join(SECTIONS)})")
        recipe.setdefault(section, {})
        return section, key
    holders = [s for s in SECTIONS if name in (recipe.get(s) or {}) or name in section_fields(s)]
    if not holders:
        raise AttentiveError(f"{name}: no such setting in recipe {recipe.get('name')!r} (give section__{name} to "
                             "add one to a part)")
    if len(holders) > 1:
        raise AttentiveError(f"{name}: several sections hold it ({', '.join(holders)}): say which, e.g. "
                             f"{holders[0]}__{name}")
    recipe.setdefault(holders[0], {})
    return holders[0], name


def apply_override(recipe: dict, override: str) -> None:
    """Set `section.key=value`, or a nested entry `section.key.subkey=value` (e.g. train.regulariser.weight=0)."""
    key, sep, raw = override.partition("=")
    path = key.strip().split(".")
    if not sep or len(path) < 2 or path[0] not in (*SECTIONS, *RETIRED_SECTIONS):  # a retired one: refused by name
        raise AttentiveError(f"--set {override!r}: expected section.key=value with section in {', '.join(SECTIONS)}")
    target = recipe.setdefault(path[0], {})
    for name in path[1:-1]:
        if not isinstance(target.get(name, {}), dict):
            raise AttentiveError(f"--set {override!r}: {name} is not a group of settings")
        target = target.setdefault(name, {})
    target[path[-1]] = parse_value(raw)


EXPONENT_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")


def parse_value(raw: str):
    """A YAML value, except that numbers YAML 1.1 leaves as text (`1e-6`, without a dot) become floats."""
    if not raw.strip():
        return None
    try:
        value = safe_yaml(raw)
    except (yaml.YAMLError, RecursionError) as exc:
        raise AttentiveError(f"--set value {raw[:60]!r}: not valid YAML ({getattr(exc, 'problem', None) or exc})") \
            from None
    if isinstance(value, str) and EXPONENT_NUMBER.fullmatch(value.strip()):
        return float(value)
    return value
