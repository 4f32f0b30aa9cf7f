"""Vocabulary layers: StringLookup and IntegerLookup (a value -> its index in a vocabulary, unknown values
to the out-of-vocabulary index) and TextVectorization (text -> standardized words -> indices). `adapt` builds
the vocabulary from data, most frequent first (ties in reverse order of the values, as Keras sorts them)."""

from __future__ import annotations

import collections
import re
from typing import Any

import numpy as np

from minitf.keras.layers.preprocessing import NumpyPreprocessing, encode, encoded_shape, hash_bins

_PUNCTUATION = re.compile(r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')


def _data_values(data: Any) -> list[Any]:
    """Every value of `data` (an array, a list, or a tf.data.Dataset of batches), flattened."""
    if hasattr(data, "element_spec"):
        return [v for batch in data for v in np.asarray(batch).reshape(-1).tolist()]
    return np.asarray(data).reshape(-1).tolist()


class IndexLookup(NumpyPreprocessing):
    """The shared machinery: special tokens first (mask, then out-of-vocabulary), then the vocabulary."""

    def __init__(
        self,
        max_tokens: int | None,
        num_oov_indices: int,
        mask_token: Any,
        oov_token: Any,
        vocabulary: Any,
        invert: bool,
        output_mode: str,
        pad_to_max_tokens: bool,
        sparse: bool,
        idf_weights: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(
                f"minitf's lookup layers take output_mode 'int', 'one_hot', 'multi_hot' or 'count'; "
                f"Received: output_mode={output_mode}"
            )
        if sparse or idf_weights is not None:
            raise ValueError("minitf's lookup layers leave out sparse outputs and TF-IDF weights")
        self.max_tokens, self.num_oov_indices, self.mask_token, self.oov_token = (
            max_tokens,
            num_oov_indices,
            mask_token,
            oov_token,
        )
        self.invert, self.output_mode, self.pad_to_max_tokens, self.sparse = (
            invert,
            output_mode,
            pad_to_max_tokens,
            sparse,
        )
        self.idf_weights = idf_weights
        self._vocabulary: list[Any] = []
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)
        self.output_dtype = "int64"  # the counts of the other modes too, as Keras returns them

    def _masks(self) -> bool:
        """Only integer outputs keep a place (index 0) for the mask token."""
        return self.mask_token is not None and self.output_mode == "int"

    def _special(self) -> list[Any]:
        mask = [self.mask_token] if self._masks() else []
        return mask + [self.oov_token] * self.num_oov_indices

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        values = [self._plain(v) for v in _data_values(vocabulary)]
        self._vocabulary = [v for v in values if v not in (self.mask_token, self.oov_token)]

    def _plain(self, value: Any) -> Any:
        return value.decode() if isinstance(value, bytes) else value

    def adapt(self, data: Any, steps: int | None = None) -> None:
        counts = collections.Counter(self._plain(v) for v in self._adapt_values(data))
        counts.pop(self.mask_token, None)
        ranked = [token for token, _ in sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)]
        if self.max_tokens is not None:
            ranked = ranked[: self.max_tokens - len(self._special())]
        self._vocabulary = ranked

    def _adapt_values(self, data: Any) -> list[Any]:
        return _data_values(data)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[Any]:
        return (self._special() if include_special_tokens else []) + list(self._vocabulary)

    def vocabulary_size(self) -> int:
        return len(self.get_vocabulary())

    def _indices(self, values: np.ndarray) -> np.ndarray:
        index = {token: i + len(self._special()) for i, token in enumerate(self._vocabulary)}
        first_oov = 1 if self._masks() else 0
        out = np.empty(values.shape, dtype="int64")
        for position, value in np.ndenumerate(values):
            value = self._plain(value)
            if self._masks() and value == self.mask_token:
                out[position] = 0
            elif value in index:
                out[position] = index[value]
            else:
                out[position] = first_oov + (self._oov_bucket(value) if self.num_oov_indices > 1 else 0)
        return out

    def _oov_bucket(self, value: Any) -> int:
        return int(value) % self.num_oov_indices

    def _compute(self, values: np.ndarray) -> np.ndarray:
        if self.invert:
            vocabulary = np.array(self.get_vocabulary(), dtype=object)
            return vocabulary[values.astype("int64")]
        indices = self._indices(values)
        if self.output_mode == "int":
            return indices
        depth = self.max_tokens if self.pad_to_max_tokens and self.max_tokens else self.vocabulary_size()
        return encode(indices, depth, self.output_mode, "int64")

    def compute_output_shape(self, input_shape: Any) -> Any:
        return encoded_shape(input_shape, self.output_mode, self.max_tokens or self.vocabulary_size())

    def _vocabulary_config(self, oov_method: str) -> dict[str, Any]:
        """Keras writes the vocabulary's size, not the vocabulary (that is saved with the weights)."""
        return {
            "idf_weights": None,
            "vocabulary": None,
            "vocabulary_size": self.vocabulary_size(),
            "oov_method": oov_method,
            "salt": getattr(self, "salt", None),
        }

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "invert": self.invert,
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "oov_token": self.oov_token,
            "mask_token": self.mask_token,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "pad_to_max_tokens": self.pad_to_max_tokens,
        }


