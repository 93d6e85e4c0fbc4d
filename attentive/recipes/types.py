"""The typed recipe: an immutable pydantic model that `recipes.loader.load_recipe` builds and training, models and
inference read by attribute (`recipe.train.lr`). Choices are `Literal`s, ranges `Field` constraints, unknown keys
refused; a field's `description` is what its value "must be" in the one-line error. A part section (aspect, encoder,
pooler, head, wide) is a `type` and the options its constructor owns and types (attentive/models/option_types.py checks
them); options several parts share are bounded here (`PART_OPTIONS`). The search spaces of `attentive tune` are
typed too (`SearchSpace`). Derived values are new recipes (`resolved`); `as_dict()` is what config.json stores."""
from __future__ import annotations

import math
import re
import typing
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

Optimizer = Literal["adam", "adadelta", "adagrad"]  # train.optimizer, in any case (attentive/training/loop.py)
Regulariser = Literal["frobenius", "frobenius_norm", "std", "neg_entropy"]  # training/regularisers.py's penalties
Sampler = Literal["shuffle", "balanced"]  # every row once, or classes drawn alike (attentive/training/sampling.py)
OPTIMIZERS, REGULARISERS, SAMPLERS = (typing.get_args(choice) for choice in (Optimizer, Regulariser, Sampler))

Count = Annotated[int, Field(ge=1)]
# The widest layer (and the most heads, hops, layers or feature maps) a recipe may ask for: wider than any published
# model's (GPT-3's feed-forward is 49,152), so that a mistyped width is one line, not an allocation that exhausts the
# machine. Widths below it can still make a network too large: training estimates its size first
# (attentive/training/size.py).
MAX_WIDTH = 2**16
Width = Annotated[int, Field(ge=1, le=MAX_WIDTH)]
Fraction = Annotated[float, Field(ge=0, lt=1)]
Positive = Annotated[float, Field(gt=0)]
D_MODEL = re.compile(r"\s*(?:(\d+)\s*\*\s*)?d_model\s*")  # the SSAN paper ties its models' widths and rate to d_model
DModel = Annotated[str, Field(pattern=f"^{D_MODEL.pattern}$")]  # "d_model" or "k*d_model": a width tied to d_model
# Options of the same name in every part, bounded alike (0 hidden units: no hidden layer)
PART_OPTIONS = {"dropout": Fraction, "heads": Width, "hops": Width, "layers": Width, "maps": Width, "factors": Width,
                "hidden": Annotated[int, Field(ge=0, le=MAX_WIDTH)] | DModel, "ff": Width | DModel,
                "d_model": Width | DModel}


def resolve_width(value, d_model: int):
    """A width given as "d_model" or "k*d_model" for d_model; any other value as it is."""
    match = D_MODEL.fullmatch(value) if isinstance(value, str) else None
    return value if match is None else int(match.group(1) or 1) * d_model


def resolve_rate(rate, d_model: int) -> float:
    """A learning rate, or from a table {d_model: rate} the rate of the nearest listed size (the smaller on a tie)."""
    if not isinstance(rate, dict):
        return rate
    by_size = {int(size): float(value) for size, value in rate.items()}
    return by_size[min(by_size, key=lambda size: (abs(size - d_model), size))]


def problem(meaning: str, key: str = "") -> PydanticCustomError:
    """A problem pydantic carries to `first_problem`: the value at `key` (below the error's place) must be `meaning`."""
    return PydanticCustomError("recipe", "{meaning}", {"meaning": meaning, "key": key})


class Section(BaseModel):
    """A fixed section (or the whole recipe): every key typed, none other taken; OPTIONAL ones dumped unless null."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        return {key: value for key, value in handler(self).items() if not (key in self.OPTIONAL and value is None)}


class Tokenizer(Section):
    """Word-level from the training texts (attentive/text/sources.py), or `pretrained`: MiniLM's WordPiece."""

    OPTIONAL = frozenset({"type"})
    type: Literal["pretrained"] | None = Field(None, description="'pretrained' or left out")
    min_frequency: Count = 5
    lowercase: bool = True
    max_length: int | None = Field(400, ge=1)
    max_vocab: int | None = Field(None, ge=1)
    keep_known: bool = False
    pieces: bool = False
    prune_pieces: bool = False


class Embedder(Section):
    """The word table and its initial vectors (attentive/text/sources.py); `none`: the encoder embeds the ids."""

    OPTIONAL = frozenset({"type", "glove_path"})
    type: Literal["none"] | None = Field(None, description="'none' or left out")
    vectors: str = "word2vec"
    dim: Width = 100
    dropout: Fraction = 0.0
    trainable: bool = True
    scale: float | None = Field(None, gt=0)
    distilled_dim: Width = 256
    word2vec_extra: str | None = None
    word2vec_epochs: Count = 5
    word2vec_seed: int = 0
    glove_path: str | None = None

    @field_validator("vectors")
    @classmethod
    def _known_sources(cls, vectors: str) -> str:
        from ..models.option_types import one_of  # torch, numpy, tokenizers: only when a recipe is checked
        from ..text.sources import SOURCES, source_names

        try:
            source_names(vectors)
        except Exception:
            raise problem(f"{one_of(SOURCES)}, or several joined by +") from None
        return vectors


