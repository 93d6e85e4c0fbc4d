"""A model is embedder × encoder × pooler × head (the repository's DESIGN.md); `build_model` assembles one from a
recipe."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..errors import AttentiveError
from .aspects import AspectEmbedder, aspect_input
from .embedders import WordEmbedder
from .encoders import IdentityEncoder
from .heads import MLPHead
from .linearised import head_output
from .parts import Encoded, Encoder, Head, Pooler
from .registry import PARTS
from .wide import WIDE_TYPES, NgramChannel


@dataclass
class Output:
    logits: torch.Tensor  # B x classes
    attention: torch.Tensor | None  # B x heads x T, rows sum to 1 over real tokens, 0 on padding
    scores: torch.Tensor | None = None  # pre-softmax attention scores
    pair_attention: torch.Tensor | None = None  # the second text's attention, for pair models
    states: torch.Tensor | None = None  # the encoder's token vectors (B x T x D), for explanations
    wide_logits: torch.Tensor | None = None  # the n-gram channel's part of `logits` (attentive/models/wide.py)
    head_hidden: torch.Tensor | None = None  # an MLP head's hidden layer before its ReLU (single texts), and
    wide_scores: torch.Tensor | None = None  # each token's share of `wide_logits` (B x T x classes): for the
    #   linearised evidence (attentive/models/linearised.py)


EXACT, GRADIENT_X_INPUT = "exact", "gradient_x_input"


@dataclass
class Attribution:
    """Each word's signed evidence in the attention channel: how much it moved that channel's margin (its logit of
    `first` minus its logit of `second`, the labels the whole model ranks first and second). `method` is EXACT where
    the evidence sums to `margin` by construction, else GRADIENT_X_INPUT (an attribution that need not)."""

    evidence: torch.Tensor  # B x T, zero on padding
    margin: torch.Tensor  # B
    method: str


class TextClassifier(nn.Module):
    """`aspect` (optional) makes the aspect vector v_a that AE appends to the words and aspect poolers attend with;
    `wide` (optional, single texts) is a linear channel over n-grams whose class scores are added to the head's
    logits."""

    def __init__(self, embedder: nn.Module, encoder: Encoder, pooler: Pooler, head: Head,
                 aspect: AspectEmbedder | None = None, wide: NgramChannel | None = None):
        super().__init__()
        self.embedder, self.encoder, self.pooler, self.head = embedder, encoder, pooler, head
        self.aspect = aspect
        self.wide = wide

    @property
    def is_pair(self) -> bool:
        return self.head.takes_pair

    @property
    def uses_aspect(self) -> bool:
        return self.aspect is not None

    @property
    def frozen_below_head(self) -> bool:
        """Whether only the head learns: a frozen pretrained encoder (which runs without dropout) read by a pooler
        without parameters or dropout, single texts, no aspect. Each text's pooled vector then never changes, and
        training pools it once (attentive/training/frozen.py)."""
        return (self.encoder.freeze and not self.is_pair and not self.uses_aspect
                and not any(p.requires_grad for part in (self.embedder, self.encoder, self.pooler)
                            for p in part.parameters())
                and not any(isinstance(m, nn.Dropout) and m.p > 0
                            for part in (self.embedder, self.pooler) for m in part.modules()))

    def states(self, ids: torch.Tensor, mask: torch.Tensor, aspect: torch.Tensor | None = None) -> Encoded:
        """The encoder's vector of every token (B x T x D), and the attention its words received, if any."""
        words = self.embedder(ids)
        if aspect is not None and self.aspect.append_to_words:
            words = aspect_input(words, aspect)
        return self.encoder(words, mask)

    def word_polarity(self, states: torch.Tensor) -> torch.Tensor | None:
        """Each word's own push towards each class (B x T x classes): the logits the head gives when every head's
        attention rests on that word alone. For Sun & Lu's model (one head, bias-free linear head) this is exactly
        their polarity score s_j = h_j^T W, with logit = Σ_j α_j s_j. None for poolers whose output is not the
        attention-weighted sum of the states (max, mean, last state, aspect attention)."""
        if not self.pooler.pools_states or self.is_pair:
            return None
        return self.head(states.repeat(1, 1, self.pooler.heads))

    @property
    def exact_evidence(self) -> bool:
        """Whether the attention channel's logits split exactly over the words: no context (identity encoder), a
        pooled vector that is each head's attention-weighted sum of the word vectors (M = A H), and a linear head
        (an MLP head without a hidden layer). Then logit_k = Σ_j Σ_h α_hj W_hk·h_j + b_k, and word j's part is
        Σ_h α_hj (W_hk·h_j + b_k / heads): with one head, Sun & Lu's weight × polarity α_j s_j."""
        return (isinstance(self.encoder, IdentityEncoder) and self.pooler.pools_states and not self.is_pair
                and not self.uses_aspect and isinstance(self.head, MLPHead) and len(self.head.net) == 2)

    def attribution(self, inputs: dict, out: Output) -> Attribution | None:
        """The attention channel's per-word evidence for the margin of the label `out.logits` ranks first over the
        one it ranks second (see Attribution): exact where `exact_evidence`, else gradient × input on the word vectors
        (the margin differentiated by each word vector, dotted with it). None where there are no word vectors (an
        encoder that reads token ids)."""
        deep = out.logits if out.wide_logits is None else out.logits - out.wide_logits
        order = torch.sort(out.logits.detach().float(), dim=-1, descending=True, stable=True).indices
        first, second = order[:, :1], order[:, 1:2] if order.shape[1] > 1 else order[:, :1]
        margin = (deep.gather(1, first) - deep.gather(1, second)).squeeze(1).detach()
        mask = inputs["mask"]
        if self.exact_evidence and out.attention is not None and out.states is not None:
            return Attribution(self._exact_parts(out.states, out.attention, first, second) * mask, margin, EXACT)
        if not isinstance(self.embedder, WordEmbedder):
            return None
        # cuDNN's RNN backward refuses a network in eval mode (answers are computed so, without dropout): the
        # gradient pass of a recurrent encoder on a GPU runs on PyTorch's own RNN kernels instead
        with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):
            aspect = self._aspect_vector(inputs.get("aspect_ids"), inputs.get("aspect_mask"))
            words = self.embedder(inputs["ids"]).detach().requires_grad_()
            given = aspect_input(words, aspect) if aspect is not None and self.aspect.append_to_words else words
            pooled = self.pool_states(self.encoder(given, mask), mask, aspect)
            if self.is_pair:
                pair = self.pool_states(self.states(inputs["pair_ids"], inputs["pair_mask"]), inputs["pair_mask"])
                logits = self.head(pooled.vector, pair.vector)
            else:
                logits = self.head(pooled.vector)
            (grad,) = torch.autograd.grad((logits.gather(1, first) - logits.gather(1, second)).sum(), words)
        return Attribution(((grad * words).sum(-1) * mask).detach(), margin, GRADIENT_X_INPUT)

    def _exact_parts(self, states: torch.Tensor, attention: torch.Tensor, first: torch.Tensor,
                     second: torch.Tensor) -> torch.Tensor:
        """B x T: each word's part of the linear head's margin (see `exact_evidence`)."""
        linear = self.head.net[-1]
        weight = linear.weight  # classes (1 for the sigmoid form) x heads*D
        bias = linear.bias if linear.bias is not None else weight.new_zeros(weight.shape[0])
        if self.head.sigmoid:  # the logits are (0, s)
            weight, bias = torch.cat([torch.zeros_like(weight), weight]), torch.cat([bias.new_zeros(1), bias])
        heads = attention.shape[1]
        weight = weight.view(weight.shape[0], heads, -1)
        per_head = torch.einsum("btd,khd->bthk", states.float(), weight.float())  # W_hk · h_j
        parts = torch.einsum("bht,bthk->btk", attention.float(), per_head) \
            + attention.float().sum(1).unsqueeze(-1) * bias.float() / heads
        index = lambda k: k.unsqueeze(1).expand(-1, parts.shape[1], -1)  # noqa: E731
        return (parts.gather(2, index(first)) - parts.gather(2, index(second))).squeeze(2)

    def pool(self, ids: torch.Tensor, mask: torch.Tensor, aspect: torch.Tensor | None = None):
        return self.pool_states(self.states(ids, mask, aspect), mask, aspect)

    def pool_states(self, encoded: Encoded, mask: torch.Tensor, aspect: torch.Tensor | None = None):
        return self.pooler(encoded.states, mask, aspect=aspect, received=encoded.received)

    @torch.no_grad()
    def initialise(self, ids: torch.Tensor, mask: torch.Tensor, aspect_ids: torch.Tensor | None = None,
                   aspect_mask: torch.Tensor | None = None, **_pairs) -> None:
        """Give the parts their data-dependent starting values from a first batch of training texts (see
        Pooler.initialise); run once by the training pipeline before training, in eval mode (no dropout)."""
        was_training = self.training
        self.eval()
        aspect = self._aspect_vector(aspect_ids, aspect_mask)
        self.pooler.initialise(self.states(ids, mask, aspect).states, mask)
        self.train(was_training)

    def _aspect_vector(self, aspect_ids: torch.Tensor | None, aspect_mask: torch.Tensor | None):
        if not self.uses_aspect:
            return None
        if aspect_ids is None:
            raise AttentiveError("this model classifies a text with respect to an aspect: give one")
        word_table = self.embedder.table if isinstance(self.embedder, WordEmbedder) else None
        return self.aspect(aspect_ids, aspect_mask, word_table)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, pair_ids: torch.Tensor | None = None,
                pair_mask: torch.Tensor | None = None, aspect_ids: torch.Tensor | None = None,
                aspect_mask: torch.Tensor | None = None) -> Output:
        """Logits and attention of single texts, or of (text, pair) through one shared encoder (Lin et al. App. B),
        or of (text, aspect)."""
        aspect = self._aspect_vector(aspect_ids, aspect_mask)
        encoded = self.states(ids, mask, aspect)
        if pair_ids is None:
            pooled = self.pool_states(encoded, mask, aspect)
            logits, hidden = head_output(self.head, pooled.vector)
            output = Output(logits, pooled.attention, pooled.scores, states=encoded.states, head_hidden=hidden)
            return with_wide(output, self.wide, ids, mask)
        pair_encoded = self.states(pair_ids, pair_mask)
        pooled, pair = self.pool_states(encoded, mask, aspect), self.pool_states(pair_encoded, pair_mask)
        return Output(self.head(pooled.vector, pair.vector), pooled.attention, pooled.scores, pair.attention)



