"""From the user's texts to the network's items, without PyTorch: shared by both backends (`Answerer`), so that they
check and encode in exactly one way. The answers are built from the network's numbers in attentive/answer/outputs.py.

`Inputs` knows what a model takes (single texts or pairs, aspects by category or by their words, its tokenizer,
truncation length and special tokens) and turns texts into `Item`s (attentive/text/encoding.py).

Every text is checked on its own (`text_problem`): a string, not blank, and valid Unicode (no lone surrogate, which
is what an undecodable byte of a command-line argument or a `\\ud800` escape in JSON becomes), so that a bad text is
its own one-line error naming it, before it is batched with others. A caller that has checked them already, as
`attentive predict` checks each line it reads and the server each request, says so (`Checked`) and `expand` does not
check them again.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Flag

from tokenizers import Encoding, Tokenizer

from ..errors import AttentiveError
from ..text.encoding import IdsAndWords, Item, encode, encode_batch, truncated_ids
from ..text.tokenizer import UNK_ID
from ..util.checks import as_list, texts_argument, unicode_problem
from ..util.spelling import listed


class Checked(Flag):
    """What the caller of `Inputs.expand` has checked already, so that it is not checked twice."""

    NOTHING = 0
    TEXTS = 1  # each text and second text, by `text_problem` (attentive predict's reading, the server's validation)
    ASPECTS = 2  # each aspect's Unicode, by `unicode_problem` (the server's validation)


class Expanded(list):
    """Texts, one per answer, as `Inputs.expand` gives them (checked), holding what it gives beside them: each one's
    second text (`pairs`, None for a single-text model) and aspect (`aspects`, None each for a model without).
    `Answerer`'s predict, predict_proba and explain take them in place of texts, and answer them as they are."""

    def __init__(self, texts: list[str], pairs: list[str] | None, aspects: list):
        super().__init__(texts)
        self.pairs, self.aspects = pairs, aspects


