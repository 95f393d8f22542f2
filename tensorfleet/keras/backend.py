"""``tf.keras.backend``: the Keras session, the learning phase and small helpers.

Keras runs in the default graph. ``get_session()`` returns the default session
when one is active for that graph, otherwise a session the backend keeps for the
graph; either way it first initializes the variables Keras made that are not
initialized yet, so that ``tf.Session`` code and Keras code mix as in TF 1.x.
Per-graph state (layer-name counters, the learning-phase placeholder, the
variables to initialize) lives in one ``_GraphState`` per graph.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from typing import Any, Dict, Iterator, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Graph, GraphKeys, Tensor, convert_to_tensor,
                                         get_default_graph, reset_default_graph)
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.gradients.gradients_impl import gradients as _gradients
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import random_ops as R
from tensorfleet.ops import state_ops as S
from tensorfleet.ops import variables as V
from tensorfleet.runtime.session import Session, get_default_session
from tensorfleet.training import moving_averages as _ma
from tensorfleet.keras.backend_math import *  # noqa: F401,F403  (K.mean, K.sum ...)
from tensorfleet.keras.backend_nn import *  # noqa: F401,F403  (K.conv2d, K.rnn ...)
from tensorfleet.keras.backend_tensor import *  # noqa: F401,F403  (K.batch_dot ...)

logger = logging.getLogger(__name__)

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"


class _GraphState:
    """What the backend remembers about one graph."""

    def __init__(self) -> None:
        self.uids: Dict[str, int] = {}
        self.learning_phase: Optional[Tensor] = None
        self.fixed_phase: Optional[int] = None
        self.variables: List[Any] = []
        self.init_checks: Dict[int, Tensor] = {}
        self.assigns: Dict[int, Any] = {}
        self.checked: "weakref.WeakKeyDictionary[Any, set]" = weakref.WeakKeyDictionary()


_MANUAL_INIT = {"on": False}


_STATES: "weakref.WeakKeyDictionary[Graph, _GraphState]" = weakref.WeakKeyDictionary()
_SESSION: Dict[str, Any] = {"session": None}


def _state(graph: Optional[Graph] = None) -> _GraphState:
    g = graph or get_default_graph()
    st = _STATES.get(g)
    if st is None:
        st = _STATES[g] = _GraphState()
    return st


# -- names ---------------------------------------------------------------------------------

def get_uid(prefix: str = "") -> int:
    """The next number (1, 2, ...) for ``prefix`` in the default graph."""
    st = _state()
    st.uids[prefix] = st.uids.get(prefix, 0) + 1
    return st.uids[prefix]


def reset_uids() -> None:
    """Restarts the layer-name counters of the default graph."""
    _state().uids.clear()


def unique_object_name(prefix: str, zero_based: bool = True) -> str:
    """``prefix``, then ``prefix_1``, ``prefix_2`` ... (``prefix_1`` first if not zero_based)."""
    n = get_uid(prefix) - (1 if zero_based else 0)
    return prefix if n == 0 else f"{prefix}_{n}"


# -- configuration -------------------------------------------------------------------------

def floatx() -> str:
    """The default float type name (``'float32'``)."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Sets the default float type: ``'float16'``, ``'float32'`` or ``'float64'``."""
    global _FLOATX
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value!r}")
    _FLOATX = str(value)


def epsilon() -> float:
    """The fuzz factor used to keep logs and divisions finite (``1e-7``)."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Sets the fuzz factor returned by ``epsilon()``."""
    global _EPSILON
    _EPSILON = float(value)


def image_data_format() -> str:
    """``'channels_last'``: the only layout this backend's image layers support."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Only ``'channels_last'`` is accepted: the convolution kernels here are NHWC."""
    if data_format != "channels_last":
        raise ValueError(f"Only 'channels_last' is supported, got {data_format!r}")


# -- learning phase ------------------------------------------------------------------------

def learning_phase() -> Any:
    """The learning phase: a bool placeholder (default False, fed True while training),
    or the 0/1 fixed by ``set_learning_phase``."""
    st = _state()
    if st.fixed_phase is not None:
        return st.fixed_phase
    if st.learning_phase is None:
        g = get_default_graph()
        with g.control_dependencies(None), g.name_scope(""):
            st.learning_phase = A.placeholder_with_default(False, shape=(),
                                                           name="keras_learning_phase")
    return st.learning_phase


def symbolic_learning_phase() -> Tensor:
    """The learning-phase placeholder itself, whatever ``set_learning_phase`` fixed."""
    st = _state()
    fixed, st.fixed_phase = st.fixed_phase, None
    try:
        return learning_phase()
    finally:
        st.fixed_phase = fixed