def with_wide(output: Output, wide: NgramChannel | None, ids: torch.Tensor, mask: torch.Tensor) -> Output:
    """`output` with the n-gram channel's logits over `ids` added to its logits (and kept as `wide_logits`), when the
    model has the channel."""
    if wide is not None:
        scores = wide.word_scores(ids, mask)  # its forward: the scores summed over the tokens
        logits = scores.sum(1)
        output.logits, output.wide_logits, output.wide_scores = output.logits + logits, logits, scores
    return output


def _aspect_part(section, aspects: int, word_dim: int | None) -> AspectEmbedder | None:
    if section.type in ("none", "ignore"):
        return None
    if section.type == "words" and word_dim is None:
        raise AttentiveError("aspect type 'words' needs the model's own word vectors (an embedder)")
    return AspectEmbedder(section.type, aspects=aspects, word_dim=word_dim or 0, **section.options)


def build_model(recipe, vocab_size: int, classes: int, vectors: np.ndarray | None = None,
                aspects: int = 0) -> TextClassifier:
    """Assemble the model a recipe (a recipe_types.Recipe, checked when it was loaded) describes. `vectors`
    (vocab_size x dim) initialises the embedding table; `aspects` is the number of aspect categories a learned aspect
    table holds. Settings the recipe gives in terms of d_model (the word-vector size) are read from
    `recipe.resolved(dim)`, a new recipe: the caller's is left as it is."""
    emb = recipe.embedder
    if emb.type == "none":  # the encoder takes token ids itself (a pretrained Transformer)
        embedder, dim = nn.Identity(), None
    else:
        dim = vectors.shape[1] if vectors is not None else emb.dim
        embedder = WordEmbedder(vocab_size, dim, dropout=emb.dropout, initial=vectors, trainable=emb.trainable)
        recipe = recipe.resolved(dim=dim)
    aspect = _aspect_part(recipe.aspect, aspects, dim)
    pooler_options = recipe.pooler.options
    pooler_type = PARTS["pooler"][recipe.pooler.type]
    if pooler_type.wants_aspect(pooler_options):
        if aspect is None:
            raise AttentiveError("this pooler attends with the aspect: the recipe needs an aspect section "
                                 "(aspect.type learned or words)")
        pooler_options["aspect_dim"] = aspect.output_dim
    try:
        encoder_input = dim + aspect.output_dim if aspect is not None and aspect.append_to_words else dim
        encoder = PARTS["encoder"][recipe.encoder.type](encoder_input, **recipe.encoder.options)
        pooler = pooler_type(encoder.output_dim, **pooler_options)
        head_type = PARTS["head"][recipe.head.type]
        rows = {"rows": pooler.heads} if head_type.needs_rows else {}  # it reads M = A H row by row
        head = head_type(pooler.output_dim, classes, **rows, **recipe.head.options)
        wide = _wide_part(recipe.wide, vocab_size, classes, head)
    except TypeError as exc:  # an option a part taking any keyword (`**options`) does not understand
        raise AttentiveError(f"recipe option not understood: {exc}") from None
    except ValueError as exc:  # a part's own check of its options
        raise AttentiveError(f"recipe: {exc}") from None
    return TextClassifier(embedder, encoder, pooler, head, aspect, wide)


def _wide_part(section, vocab_size: int, classes: int, head: Head) -> NgramChannel | None:
    if WIDE_TYPES[section.type] is None:
        return None
    if head.takes_pair:
        raise AttentiveError(f"wide.type {section.type} reads a single text: pair recipes take none")
    if section.options.get("prior") and not (isinstance(head, MLPHead) and head.net[-1].bias is not None):
        raise AttentiveError("wide.prior needs an MLP head with a bias (head.type mlp): the linear model's "
                             "intercept is added to it")
    return WIDE_TYPES[section.type](vocab_size, classes, **section.options)
