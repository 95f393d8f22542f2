"""``tf.keras.preprocessing.text``: splitting text into words, hashing words to ids, and
the ``Tokenizer`` that learns a vocabulary and turns texts into sequences or matrices."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict, defaultdict
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

import numpy as np

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'
_MAX_JSON_BYTES = 1 << 30


def text_to_word_sequence(input_text: str, filters: str = _FILTERS, lower: bool = True,
                          split: str = " ") -> List[str]:
    """The words of ``input_text``: lowercased (``lower``), the characters of ``filters``
    replaced by ``split``, split on ``split``, empty pieces dropped."""
    if lower:
        input_text = input_text.lower()
    table = str.maketrans({c: split for c in filters})
    return [w for w in input_text.translate(table).split(split) if w]


def hashing_trick(text: str, n: int, hash_function: Any = None, filters: str = _FILTERS,
                  lower: bool = True, split: str = " ", analyzer: Any = None) -> List[int]:
    """Each word of ``text`` as an id in ``[1, n)``: ``hash_function(word) % (n - 1) + 1``.

    ``hash_function`` is Python's ``hash`` when ``None`` (not stable between runs),
    ``'md5'`` for a stable hash, or a function of a string.

    Raises:
      ValueError: an unknown ``hash_function`` name.
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(w: str) -> int:
            return int(hashlib.md5(w.encode()).hexdigest(), 16)
    elif not callable(hash_function):
        raise ValueError(f"hashing_trick: hash_function must be None, 'md5' or a function, "
                         f"got {hash_function!r}")
    words = (text_to_word_sequence(text, filters=filters, lower=lower, split=split)
             if analyzer is None else analyzer(text))
    return [hash_function(w) % (n - 1) + 1 for w in words]


def one_hot(input_text: str, n: int, filters: str = _FILTERS, lower: bool = True,
            split: str = " ", analyzer: Any = None) -> List[int]:
    """Each word of ``input_text`` as an id in ``[1, n)`` by Python's ``hash`` (the
    ``hashing_trick`` with its default hash: ids differ between runs)."""
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower,
                         split=split, analyzer=analyzer)


