"""``tf.feature_column``: feature columns, ``input_layer``, ``linear_model``."""

from tensorfleet.feature_column.base import (  # noqa: F401
    CategoricalColumn, DenseColumn, FeatureColumn, FeatureTransformationCache)
from tensorfleet.feature_column.categorical import (  # noqa: F401
    categorical_column_with_hash_bucket, categorical_column_with_identity,
    categorical_column_with_vocabulary_file, categorical_column_with_vocabulary_list,
    crossed_column, weighted_categorical_column)
from tensorfleet.feature_column.dense import (  # noqa: F401
    bucketized_column, embedding_column, indicator_column, numeric_column,
    shared_embedding_columns)
from tensorfleet.feature_column.layers import (  # noqa: F401
    input_layer, linear_model, make_parse_example_spec)
from tensorfleet.feature_column.sequence import (  # noqa: F401
    sequence_categorical_column_with_hash_bucket, sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list, sequence_numeric_column)

__all__ = ["numeric_column", "bucketized_column", "categorical_column_with_hash_bucket",
           "categorical_column_with_vocabulary_list", "categorical_column_with_vocabulary_file",
           "categorical_column_with_identity", "crossed_column", "weighted_categorical_column",
           "embedding_column", "shared_embedding_columns", "indicator_column", "input_layer",
           "linear_model", "make_parse_example_spec",
           "sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column"]
