"""Unlabelled in-domain sentences for distilling the SST students (issue 33): sentences cut from the 50,000
unlabelled IMDB reviews (`imdb_unsup`, Maas et al. 2011: the same domain, film reviews, as SST's Rotten Tomatoes
snippets), written the way SST writes its text (lower case, Penn Treebank tokens: `does n't`, `-lrb-`), so that a
transfer sentence looks to the teacher and the student like a training sentence. Tang et al. (2019, §3.2) enlarge the
transfer set by augmentation alone; this adds real text of the domain beside the augmentations.

    python -m benchmarks.product.deploy.transfer_sentences --n 100000 --out runs/transfer/imdb-sentences-100k.jsonl

Seeded: the same `--n` and `--seed` give the same file. No labels are read.
"""
from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import attentive
from benchmarks.harness.common import write_text

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
PTB_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
CLITIC = re.compile(r"(\w)('s|'re|'ve|'ll|'d|'m)\b")
NEGATION = re.compile(r"(\w)(n't)\b")
PUNCTUATION = re.compile(r"([^\w\s'-]|--)")


def ptb_tokens(sentence: str) -> str:
    """`sentence` lower-cased and split as SST's text is: punctuation, clitics and n't apart, brackets spelt."""
    text = NEGATION.sub(r"\1 \2", CLITIC.sub(r"\1 \2", sentence.lower()))
    text = PUNCTUATION.sub(r" \1 ", text)
    return " ".join(PTB_BRACKETS.get(token, token) for token in text.split())


def review_sentences(review: str, shortest: int, longest: int) -> list[str]:
    """The review's sentences of `shortest` to `longest` tokens, HTML line breaks removed."""
    sentences = (ptb_tokens(part) for part in SENTENCE_END.split(review.replace("<br />", " ")))
    return [s for s in sentences if shortest <= len(s.split()) <= longest]


def movie_sentences(n: int, seed: int = 0, shortest: int = 4, longest: int = 50) -> list[str]:
    """`n` distinct sentences drawn (seeded) from the unlabelled IMDB reviews."""
    reviews = [ex.text for ex in attentive.load_dataset("imdb_unsup").splits["train"]]
    unique = list(dict.fromkeys(s for review in reviews for s in review_sentences(review, shortest, longest)))
    if n > len(unique):
        raise SystemExit(f"imdb_unsup holds {len(unique)} distinct sentences of {shortest}-{longest} tokens, "
                         f"not {n}")
    return random.Random(seed).sample(unique, n)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    sentences = movie_sentences(args.n, args.seed)
    write_text(args.out, "".join(json.dumps({"text": s}) + "\n" for s in sentences))
    print(f"{len(sentences)} sentences -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