def learning_phase_feed(training: bool) -> Dict[Any, bool]:
    """The feed that sets the learning-phase placeholder of the default graph (empty
    when no layer uses it or the phase is fixed)."""
    st = _state()
    if st.fixed_phase is not None or st.learning_phase is None:
        return {}
    return {st.learning_phase: bool(training)}


def set_learning_phase(value: int) -> None:
    """Fixes the learning phase of the default graph to 0 (test) or 1 (train)."""
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _state().fixed_phase = int(value)


# -- session -------------------------------------------------------------------------------

def track_variable(v: Any) -> None:
    """Records ``v`` so that ``get_session()`` initializes it when needed."""
    _state(v.op.graph).variables.append(v)


def _initialize_variables(session: Any) -> None:
    st = _state(session.graph)
    # Each session holds its own variable values: what was checked is kept per session.
    checked = st.checked.get(session)
    if checked is None:
        checked = st.checked[session] = set()
    todo = [v for v in st.variables if id(v) not in checked]
    if not todo:
        return
    checks = []
    with session.graph.as_default():
        for v in todo:
            t = st.init_checks.get(id(v))
            if t is None:
                t = st.init_checks[id(v)] = V.is_variable_initialized(v)
            checks.append(t)
    done = session.run(checks)
    checked.update(id(v) for v in todo)
    fresh = [v for v, ok in zip(todo, done) if not ok]
    if fresh:
        session.run([v.initializer for v in fresh])


def get_session() -> Any:
    """The session Keras runs in: the default session when one is active for the
    default graph, else one kept by the backend; its uninitialized Keras variables
    are initialized first."""
    g = get_default_graph()
    sess = get_default_session()
    if sess is None or sess.graph is not g:
        sess = _SESSION["session"]
        if sess is None or sess.graph is not g or sess.closed:
            sess = _SESSION["session"] = Session(graph=g)
    if not _MANUAL_INIT["on"]:
        _initialize_variables(sess)
    return sess


def set_session(session: Any) -> None:
    """Makes ``session`` the one ``get_session()`` returns for its graph."""
    _SESSION["session"] = session


def clear_session() -> None:
    """Drops the Keras session and resets the default graph (and so every name counter)."""
    sess = _SESSION["session"]
    if sess is not None and not sess.closed:
        sess.close()
    _SESSION["session"] = None
    reset_default_graph()


# -- tensors and variables -----------------------------------------------------------------

def _dtype(dtype: Any) -> _dtypes.DType:
    return _dtypes.as_dtype(dtype if dtype is not None else _FLOATX)


def placeholder(shape: Any = None, ndim: Optional[int] = None, dtype: Any = None,
                sparse: bool = False, name: Optional[str] = None) -> Tensor:
    """A placeholder of ``shape`` (or of rank ``ndim``), dtype ``floatx()`` by default."""
    if sparse:
        raise ValueError("placeholder: sparse=True is not supported")
    if shape is None and ndim is not None:
        shape = (None,) * int(ndim)
    return A.placeholder(_dtype(dtype), shape=shape, name=name)


def variable(value: Any, dtype: Any = None, name: Optional[str] = None,
             constraint: Any = None) -> Any:
    """A variable holding ``value``, initialized by ``get_session()``."""
    arr = np.asarray(value, dtype=_dtype(dtype).as_numpy_dtype)
    v = V.Variable(arr, name=name or "Variable", constraint=constraint)
    track_variable(v)
    return v


def is_keras_tensor(x: Any) -> bool:
    """Whether ``x`` is a tensor produced by a Keras layer or ``Input``."""
    return isinstance(x, Tensor) and hasattr(x, "_keras_history")


def int_shape(x: Any) -> Optional[tuple]:
    """The static shape of ``x`` as a tuple of ints and None (None for unknown rank)."""
    shape = x.get_shape() if hasattr(x, "get_shape") else TensorShape(np.shape(x))
    if shape.ndims is None:
        return None
    return tuple(shape.as_list())


def ndim(x: Any) -> Optional[int]:
    """The rank of ``x`` (None when unknown)."""
    return x.get_shape().ndims


def dtype(x: Any) -> str:
    """The dtype name of ``x`` (``'float32'``...)."""
    return x.dtype.base_dtype.name


def get_value(x: Any) -> Any:
    """The current value of a variable or tensor, as numpy, from ``get_session()``."""
    return get_session().run(x)


def eval(x: Any) -> Any:  # noqa: A001  (the Keras name)
    """The value of ``x`` (``get_value``)."""
    return get_value(x)


def batch_get_value(tensors: Sequence[Any]) -> List[Any]:
    """The values of several tensors or variables in one run."""
    return get_session().run(list(tensors)) if tensors else []


