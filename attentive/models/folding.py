"""A recurrence-free LAMA model folded for inference: what depends on one word alone is looked up, not computed.

With no encoder (the compact model: recipe `default`), the pooler reads the word vectors themselves, so a word's
state h_i = E[w_i] and its keys P^T tanh(W_w h_i + b_w) (LAMA paper Eq. 7 and 10) are functions of its vocabulary id.
`fold` computes both once, for every id, into two tables; the folded network gathers its rows from them and runs
only what depends on the whole text (the context vector, Eq. 10-15, the head and the n-gram channel). It answers what
the network answers (the same pooler code, given the looked-up keys) in less time per text, for one more table
of V x heads floats. `attentive export` writes the folded graph whenever
`fold` takes the network.
"""
from __future__ import annotations

import torch
from torch import nn

from .classifier import Output, TextClassifier, with_wide
from .embedders import WordEmbedder
from .encoders import IdentityEncoder
from .linearised import head_output
from .poolers import LamaPooler


class FoldedClassifier(nn.Module):
    """`network`'s answers for single texts, with the word vectors and the LAMA keys of every vocabulary id as
    tables (inference only: the tables are copies, and nothing here trains)."""

    def __init__(self, network: TextClassifier):
        super().__init__()
        with torch.no_grad():
            vectors = network.embedder.table.weight.detach().clone()  # dropout is off out of training
            keys = network.pooler.word_keys(vectors)
        self.vectors = nn.Embedding.from_pretrained(vectors)
        self.keys = nn.Embedding.from_pretrained(keys)
        self.pooler, self.head, self.wide = network.pooler, network.head, network.wide

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> Output:
        states = self.vectors(ids)  # padding as the identity encoder passes it on: every pooler masks it
        pooled = self.pooler(states, mask, keys=self.keys(ids))
        logits, hidden = head_output(self.head, pooled.vector)
        output = Output(logits, pooled.attention, pooled.scores, states=states, head_hidden=hidden)
        return with_wide(output, self.wide, ids, mask)


def fold(network: nn.Module) -> FoldedClassifier | None:
    """`network` folded (see the module's docstring), or None where folding does not apply: an encoder between the
    words and the pooler, another pooler than LAMA's, an embedder other than one table, aspects or text pairs."""
    if not (isinstance(network, TextClassifier) and type(network.encoder) is IdentityEncoder
            and type(network.embedder) is WordEmbedder and type(network.pooler) is LamaPooler
            and network.pooler.context in ("document", "global") and not network.is_pair
            and not network.uses_aspect):
        return None
    return FoldedClassifier(network)