class AttentionPenalty(Section):
    """train.regulariser: `weight` times an attention penalty (attentive/training/regularisers.py)."""

    OPTIONAL = frozenset({"type", "weight"})
    type: Regulariser | None = Field(None, description=f"one of {', '.join(map(repr, REGULARISERS))}")
    weight: float | None = Field(None, ge=0, description="a number ≥ 0")  # left out (null): 0

    @model_validator(mode="after")
    def _typed_when_weighed(self):
        if self.type is None and self.weight:
            raise problem(AttentionPenalty.model_fields["type"].description, "type")
        return self


class Train(Section):
    """The training loop's settings (attentive/training/loop.py)."""

    OPTIONAL = frozenset({"batches_per_epoch", "max_updates", "regulariser", "ema_epochs", "window"})
    optimizer: str = "adam"
    lr: Positive | dict = Field(0.001, description="a number > 0")  # dict: {d_model: rate}, the SSAN table
    weight_decay: float = Field(0.0, ge=0)
    batch_size: Count = 64
    epochs: Count = 10
    patience: Count = 3
    clip: float | None = Field(5.0, ge=0)
    seed: int = 0
    wide_lr: float | None = Field(None, gt=0)
    rho: float = Field(0.9, gt=0, lt=1)  # rho, eps: ADADELTA's decay and epsilon (PyTorch's defaults)
    eps: Positive = 1e-6
    class_weight: Literal["none", "balanced"] | Annotated[dict[str | int, Positive], Field(min_length=1)] = Field(
        "none", description="'none', 'balanced' or a mapping {label: weight > 0}")  # attentive/training/pipeline.py
    sampler: Sampler = "shuffle"
    batches_per_epoch: int | None = Field(None, ge=0)
    max_updates: int | None = Field(None, ge=1)
    regulariser: AttentionPenalty | None = Field(None, description="a mapping {type: ..., weight: ...} or null")
    ema_epochs: float | None = Field(None, gt=0)
    window: int | None = Field(None, ge=1)  # attentive/training/windows.py: long texts read through a window

    @field_validator("optimizer")
    @classmethod
    def _known_optimizer(cls, name: str) -> str:
        if name.lower() not in OPTIMIZERS:
            from ..models.option_types import describe

            raise problem(describe(Optimizer))
        return name


class Part(BaseModel):
    """A part section: its `type` and its constructor's options, as given (checked by option_types)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    type: Any = None

    @property
    def options(self) -> dict:
        """The section's entries but `type`: the part constructor's keyword arguments."""
        return dict(self.model_extra)


class Switch(Part):
    """A part section whose `none` builds nothing: the aspect input and the wide channel."""

    type: Any = "none"


# The kinds of search space of a recipe's `tune:` section, each with the form of its values: uniform and log_uniform
# draw a number between two bounds (log_uniform evenly in the logarithm, bounds > 0), int an integer between two
# bounds (both included), choice one of a list of values.
TUNE_SPACES = {"uniform": "[low, high]", "log_uniform": "[low, high] with low > 0", "int": "[low, high] (integers)",
               "choice": "[value, ...]"}
Number = StrictInt | StrictFloat  # not a bool
Choice = StrictBool | StrictInt | StrictFloat | StrictStr | None
SPACE_VALUES = {"uniform": TypeAdapter(tuple[Number, Number]), "log_uniform": TypeAdapter(tuple[Number, Number]),
                "int": TypeAdapter(tuple[StrictInt, StrictInt]),
                "choice": TypeAdapter(Annotated[tuple[Choice, ...], Field(min_length=1)])}


class SearchSpace(BaseModel):
    """One search space of `attentive tune` (attentive/selection/tune.py): its `kind` (a key of `TUNE_SPACES`) and
    `values` ((low, high), or the choices), written and dumped `{kind: [values]}`. Whether its values suit the
    setting it searches is checked when the study starts."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: Literal["uniform", "log_uniform", "int", "choice"]
    values: tuple[Choice, ...]

    @model_validator(mode="wrap")
    @classmethod
    def _written(cls, written, handler):
        """The space of `{kind: [values]}`, or a `problem` saying what it must be (one line)."""
        if isinstance(written, SearchSpace):
            return written
        if not isinstance(written, dict) or len(written) != 1 or next(iter(written)) not in TUNE_SPACES:
            raise problem("one search space, " + " or ".join(f"{{{kind}: {form}}}"
                                                             for kind, form in TUNE_SPACES.items()))
        (kind, given), = written.items()
        bounds = f"{{{kind}: {TUNE_SPACES[kind]}}} with low < high, not {str(given)[:60]}"
        try:
            values = SPACE_VALUES[kind].validate_python(given if isinstance(given, list) else None)
        except ValidationError as exc:
            loc = exc.errors()[0]["loc"]
            if kind != "choice":
                raise problem(bounds) from None
            if not isinstance(given, list) or not loc:
                raise problem(f"{{choice: [value, ...]}} with one value at least, not {str(given)[:60]}") from None
            raise problem(f"{{choice: [value, ...]}} of numbers, text, true/false or null, not "
                          f"{str(given[loc[0]])[:60]}") from None
        if kind == "choice" and len({repr(value) for value in values}) != len(values):
            raise problem("{choice: [value, ...]} without a value twice")
        if kind != "choice" and not (all(map(math.isfinite, values)) and values[0] < values[1]
                                     and (kind != "log_uniform" or values[0] > 0)):
            raise problem(bounds)
        return handler({"kind": kind, "values": values})

    @model_serializer
    def _dump(self) -> dict:
        return {self.kind: list(self.values)}


