"""The ids every vocabulary reserves: 0 is padding, 1 the unknown word. The tokenizer (text/) writes them and the
networks (models/) read them; they live here, below both, so that neither imports the other for them."""
PAD_ID, UNK_ID = 0, 1
