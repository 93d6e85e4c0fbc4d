"""Readers, one small module per file format. Each returns `list[Example]`, or `Rows` where it may drop rows."""
from attentive.data.readers._common import Rows
from attentive.data.readers.generic import read_table
from attentive.data.readers.imdb import read_imdb, read_imdb_train_dev
from attentive.data.readers.label_files import read_label_file, read_label_folder
from attentive.data.readers.label_first import read_label_tab, read_stsa
from attentive.data.readers.labelled_jsonl import (
    TWEETEVAL_LABELS,
    read_in_scope,
    read_labelled_jsonl,
    read_out_of_scope,
)
from attentive.data.readers.news import read_news, read_news_splits
from attentive.data.readers.ptb_trees import read_ptb_trees
from attentive.data.readers.semeval14 import read_semeval14_categories, read_semeval14_terms
from attentive.data.readers.semeval2013 import read_semeval2013
from attentive.data.readers.sick import read_sick

__all__ = [
    "TWEETEVAL_LABELS",
    "Rows",
    "read_imdb",
    "read_imdb_train_dev",
    "read_in_scope",
    "read_label_file",
    "read_label_folder",
    "read_label_tab",
    "read_labelled_jsonl",
    "read_news",
    "read_news_splits",
    "read_out_of_scope",
    "read_ptb_trees",
    "read_semeval14_categories",
    "read_semeval14_terms",
    "read_semeval2013",
    "read_sick",
    "read_stsa",
    "read_table",
]