class Recipe(Section):
    """A whole recipe: its name, the sections, and the search spaces of `attentive tune` (by setting,
    "section.key")."""

    OPTIONAL = frozenset({"description", "tune"})
    name: str = "recipe"
    description: str | None = None
    tokenizer: Tokenizer = Tokenizer()
    embedder: Embedder = Embedder()
    aspect: Switch = Switch()
    encoder: Part
    pooler: Part
    head: Part
    wide: Switch = Switch()
    train: Train = Train()
    tune: dict[str, SearchSpace] | None = None

    @model_validator(mode="after")
    def _part_options(self):
        from ..models.option_types import part_problems  # the parts' types and options, from their constructors

        for key, meaning in part_problems(self, shared=PART_OPTIONS):
            raise problem(meaning, key)
        return self

    def as_dict(self) -> dict:
        """The recipe as config.json stores it (and `load_recipe` reads back to an equal Recipe)."""
        return self.model_dump()

    def resolved(self, dim: int | None = None, encoder_config: dict | None = None) -> Recipe:
        """A new recipe with the word vectors' width `dim` (GloVe 6B is 50-d whatever the recipe said), the
        pretrained encoder's `encoder_config` (saved with the model: loading needs no package), and, where the
        recipe has a word table, each `d_model` setting (an encoder or head width, the learning-rate table) a
        number for that width."""
        embedder = self.embedder if dim is None else self.embedder.model_copy(update={"dim": dim})
        encoder = self.encoder if encoder_config is None else \
            self.encoder.model_copy(update={"config": encoder_config})
        head, train = self.head, self.train
        if embedder.type != "none":
            width = embedder.dim
            encoder, head = (part.model_copy(update={key: resolve_width(value, width)
                                                     for key, value in part.options.items()})
                             for part in (encoder, head))
            train = train.model_copy(update={"lr": resolve_rate(train.lr, width)})
        return self.model_copy(update={"embedder": embedder, "encoder": encoder, "head": head, "train": train})


def section_fields(section: str) -> tuple[str, ...]:
    """The keys a fixed section types (none for a part section: its options are its part's)."""
    model = model_of(Recipe.model_fields[section].annotation)
    return () if issubclass(model, Part) else tuple(model.model_fields)


def model_of(annotation) -> type[BaseModel] | None:
    """The model class a field holds (a section, the regulariser), None for a plain value."""
    members = typing.get_args(annotation) or (annotation,)
    return next((m for m in members if isinstance(m, type) and issubclass(m, BaseModel)), None)


def _key(name) -> str:
    """A recipe key as an error names it: as written, or escaped (`ascii`) where it holds a character that does not
    print, a line break among them, so that the error stays one line."""
    text = str(name)
    return text if text.isprintable() else ascii(text)


def first_problem(error: ValidationError) -> tuple[str, str]:
    """(the dotted key, what its value must be) of the first problem pydantic found in a recipe."""
    found = error.errors()[0]
    names, model, field = [], Recipe, None
    for name in found["loc"]:  # the fields down to the problem, without pydantic's union member tags
        if model is None or name not in model.model_fields:
            break
        names.append(name)
        field = model.model_fields[name]
        model = model_of(field.annotation)
    context = found.get("ctx") or {}
    if found["type"] == "recipe":
        return ".".join(map(_key, [*names, context["key"]] if context["key"] else names)), context["meaning"]
    from ..models.option_types import describe, left_out

    if found["type"] == "extra_forbidden":
        return ".".join(map(_key, found["loc"])), left_out(".".join(names), list(model.model_fields),
                                                           str(found["loc"][-1]))
    return ".".join(names), field.description or describe(field.annotation, field.metadata)