def set_value(x: Any, value: Any) -> None:
    """Assigns the numpy ``value`` to variable ``x``."""
    batch_set_value([(x, value)])


def batch_set_value(tuples: Sequence[Any]) -> None:
    """Assigns several ``(variable, value)`` pairs in one run.

    The assign op and its placeholder are made once per variable and reused.
    """
    if not tuples:
        return
    sess = get_session()
    ops, feed = [], {}
    for x, value in tuples:
        st = _state(x.op.graph)
        pair = st.assigns.get(id(x))
        if pair is None:
            with x.op.graph.as_default(), x.op.graph.control_dependencies(None):
                ph = A.placeholder(x.dtype.base_dtype, shape=x.get_shape())
                pair = st.assigns[id(x)] = (ph, S.assign(x, ph))
        arr = np.asarray(value, dtype=x.dtype.base_dtype.as_numpy_dtype)
        if not pair[0].shape.is_compatible_with(TensorShape(arr.shape)):
            raise ValueError(f"set_value: value of shape {arr.shape} does not fit variable "
                             f"{x.name} of shape {x.get_shape()}")
        ops.append(pair[1])
        feed[pair[0]] = arr
    sess.run(ops, feed_dict=feed)


def shape(x: Any) -> Tensor:
    """The dynamic shape of ``x`` as an int32 tensor."""
    return A.shape(convert_to_tensor(x))


class Function:
    """``backend.function``: runs ``outputs`` (and ``updates``) from fed ``inputs``."""

    def __init__(self, inputs: Sequence[Tensor], outputs: Sequence[Any],
                 updates: Optional[Sequence[Any]] = None, name: Optional[str] = None):
        self.inputs = list(inputs)
        self.outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        self._single = not isinstance(outputs, (list, tuple))
        self.updates = list(updates or [])
        self.name = name

    def __call__(self, inputs: Sequence[Any]) -> Any:
        """Values of the outputs for the numpy ``inputs`` (one per input tensor)."""
        if len(inputs) != len(self.inputs):
            raise ValueError(f"Function expects {len(self.inputs)} inputs, got {len(inputs)}")
        feed = {t: v for t, v in zip(self.inputs, inputs)}
        out = get_session().run(self.outputs + self.updates, feed_dict=feed)
        res = out[:len(self.outputs)]
        return res[0] if self._single else res


def function(inputs: Sequence[Tensor], outputs: Any, updates: Any = None,
             name: Optional[str] = None, **kwargs: Any) -> Function:
    """A callable that feeds ``inputs`` and returns the values of ``outputs``."""
    if kwargs:
        raise ValueError(f"function: unsupported arguments {sorted(kwargs)}")
    return Function(inputs, outputs, updates=updates, name=name)



def manual_variable_initialization(value: bool) -> None:
    """With ``True``, ``get_session()`` stops initializing the Keras variables (the
    program runs the initializers itself)."""
    _MANUAL_INIT["on"] = bool(value)


# -- learning-phase control ----------------------------------------------------------------

@contextlib.contextmanager
def learning_phase_scope(value: int) -> Iterator[None]:
    """Fixes the learning phase to ``value`` (0 or 1) inside the block, then restores it."""
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    st = _state()
    before, st.fixed_phase = st.fixed_phase, int(value)
    try:
        yield
    finally:
        st.fixed_phase = before


def switch(condition: Any, then_expression: Any, else_expression: Any) -> Tensor:
    """``then_expression`` where ``condition`` holds, else ``else_expression``: a scalar
    condition picks a branch (callables are called in their branch), a tensor condition
    selects elementwise."""
    if isinstance(condition, (bool, int, np.bool_)):
        chosen = then_expression if condition else else_expression
        return chosen() if callable(chosen) else convert_to_tensor(chosen)
    cond = convert_to_tensor(condition)
    if cond.dtype != _dtypes.bool:
        cond = A.cast(cond, _dtypes.bool)
    if cond.shape.ndims == 0:
        then_fn = then_expression if callable(then_expression) else (lambda: then_expression)
        else_fn = else_expression if callable(else_expression) else (lambda: else_expression)
        return CF.cond(cond, then_fn, else_fn)
    then_t = convert_to_tensor(then_expression() if callable(then_expression)
                               else then_expression)
    else_t = convert_to_tensor(else_expression() if callable(else_expression)
                               else else_expression)
    if cond.shape.ndims is not None and then_t.shape.ndims is not None and \
            cond.shape.ndims < then_t.shape.ndims:
        for _ in range(then_t.shape.ndims - cond.shape.ndims):
            cond = A.expand_dims(cond, -1)
        cond = M.logical_and(cond, A.ones_like(then_t, dtype=_dtypes.bool))
    return A.where(cond, then_t, else_t)


