"""The standard collection names (``tf.GraphKeys``), shared by every layer that files
things into a graph's collections."""

from __future__ import annotations


class GraphKeys:
    """Standard collection names."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MODEL_VARIABLES = "model_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    GLOBAL_STEP = "global_step"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    SAVERS = "savers"
    CONCATENATED_VARIABLES = "concatenated_variables"
    TRAIN_OP = "train_op"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    EVAL_STEP = "eval_step"
    SAVEABLE_OBJECTS = "saveable_objects"
    METRIC_VARIABLES = "metric_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"
    ASSET_FILEPATHS = "asset_filepaths"


__all__ = ["GraphKeys"]