class Tokenizer:
    """A vocabulary learned from texts (``fit_on_texts``), ranked by word count: the most
    frequent word gets index 1. Turns texts into sequences of word indices or into
    ``binary``/``count``/``tfidf``/``freq`` matrices; only the ``num_words - 1`` most
    frequent words are kept when ``num_words`` is set."""

    def __init__(self, num_words: Optional[int] = None, filters: str = _FILTERS,
                 lower: bool = True, split: str = " ", char_level: bool = False,
                 oov_token: Optional[str] = None, analyzer: Optional[Callable] = None,
                 document_count: int = 0, **kwargs: Any):
        if kwargs:
            raise TypeError(f"Tokenizer: unrecognized keyword arguments {sorted(kwargs)}")
        self.word_counts: "OrderedDict[str, int]" = OrderedDict()
        self.word_docs: Dict[str, int] = defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs: Dict[int, int] = defaultdict(int)
        self.word_index: Dict[str, int] = {}
        self.index_word: Dict[int, str] = {}
        self.analyzer = analyzer

    def _words(self, text: Any) -> List[str]:
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return list(text)
        if self.analyzer is None:
            return text_to_word_sequence(text, filters=self.filters, lower=self.lower,
                                         split=self.split)
        return self.analyzer(text)

    def fit_on_texts(self, texts: Iterable[Any]) -> None:
        """Counts the words of ``texts`` (strings, or lists of words) and ranks them."""
        for text in texts:
            self.document_count += 1
            seq = self._words(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        ranked = sorted(self.word_counts.items(), key=lambda kv: kv[1], reverse=True)
        vocab = ([self.oov_token] if self.oov_token is not None else []) + [w for w, _ in ranked]
        self.word_index = {w: i for i, w in enumerate(vocab, start=1)}
        self.index_word = {i: w for w, i in self.word_index.items()}
        self.index_docs = defaultdict(int)
        for w, c in self.word_docs.items():
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences: Iterable[Sequence[int]]) -> None:
        """Counts, for ``sequences_to_matrix``'s ``tfidf``, the documents each index is in."""
        for seq in sequences:
            self.document_count += 1
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts: Iterable[Any]) -> List[List[int]]:
        """Each text as the list of its words' indices."""
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts: Iterable[Any]):
        """``texts_to_sequences``, one text at a time."""
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for text in texts:
            out = []
            for w in self._words(text):
                i = self.word_index.get(w)
                if i is not None and not (self.num_words and i >= self.num_words):
                    out.append(i)
                elif oov is not None:
                    out.append(oov)
            yield out

    def sequences_to_texts(self, sequences: Iterable[Sequence[int]]) -> List[str]:
        """Each sequence of indices back as words joined by spaces."""
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences: Iterable[Sequence[int]]):
        """``sequences_to_texts``, one sequence at a time."""
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for seq in sequences:
            words = []
            for i in seq:
                w = self.index_word.get(i)
                if w is not None and not (self.num_words and i >= self.num_words):
                    words.append(w)
                elif oov is not None:
                    words.append(self.index_word[oov])
            yield " ".join(words)

    def texts_to_matrix(self, texts: Iterable[Any], mode: str = "binary") -> np.ndarray:
        """``sequences_to_matrix`` of the texts' sequences."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences: Sequence[Sequence[int]],
                            mode: str = "binary") -> np.ndarray:
        """A ``[len(sequences), num_words]`` matrix: per row, for each index, 1 if present
        (``binary``), its count (``count``), its share of the row (``freq``) or its
        tf-idf (``tfidf``).

        Raises:
          ValueError: an unknown ``mode``, no ``num_words`` and no fitted vocabulary, or
            ``tfidf`` before fitting.
        """
        if mode not in ("binary", "count", "tfidf", "freq"):
            raise ValueError(f"Unknown vectorization mode: {mode}")
        if self.num_words:
            num_words = self.num_words
        elif self.word_index:
            num_words = len(self.word_index) + 1
        else:
            raise ValueError("Specify a dimension (`num_words` argument), or fit on some "
                             "text data first.")
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts: Dict[int, int] = defaultdict(int)
            for j in seq:
                if j < num_words:
                    counts[j] += 1
            for j, c in counts.items():
                if mode == "count":
                    x[i, j] = c
                elif mode == "freq":
                    x[i, j] = c / len(seq)
                elif mode == "binary":
                    x[i, j] = 1
                else:
                    tf = 1 + np.log(c)
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i, j] = tf * idf
        return x

    def get_config(self) -> Dict[str, Any]:
        """The tokenizer's settings and learned counts (JSON-serialisable)."""
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower,
                "split": self.split, "char_level": self.char_level,
                "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts),
                "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs),
                "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self, **kwargs: Any) -> str:
        """The tokenizer as JSON, for ``tokenizer_from_json``."""
        return json.dumps({"class_name": self.__class__.__name__,
                           "config": self.get_config()}, **kwargs)


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """The ``Tokenizer`` that ``Tokenizer.to_json`` wrote.

    Raises:
      ValueError: the JSON is not a tokenizer's, or is too large.
    """
    if len(json_string) > _MAX_JSON_BYTES:
        raise ValueError("tokenizer_from_json: the JSON is larger than 1 GiB")
    data = json.loads(json_string)
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        raise ValueError("tokenizer_from_json: not the JSON of a Tokenizer (no 'config')")
    config = dict(data["config"])
    learned = {k: json.loads(config.pop(k, "{}")) for k in
               ("word_counts", "word_docs", "index_docs", "word_index", "index_word")}
    try:
        tok = Tokenizer(**config)
    except TypeError as e:
        raise ValueError(f"tokenizer_from_json: {e}") from None
    tok.word_counts = OrderedDict(learned["word_counts"])
    tok.word_docs = defaultdict(int, learned["word_docs"])
    tok.index_docs = defaultdict(int, {int(k): v for k, v in learned["index_docs"].items()})
    tok.word_index = dict(learned["word_index"])
    tok.index_word = {int(k): v for k, v in learned["index_word"].items()}
    return tok


__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence",
           "tokenizer_from_json"]
