"""``tf.contrib.feature_column``: sequence feature columns and the layer that reads them
into an RNN's ``[batch, T, size]`` input."""

from tensorfleet.feature_column.sequence import (  # noqa: F401
    sequence_categorical_column_with_hash_bucket, sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list, sequence_input_layer,
    sequence_numeric_column)

__all__ = ["sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_input_layer",
           "sequence_numeric_column"]
