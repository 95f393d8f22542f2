"""``tf.losses``: weighted, reduced losses that register themselves in a collection.

Every loss function computes a per-element loss, multiplies it by ``weights``
(a scalar or a tensor that broadcasts to the loss), reduces it as
``reduction`` says and adds the result to ``loss_collection`` (None skips
that), so ``get_total_loss`` can later sum everything a model defined.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (GraphKeys, Tensor, add_to_collection,
                                         convert_to_tensor, get_collection, name_scope)
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.losses_pairwise_ops import mean_pairwise_squared_error  # noqa: F401


class Reduction:
    """How a weighted per-element loss becomes the returned loss."""

    NONE = "none"
    """No reduction: the weighted loss has the shape of the unreduced loss."""
    SUM = "weighted_sum"
    """Sum of the weighted losses."""
    MEAN = "weighted_mean"
    """Sum of the weighted losses divided by the sum of the (broadcast) weights."""
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    """Sum of the weighted losses divided by the number of loss elements."""
    SUM_OVER_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    """Sum of the weighted losses divided by the count of non-zero weights."""
    SUM_BY_NONZERO_WEIGHTS = SUM_OVER_NONZERO_WEIGHTS
    """Alias of ``SUM_OVER_NONZERO_WEIGHTS`` (the default of every loss here)."""

    @classmethod
    def all(cls) -> List[str]:
        """Every valid reduction."""
        return [cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS]

    @classmethod
    def validate(cls, key: str) -> None:
        """Raises ValueError if ``key`` is not one of ``all()``."""
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key!r}; expected one of {cls.all()}")


_DEFAULT = Reduction.SUM_BY_NONZERO_WEIGHTS


# -- collection helpers ----------------------------------------------------------------------

def add_loss(loss: Any, loss_collection: Optional[str] = GraphKeys.LOSSES) -> None:
    """Adds ``loss`` to ``loss_collection`` (nothing happens if that is None)."""
    if loss_collection is not None:
        add_to_collection(loss_collection, loss)


def get_losses(scope: Optional[str] = None,
               loss_collection: str = GraphKeys.LOSSES) -> List[Tensor]:
    """The losses in ``loss_collection`` whose names match the regex ``scope``."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope: Optional[str] = None) -> List[Tensor]:
    """The regularization losses (from variable regularizers) matching ``scope``."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope: Optional[str] = None,
                            name: str = "total_regularization_loss") -> Tensor:
    """The sum of the regularization losses matching ``scope``, or 0.0 if none."""
    losses = get_regularization_losses(scope)
    if losses:
        return M.add_n(losses, name=name)
    return convert_to_tensor(0.0, dtype=_dtypes.float32, name=name)


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: Optional[str] = None) -> Tensor:
    """The sum of the losses in ``GraphKeys.LOSSES`` plus, by default, the
    regularization losses.

    Raises:
      ValueError: if there is no loss to sum.
    """
    losses = list(get_losses(scope))
    if add_regularization_losses:
        losses += get_regularization_losses(scope)
    if not losses:
        raise ValueError("get_total_loss: no losses found in the LOSSES (or "
                         "REGULARIZATION_LOSSES) collection")
    return M.add_n(losses, name=name)


# -- weighting and reduction ---------------------------------------------------------------

def _safe_div(num: Tensor, den: Tensor) -> Tensor:
    # All-zero weights make the loss 0 rather than NaN; the inner where keeps the
    # gradient of the untaken division finite as well.
    positive = M.greater(den, 0)
    safe_den = A.where(positive, den, A.ones_like(den))
    return A.where(positive, M.truediv(num, safe_den), A.zeros_like(num))


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: Optional[str] = None,
                          loss_collection: Optional[str] = GraphKeys.LOSSES,
                          reduction: str = _DEFAULT) -> Tensor:
    """Multiplies ``losses`` by ``weights`` and reduces them as ``reduction`` says.

    Raises:
      ValueError: for an unknown reduction or weights that cannot broadcast.
    """
    Reduction.validate(reduction)
    with name_scope(scope, default_name="weighted_loss"):
        loss = convert_to_tensor(losses)
        if not loss.dtype.is_floating:
            loss = A.cast(loss, _dtypes.float32)
        w = A.cast(convert_to_tensor(weights), loss.dtype)
        _check_weights(w, loss)
        weighted = M.multiply(loss, w)
        if reduction == Reduction.NONE:
            out = weighted
        else:
            total = M.reduce_sum(weighted)
            if reduction == Reduction.SUM:
                out = total
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                out = _safe_div(total, A.cast(A.size(loss), loss.dtype))
            else:
                # Weights are broadcast to the loss's shape so a per-example weight
                # counts once for each loss element it applies to.
                full_w = M.multiply(w, A.ones_like(loss))
                if reduction == Reduction.MEAN:
                    den = M.reduce_sum(full_w)
                else:
                    den = A.cast(M.count_nonzero(full_w), loss.dtype)
                out = _safe_div(total, den)
        add_loss(out, loss_collection)
        return out


def _check_weights(w: Tensor, loss: Tensor) -> None:
    ws, ls = w.shape, loss.shape
    if ws.ndims is None or ls.ndims is None or ws.ndims == 0:
        return
    if ws.ndims > ls.ndims:
        raise ValueError(f"weights of shape {ws} have a higher rank than the loss of "
                         f"shape {ls}")
    for wd, ld in zip(reversed(ws.as_list()), reversed(ls.as_list())):
        if wd is not None and ld is not None and wd not in (1, ld):
            raise ValueError(f"weights of shape {ws} cannot be broadcast to the loss of "
                             f"shape {ls}")


def _pair(labels: Any, predictions: Any, fname: str) -> tuple:
    if labels is None:
        raise ValueError(f"{fname}: labels must not be None")
    if predictions is None:
        raise ValueError(f"{fname}: predictions (or logits) must not be None")
    p = convert_to_tensor(predictions)
    if not p.dtype.is_floating:
        p = A.cast(p, _dtypes.float32)
    lab = A.cast(convert_to_tensor(labels), p.dtype)
    if not p.shape.is_compatible_with(lab.shape):
        raise ValueError(f"{fname}: labels of shape {lab.shape} do not match predictions "
                         f"of shape {p.shape}")
    return lab, p


# -- losses --------------------------------------------------------------------------------

def absolute_difference(labels: Any, predictions: Any, weights: Any = 1.0,
                        scope: Optional[str] = None,
                        loss_collection: Optional[str] = GraphKeys.LOSSES,
                        reduction: str = _DEFAULT) -> Tensor:
    """Weighted ``|predictions - labels|``.

    Raises:
      ValueError: if labels and predictions have incompatible shapes.
    """
    with name_scope(scope, default_name="absolute_difference"):
        lab, p = _pair(labels, predictions, "absolute_difference")
        return compute_weighted_loss(M.abs(M.subtract(p, lab)), weights, None,
                                     loss_collection, reduction)


def mean_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                       scope: Optional[str] = None,
                       loss_collection: Optional[str] = GraphKeys.LOSSES,
                       reduction: str = _DEFAULT) -> Tensor:
    """Weighted ``(predictions - labels) ** 2``.

    Raises:
      ValueError: if labels and predictions have incompatible shapes.
    """
    with name_scope(scope, default_name="mean_squared_error"):
        lab, p = _pair(labels, predictions, "mean_squared_error")
        return compute_weighted_loss(M.squared_difference(p, lab), weights, None,
                                     loss_collection, reduction)


def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: float = 1.0,
               scope: Optional[str] = None,
               loss_collection: Optional[str] = GraphKeys.LOSSES,
               reduction: str = _DEFAULT) -> Tensor:
    """Weighted Huber loss: quadratic for errors up to ``delta``, linear beyond.

    Raises:
      ValueError: if labels and predictions have incompatible shapes.
    """
    with name_scope(scope, default_name="huber_loss"):
        lab, p = _pair(labels, predictions, "huber_loss")
        err = M.abs(M.subtract(p, lab))
        quad = M.minimum(err, delta)
        lin = M.subtract(err, quad)
        per = M.add(M.multiply(0.5, M.square(quad)), M.multiply(delta, lin))
        return compute_weighted_loss(per, weights, None, loss_collection, reduction)


def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: float = 1e-7,
             scope: Optional[str] = None,
             loss_collection: Optional[str] = GraphKeys.LOSSES,
             reduction: str = _DEFAULT) -> Tensor:
    """Weighted binary cross entropy of probabilities ``predictions``.

    Raises:
      ValueError: if labels and predictions have incompatible shapes.
    """
    with name_scope(scope, default_name="log_loss"):
        lab, p = _pair(labels, predictions, "log_loss")
        pos = M.multiply(lab, M.log(M.add(p, epsilon)))
        neg = M.multiply(M.subtract(1.0, lab), M.log(M.add(M.subtract(1.0, p), epsilon)))
        return compute_weighted_loss(M.negative(M.add(pos, neg)), weights, None,
                                     loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: Optional[str] = None,
                          loss_collection: Optional[str] = GraphKeys.LOSSES,
                          reduction: str = _DEFAULT) -> Tensor:
    """Weighted sigmoid cross entropy; ``label_smoothing`` pulls labels towards 0.5.

    Raises:
      ValueError: if labels and logits have incompatible shapes.
    """
    with name_scope(scope, default_name="sigmoid_cross_entropy_loss"):
        lab, x = _pair(multi_class_labels, logits, "sigmoid_cross_entropy")
        if label_smoothing:
            lab = M.add(M.multiply(lab, 1.0 - label_smoothing), 0.5 * label_smoothing)
        per = N.sigmoid_cross_entropy_with_logits(labels=lab, logits=x)
        return compute_weighted_loss(per, weights, None, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: Optional[str] = None,
                          loss_collection: Optional[str] = GraphKeys.LOSSES,
                          reduction: str = _DEFAULT) -> Tensor:
    """Weighted softmax cross entropy of [batch, classes] ``logits`` against one-hot
    labels; ``weights`` is a scalar or has one entry per example.

    With ``label_smoothing`` s the labels become ``labels * (1 - s) + s / classes``.
    No gradient flows into the labels.

    Raises:
      ValueError: if labels and logits have incompatible shapes, or the number of
        classes is unknown while label smoothing is asked for.
    """
    with name_scope(scope, default_name="softmax_cross_entropy_loss"):
        lab, x = _pair(onehot_labels, logits, "softmax_cross_entropy")
        if label_smoothing:
            n = x.shape[-1] if x.shape.ndims else None
            if n is None:
                raise ValueError("softmax_cross_entropy: label_smoothing needs the number of "
                                 f"classes to be known, got logits of shape {x.shape}")
            lab = M.add(M.multiply(lab, 1.0 - label_smoothing), label_smoothing / int(n))
        per = N.softmax_cross_entropy_with_logits_v2(labels=A.stop_gradient(lab), logits=x)
        return compute_weighted_loss(per, weights, None, loss_collection, reduction)


def sparse_softmax_cross_entropy(labels: Any, logits: Any, weights: Any = 1.0,
                                 scope: Optional[str] = None,
                                 loss_collection: Optional[str] = GraphKeys.LOSSES,
                                 reduction: str = _DEFAULT) -> Tensor:
    """Weighted softmax cross entropy of ``logits`` against integer class ``labels``
    (shape of ``logits`` without its last axis).

    Raises:
      ValueError: if the ranks of labels and logits do not fit.
      TypeError: for labels that are not integers.
    """
    with name_scope(scope, default_name="sparse_softmax_cross_entropy_loss"):
        if labels is None or logits is None:
            raise ValueError("sparse_softmax_cross_entropy: labels and logits must be given")
        lab = convert_to_tensor(labels)
        if not lab.dtype.is_integer:
            raise TypeError(f"sparse_softmax_cross_entropy: labels must be integers, got "
                            f"{lab.dtype.name} ({lab.name})")
        if lab.dtype not in (_dtypes.int32, _dtypes.int64):
            lab = A.cast(lab, _dtypes.int64)
        per = N.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=logits)
        return compute_weighted_loss(per, weights, None, loss_collection, reduction)


def cosine_distance(labels: Any, predictions: Any, axis: Optional[int] = None,
                    weights: Any = 1.0, scope: Optional[str] = None,
                    loss_collection: Optional[str] = GraphKeys.LOSSES,
                    reduction: str = _DEFAULT, dim: Optional[int] = None) -> Tensor:
    """Weighted ``1 - sum(labels * predictions, axis)``, the cosine distance of inputs
    that are already unit-normalised along ``axis`` (kept as a size-1 dimension).

    Raises:
      ValueError: no ``axis`` (or its old name ``dim``), both given and different, or
        incompatible shapes.
    """
    if axis is not None and dim is not None and axis != dim:
        raise ValueError(f"cosine_distance: axis={axis} and dim={dim} disagree; give one")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with name_scope(scope, default_name="cosine_distance_loss"):
        lab, p = _pair(labels, predictions, "cosine_distance")
        dot = M.reduce_sum(M.multiply(p, lab), axis=(axis,), keepdims=True)
        return compute_weighted_loss(M.subtract(1.0, dot), weights, None, loss_collection,
                                     reduction)


def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: Optional[str] = None,
               loss_collection: Optional[str] = GraphKeys.LOSSES,
               reduction: str = _DEFAULT) -> Tensor:
    """Weighted ``max(0, 1 - y * logits)`` with ``y = 2 * labels - 1``: labels are 0 or 1.

    Raises:
      ValueError: if labels and logits have incompatible shapes.
    """
    with name_scope(scope, default_name="hinge_loss"):
        lab, lg = _pair(labels, logits, "hinge_loss")
        signs = M.subtract(M.multiply(2.0, lab), 1.0)
        return compute_weighted_loss(N.relu(M.subtract(1.0, M.multiply(signs, lg))), weights,
                                     None, loss_collection, reduction)


__all__ = ["Reduction", "add_loss", "get_losses", "get_regularization_losses",
           "get_regularization_loss", "get_total_loss", "compute_weighted_loss",
           "absolute_difference", "mean_squared_error", "huber_loss", "log_loss",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy",
           "cosine_distance", "hinge_loss"]
__all__ += ["mean_pairwise_squared_error"]