@dataclass
class Inputs:
    tokenizer: Tokenizer
    is_pair: bool
    uses_aspect: bool
    aspects: list[str]  # the categories a learned-aspect model knows ([] for aspect terms and other models)
    aspect_type: str  # none | ignore | learned | words
    max_length: int | None
    special_tokens: bool

    def aspect_ids(self, aspects: Sequence[str | None]) -> list[list[int]] | None:
        """Each aspect, checked (`check_aspects`), as ids (`_encoded_aspects`)."""
        self.check_aspects(aspects)
        return self._encoded_aspects(aspects)

    def check_aspects(self, aspects: Sequence[str | None], unicode: bool = True) -> None:
        """An AttentiveError unless, for a model that uses aspects, each aspect is a non-blank string, of valid
        Unicode (unless `unicode` is False: the caller checked that) and one of the model's categories where it
        has them."""
        if not self.uses_aspect:
            return
        if any(not isinstance(a, str) or not a.strip() for a in aspects):
            raise AttentiveError("this model classifies a text with respect to an aspect: give one for every text")
        if unicode:
            check_unicode(aspects, "aspect")
        unknown = sorted({a for a in aspects if a not in self.aspects}) if self.aspect_type != "words" else []
        if unknown:
            raise AttentiveError(f"unknown aspect(s) {listed(unknown)}; this model knows {listed(self.aspects)}")

    def _encoded_aspects(self, aspects: Sequence[str]) -> list[list[int]] | None:
        """Each checked aspect as ids: its index in the model's categories (from 1), or its word ids for open-ended
        aspects."""
        if not self.uses_aspect:
            return None
        if self.aspect_type == "words":
            return [enc.ids or [UNK_ID] for enc in self.tokenizer.encode_batch(list(aspects))]
        index = {name: i for i, name in enumerate(self.aspects, start=1)}
        return [[index[a]] for a in aspects]

    def expand(self, texts, pairs=None, aspects=None,
               checked: Checked = Checked.NOTHING) -> tuple[list[str], list[str] | None, list]:
        """(texts, pairs, aspects), one of each per answer: a single string is one text; a single aspect applies to
        every text; an aspect model given none answers for each category it knows (text-major order), and a model
        without aspects takes none. A pair model needs a second text for every text, and a single-text model takes
        none. The texts and second texts are taken as `util.checks.texts_argument` takes them (a string or a list of
        strings), and each text, second text and aspect is checked, here and nowhere else on the answer path
        (`check_texts`, `check_aspects`): a bad one is an AttentiveError naming it; what the caller has `checked`
        already is not checked again."""
        texts, pairs = texts_argument(texts), None if pairs is None else texts_argument(pairs, "pairs")
        texts = [texts] if isinstance(texts, str) else texts
        if Checked.TEXTS not in checked:
            check_texts(texts)
        pairs = [pairs] if isinstance(pairs, str) else pairs
        if self.is_pair and pairs is None:
            raise AttentiveError("this model classifies text pairs: give a second text (--pair) for every text")
        if not self.is_pair and pairs is not None:
            raise AttentiveError("this model classifies single texts: it takes no second text")
        if pairs is not None and Checked.TEXTS not in checked:
            check_texts(pairs, "second text")
        if isinstance(aspects, str):
            aspects = [aspects] * len(texts)
        elif aspects is not None:
            aspects = as_list(aspects, "aspects")
        if not self.uses_aspect and aspects is not None and any(a is not None for a in aspects):
            raise AttentiveError("this model classifies texts without an aspect: give no aspects")
        if self.uses_aspect and aspects is None:
            if not self.aspects:
                raise AttentiveError("this model takes open-ended aspects: give the aspect of each text (--aspect)")
            repeat = len(self.aspects)
            texts, aspects = [t for t in texts for _ in range(repeat)], [a for _ in texts for a in self.aspects]
            pairs = None if pairs is None else [p for p in pairs for _ in range(repeat)]
        if aspects is not None and len(aspects) != len(texts):
            raise AttentiveError(f"{len(aspects)} aspects for {len(texts)} texts: give one per text")
        if pairs is not None and len(pairs) != len(texts):
            raise AttentiveError(f"{len(pairs)} second texts for {len(texts)} texts: give one per text")
        aspects = list(aspects) if aspects is not None else [None] * len(texts)
        self.check_aspects(aspects, unicode=Checked.ASPECTS not in checked)
        return texts, pairs, aspects

    def items(self, texts: list[str], pairs: list[str] | None, aspects: list, offsets: bool = True,
              words: bool = False) -> tuple[list[Item], list[Encoding | IdsAndWords]]:
        """The items to feed the network, and the first texts' encodings (for their words' character offsets, which
        only explanations need: without `offsets` the encodings hold ids alone); `texts`, `pairs` and `aspects` as
        `expand` returns them (one of each per answer, checked there and not here). A text longer than the model
        reads is tokenized only as far as it reads (attentive.text.encoding.encode_batch). With `words` (predict's
        top words) a text of the fast lane's encoding holds its whole words alone (`IdsAndWords`)."""
        encodings = encode_batch(self.tokenizer, texts, self.max_length, self.special_tokens, offsets, words)
        ids = truncated_ids(encodings, self.max_length)
        second = encode(self.tokenizer, pairs, self.max_length, self.special_tokens) if pairs is not None \
            else [None] * len(ids)
        aspect_ids = self._encoded_aspects(aspects) or [None] * len(ids)
        return [Item(*parts) for parts in zip(ids, second, aspect_ids)], encodings


def text_problem(text) -> str | None:
    """Why `text` cannot be classified ("empty: nothing to classify"), or None: it is not a string, is blank, or is
    not valid Unicode (a lone surrogate: an undecodable byte of a command-line argument, or a `\\ud800` escape in
    JSON; UTF-8 cannot encode it and the tokenizer refuses it)."""
    if not isinstance(text, str):
        return f"not a string but {type(text).__name__}"
    if not text.strip():
        return "empty: nothing to classify"
    return unicode_problem(text)


def check_texts(texts: Sequence, what: str = "text") -> list:
    """`texts`, or an AttentiveError naming the first bad one ("text 2 is empty: nothing to classify")."""
    for number, text in enumerate(texts, start=1):
        problem = text_problem(text)
        if problem is not None:
            raise AttentiveError(f"{what} {number} is {problem}")
    return texts


def check_unicode(names: Sequence, what: str) -> None:
    """An AttentiveError naming the first string of `names` (aspects) that is not valid Unicode; other values pass
    (they are checked where their meaning is known)."""
    for number, name in enumerate(names, start=1):
        problem = unicode_problem(name) if isinstance(name, str) else None
        if problem is not None:
            raise AttentiveError(f"{what} {number} is {problem}")