class StringLookup(IndexLookup):
    """Strings -> integer indices (or back, with `invert=True`)."""

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: str | None = None,
        oov_token: str = "[UNK]",
        vocabulary: Any = None,
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        pad_to_max_tokens: bool = False,
        sparse: bool = False,
        encoding: str = "utf-8",
        name: str | None = None,
        salt: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            max_tokens,
            num_oov_indices,
            mask_token,
            oov_token,
            vocabulary,
            invert,
            output_mode,
            pad_to_max_tokens,
            sparse,
            idf_weights,
            name=name,
            **kwargs,
        )
        self.encoding, self.salt = encoding, salt
        if invert:
            self.output_dtype = "string"

    def _oov_bucket(self, value: Any) -> int:
        return int(hash_bins(np.array([str(value).encode()], dtype=object), self.num_oov_indices)[0])

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), **self._vocabulary_config("floormod"), "encoding": self.encoding}


class IntegerLookup(IndexLookup):
    """Integers (ids, codes) -> consecutive indices (or back, with `invert=True`)."""

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: int | None = None,
        oov_token: int = -1,
        vocabulary: Any = None,
        vocabulary_dtype: str = "int64",
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        sparse: bool = False,
        pad_to_max_tokens: bool = False,
        oov_method: str = "floormod",
        salt: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            max_tokens,
            num_oov_indices,
            mask_token,
            oov_token,
            vocabulary,
            invert,
            output_mode,
            pad_to_max_tokens,
            sparse,
            idf_weights,
            name=name,
            **kwargs,
        )
        self.vocabulary_dtype, self.oov_method, self.salt = vocabulary_dtype, oov_method, salt
        if invert:
            self.output_dtype = vocabulary_dtype

    def _plain(self, value: Any) -> Any:
        return int(value) if value is not None else None

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "vocabulary_dtype": self.vocabulary_dtype,
            **self._vocabulary_config(self.oov_method),
        }


class TextVectorization(StringLookup):
    """Text -> lowercase words without punctuation -> indices (0 pads, 1 is unknown), padded or cut to
    `output_sequence_length`."""

    def __init__(
        self,
        max_tokens: int | None = None,
        standardize: Any = "lower_and_strip_punctuation",
        split: Any = "whitespace",
        ngrams: Any = None,
        output_mode: str = "int",
        output_sequence_length: int | None = None,
        pad_to_max_tokens: bool = False,
        vocabulary: Any = None,
        idf_weights: Any = None,
        sparse: bool = False,
        ragged: bool = False,
        encoding: str = "utf-8",
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if ngrams is not None or ragged:
            raise ValueError("minitf's TextVectorization leaves out ngrams and ragged outputs")
        self.standardize, self.split, self.ngrams, self.ragged = standardize, split, ngrams, ragged
        self.output_sequence_length = output_sequence_length
        super().__init__(
            max_tokens=max_tokens,
            mask_token="",
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens,
            sparse=sparse,
            encoding=encoding,
            name=name,
            **kwargs,
        )

    def _words(self, text: Any) -> list[str]:
        text = self._plain(text)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            text = text.lower()
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            text = _PUNCTUATION.sub("", text)
        elif callable(self.standardize):
            text = self._plain(np.asarray(self.standardize(text)).item())
        if self.split is None:
            return [text]
        if self.split == "character":
            return list(text)
        return text.split()

    def _adapt_values(self, data: Any) -> list[Any]:
        return [word for text in _data_values(data) for word in self._words(text)]

    def _compute(self, values: np.ndarray) -> np.ndarray:
        texts = values.reshape(-1)
        words = [self._words(text) for text in texts]
        if self.output_mode != "int":
            rows = [encode(self._indices(np.array(w, dtype=object)), self._depth(), self.output_mode) for w in words]
            return np.stack(rows).astype("int64")
        length = self.output_sequence_length or max([len(w) for w in words] + [0])
        out = np.zeros((len(words), length), dtype="int64")
        for row, row_words in enumerate(words):
            indices = self._indices(np.array(row_words[:length], dtype=object))
            out[row, : len(indices)] = indices
        return out

    def _depth(self) -> int:
        return self.max_tokens if self.pad_to_max_tokens and self.max_tokens else self.vocabulary_size()

    def compute_output_shape(self, input_shape: Any) -> Any:
        batch = tuple(input_shape)[0] if len(tuple(input_shape)) else None
        if self.output_mode == "int":
            return (batch, self.output_sequence_length)
        return (batch, self.max_tokens or self.vocabulary_size())

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": super().get_config()["dtype"],
            "max_tokens": self.max_tokens,
            "standardize": self.standardize,
            "split": self.split,
            "ngrams": self.ngrams,
            "output_mode": self.output_mode,
            "output_sequence_length": self.output_sequence_length,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "sparse": self.sparse,
            "ragged": self.ragged,
            "vocabulary": None,
            "idf_weights": None,
            "encoding": self.encoding,
            "vocabulary_size": self.vocabulary_size(),
        }
