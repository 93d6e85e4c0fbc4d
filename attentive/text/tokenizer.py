"""Word-level tokenizer built with HF `tokenizers`, saved beside the model as `tokenizer.json`.

Lower-cases (configurable), splits on word characters vs punctuation, and keeps words seen at least
`min_frequency` times in the training texts (5 in the LAMA paper, §4.3). Id 0 is padding, id 1 unknown.
"""
from __future__ import annotations

from collections.abc import Iterable

from tokenizers import Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordLevel
from tokenizers.trainers import WordLevelTrainer

PAD, UNK = "[PAD]", "[UNK]"
PAD_ID, UNK_ID = 0, 1


def build_tokenizer(texts: Iterable[str], min_frequency: int = 5, lowercase: bool = True,
                    max_vocab: int | None = None) -> Tokenizer:
    """Learn the vocabulary of `texts`: words with at least `min_frequency` occurrences."""
    tokenizer = Tokenizer(WordLevel(unk_token=UNK))
    steps = [normalizers.NFKC(), normalizers.Replace("\ufeff", " ")]
    if lowercase:
        steps.append(normalizers.Lowercase())
    tokenizer.normalizer = normalizers.Sequence(steps)
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = WordLevelTrainer(
        vocab_size=(max_vocab + 2) if max_vocab else 10**9,
        min_frequency=min_frequency,
        special_tokens=[PAD, UNK],
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return tokenizer


def words_of(tokenizer: Tokenizer, text: str) -> list[str]:
    """The normalised words of `text` before vocabulary lookup (what word2vec is trained on)."""
    normalized = tokenizer.normalizer.normalize_str(text)
    return [word for word, _ in tokenizer.pre_tokenizer.pre_tokenize_str(normalized)]

