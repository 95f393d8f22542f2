"""``tf.keras.preprocessing.text``: words of a text, hashed word ids, and the
``Tokenizer``."""

from tensorfleet.keras.preprocessing.text import (Tokenizer, hashing_trick, one_hot,
    text_to_word_sequence, tokenizer_from_json)

__all__ = ["hashing_trick", "one_hot", "text_to_word_sequence", "Tokenizer",
           "tokenizer_from_json"]
