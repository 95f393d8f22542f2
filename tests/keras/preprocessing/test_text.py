"""tf.keras.preprocessing.text: word splitting, hashing, and the Tokenizer's vocabulary,
sequences, matrices and JSON round trip."""

import json

import numpy as np
import pytest

import tensorfleet as tf

text = tf.keras.preprocessing.text

TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "cat, dog; cat"]


def test_text_to_word_sequence_lowercases_filters_and_splits():
    assert text.text_to_word_sequence("Hello, World!  Foo-bar") == ["hello", "world", "foo",
                                                                     "bar"]
    assert text.text_to_word_sequence("a|b|C", split="|", lower=False) == ["a", "b", "C"]


def test_hashing_trick_ids_are_in_range_and_md5_is_stable():
    ids = text.hashing_trick("the quick brown fox the", 10, hash_function="md5")
    assert all(1 <= i < 10 for i in ids) and ids[0] == ids[-1]
    import hashlib
    assert ids[1] == int(hashlib.md5(b"quick").hexdigest(), 16) % 9 + 1
    assert len(text.one_hot("a b c", 5)) == 3
    with pytest.raises(ValueError, match="hash_function"):
        text.hashing_trick("a", 5, hash_function="sha1")


def test_tokenizer_ranks_words_by_count():
    tok = text.Tokenizer()
    tok.fit_on_texts(TEXTS)
    # "the" and "cat" appear 3 times; "the" was seen first
    assert tok.word_index["the"] == 1 and tok.word_index["cat"] == 2
    assert tok.document_count == 3 and tok.word_docs["cat"] == 2
    assert tok.texts_to_sequences(["the cat ate"]) == [[1, 2, tok.word_index["ate"]]]
    assert tok.sequences_to_texts([[1, 2]]) == ["the cat"]


def test_tokenizer_num_words_and_oov_token():
    tok = text.Tokenizer(num_words=3, oov_token="<unk>")
    tok.fit_on_texts(TEXTS)
    assert tok.word_index["<unk>"] == 1
    # only indices below num_words are kept; the rest become the oov index
    assert tok.texts_to_sequences(["the cat dog"]) == [[2, 1, 1]]


def test_sequences_to_matrix_modes():
    tok = text.Tokenizer(num_words=5)
    tok.fit_on_texts(TEXTS)
    seqs = [[1, 1, 2], []]
    np.testing.assert_array_equal(tok.sequences_to_matrix(seqs, "binary"),
                                  [[0, 1, 1, 0, 0], [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(tok.sequences_to_matrix(seqs, "count")[0], [0, 2, 1, 0, 0])
    np.testing.assert_allclose(tok.sequences_to_matrix(seqs, "freq")[0], [0, 2 / 3, 1 / 3, 0,
                                                                           0])
    tfidf = tok.sequences_to_matrix(seqs, "tfidf")[0]
    expected = (1 + np.log(2)) * np.log(1 + 3 / (1 + tok.index_docs[1]))
    assert tfidf[1] == pytest.approx(expected)
    assert tok.texts_to_matrix(["the the"], "count")[0, 1] == 2
    with pytest.raises(ValueError, match="Unknown vectorization mode"):
        tok.sequences_to_matrix(seqs, "bm25")
    with pytest.raises(ValueError, match="num_words"):
        text.Tokenizer().sequences_to_matrix(seqs)


def test_tokenizer_json_round_trip():
    tok = text.Tokenizer(num_words=4, oov_token="?")
    tok.fit_on_texts(TEXTS)
    back = text.tokenizer_from_json(tok.to_json())
    assert back.word_index == tok.word_index and back.num_words == 4
    assert back.texts_to_sequences(TEXTS) == tok.texts_to_sequences(TEXTS)
    assert json.loads(tok.to_json())["class_name"] == "Tokenizer"
    with pytest.raises(ValueError, match="not the JSON of a Tokenizer"):
        text.tokenizer_from_json("[1, 2]")
    with pytest.raises(TypeError, match="unrecognized keyword"):
        text.Tokenizer(nb_words=3)