def in_train_phase(x: Any, alt: Any, training: Any = None) -> Any:
    """``x`` in the training phase, ``alt`` otherwise (``training`` defaults to the
    learning phase); either may be a callable."""
    if training is None:
        training = learning_phase()
    if isinstance(training, (bool, int)):
        chosen = x if training else alt
        return chosen() if callable(chosen) else chosen
    return switch(training, x, alt)


def in_test_phase(x: Any, alt: Any, training: Any = None) -> Any:
    """``x`` in the test phase, ``alt`` while training."""
    return in_train_phase(alt, x, training=training)


# -- variables and updates -----------------------------------------------------------------

def update(x: Any, new_x: Any) -> Tensor:
    """Assigns ``new_x`` to the variable ``x``."""
    return S.assign(x, new_x)


def update_add(x: Any, increment: Any) -> Tensor:
    """Adds ``increment`` to the variable ``x``."""
    return S.assign_add(x, increment)


def update_sub(x: Any, decrement: Any) -> Tensor:
    """Subtracts ``decrement`` from the variable ``x``."""
    return S.assign_sub(x, decrement)


def moving_average_update(x: Any, value: Any, momentum: float) -> Tensor:
    """``x = momentum * x + (1 - momentum) * value`` with TF 1.x zero-debiasing (its
    helper variables initialized by ``get_session()`` like the other Keras ones)."""
    g = x.op.graph
    before = {id(v) for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES)}
    value = A.cast(convert_to_tensor(value), x.dtype.base_dtype)
    out = _ma.assign_moving_average(x, value, momentum, zero_debias=True)
    for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES):
        if id(v) not in before:
            track_variable(v)
    return out


def cast_to_floatx(x: Any) -> np.ndarray:
    """``x`` as a numpy array of the Keras float type."""
    return np.asarray(x, dtype=floatx())


def eye(size: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    """An identity-matrix variable (``size`` an int or a (rows, columns) pair)."""
    rows, cols = (size, size) if np.isscalar(size) else tuple(size)
    return variable(np.eye(int(rows), int(cols)), dtype=dtype, name=name)


def random_uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None,
                   seed: Optional[int] = None) -> Tensor:
    """Uniform samples in [minval, maxval)."""
    return R.random_uniform(shape, minval=minval, maxval=maxval, dtype=_dtype(dtype), seed=seed)


def random_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
                  seed: Optional[int] = None) -> Tensor:
    """Normal samples."""
    return R.random_normal(shape, mean=mean, stddev=stddev, dtype=_dtype(dtype), seed=seed)


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
                     seed: Optional[int] = None) -> Tensor:
    """Normal samples redrawn beyond two standard deviations."""
    return R.truncated_normal(shape, mean=mean, stddev=stddev, dtype=_dtype(dtype), seed=seed)


def random_bernoulli(shape: Any, p: float = 0.0, dtype: Any = None,
                     seed: Optional[int] = None) -> Tensor:
    """1 with probability ``p``, else 0."""
    dt = _dtype(dtype)
    u = R.random_uniform(shape, dtype=dt, seed=seed)
    return A.cast(M.less(u, p), dt)


random_binomial = random_bernoulli


def random_uniform_variable(shape: Any, low: float, high: float, dtype: Any = None,
                            name: Optional[str] = None, seed: Optional[int] = None) -> Any:
    """A variable of uniform samples in [low, high)."""
    rng = np.random.RandomState(seed)
    return variable(rng.uniform(low, high, size=tuple(shape)), dtype=dtype, name=name)


def random_normal_variable(shape: Any, mean: float, scale: float, dtype: Any = None,
                           name: Optional[str] = None, seed: Optional[int] = None) -> Any:
    """A variable of normal samples of mean ``mean`` and standard deviation ``scale``."""
    rng = np.random.RandomState(seed)
    return variable(rng.normal(mean, scale, size=tuple(shape)), dtype=dtype, name=name)


# -- graph helpers -------------------------------------------------------------------------

def backend() -> str:
    """The name of the backend: ``'tensorflow'``."""
    return "tensorflow"


def name_scope(name: str) -> Any:
    """A name scope of the default graph (a context manager)."""
    return get_default_graph().name_scope(name)


def gradients(loss: Any, variables: Any) -> List[Any]:
    """Gradients of ``loss`` with respect to ``variables``."""
    return _gradients(loss, variables, colocate_gradients_with_ops=True)


def print_tensor(x: Any, message: str = "", summarize: int = 3) -> Tensor:
    """``x``, logging its value (after ``message``) each time it is computed."""
    return CF.Print(x, [x], message=message, summarize=summarize)
