"""``tf.random.Generator``: a random number generator whose state (a Philox counter and
key, ``[3]`` int64) is a variable, so each run of a draw gives new numbers and the state
is saved in checkpoints; ``create_rng_state``, ``get_global_generator`` /
``set_global_generator`` and the ``Algorithm`` names.

Each draw reads the state, draws with the stateless op keyed by it, and then advances the
counter, all in the same step.
"""

from __future__ import annotations

import enum
import threading
import weakref
from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, control_dependencies, convert_to_tensor, \
    get_default_graph, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import stateless_random_ops as S
from tensorfleet.ops import stateless_random_distributions as D
from tensorfleet.ops.variables import Variable

STATE_SIZE = 3


class Algorithm(enum.Enum):
    """The counter-based generators TensorFlow names (both are run as Philox here)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg(alg: Any) -> Algorithm:
    if isinstance(alg, Algorithm):
        return alg
    if isinstance(alg, str) and alg.upper() in Algorithm.__members__:
        return Algorithm[alg.upper()]
    if isinstance(alg, int) and alg in (1, 2, 3):
        return Algorithm(alg)
    raise ValueError(f"Unknown random algorithm {alg!r}; expected 'philox', 'threefry' or "
                     f"'auto_select'")


def create_rng_state(seed: Any, alg: Any) -> np.ndarray:
    """The ``[3]`` int64 state that ``seed`` (an int or up to three ints) starts a
    generator in: the seed's words, then zeros."""
    _alg(alg)
    words = [int(v) for v in np.asarray(seed).reshape(-1).tolist()]
    if len(words) > STATE_SIZE:
        raise ValueError(f"a seed has at most {STATE_SIZE} words, got {len(words)}")
    state = np.zeros(STATE_SIZE, dtype=np.uint64)
    state[:len(words)] = [w & ((1 << 64) - 1) for w in words]
    return state.view(np.int64)


class Generator:
    """A stateful random number generator (``tf.random.Generator``)."""

    def __init__(self, copy_from: Optional["Generator"] = None, state: Any = None,
                 alg: Any = None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("copy_from cannot be given with state or alg")
            state, alg = copy_from._initial, copy_from.algorithm
        if state is None:
            raise ValueError("a Generator needs a state (use Generator.from_seed)")
        self._alg = _alg(alg if alg is not None else Algorithm.PHILOX)
        self._initial = np.asarray(state, dtype=np.int64).reshape(-1)
        if self._initial.shape != (STATE_SIZE,):
            raise ValueError(f"the state must have {STATE_SIZE} int64 words, got shape "
                             f"{self._initial.shape}")
        self._state_var = Variable(self._initial, dtype=_dtypes.int64, trainable=False,
                                   name="StateVar")

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> "Generator":
        """A generator started from ``seed``."""
        alg = _alg(alg if alg is not None else Algorithm.PHILOX)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> "Generator":
        """A generator started from the operating system's entropy."""
        seed = np.random.SeedSequence().generate_state(2, dtype=np.uint64)
        return cls.from_seed(seed.astype(np.int64), alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> "Generator":
        """A generator with the given Philox ``key`` (scalar) and ``counter`` (``[2]``)."""
        words = np.concatenate([np.asarray(counter, np.int64).reshape(-1),
                                np.asarray(key, np.int64).reshape(-1)])
        return cls(state=words, alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> "Generator":
        return cls(state=state, alg=alg)

    @property
    def state(self) -> Variable:
        """The state variable."""
        return self._state_var

    @property
    def algorithm(self) -> Algorithm:
        return self._alg

    @property
    def key(self) -> Tensor:
        return self._state_var.read_value()[-1]

    def reset(self, state: Any) -> Any:
        """An op setting the state to ``state``."""
        return self._state_var.assign(convert_to_tensor(state, dtype=_dtypes.int64))

    def reset_from_seed(self, seed: Any) -> Any:
        return self.reset(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key: Any, counter: Any) -> Any:
        words = np.concatenate([np.asarray(counter, np.int64).reshape(-1),
                                np.asarray(key, np.int64).reshape(-1)])
        return self.reset(words)

    def skip(self, delta: Any) -> Any:
        """An op advancing the counter by ``delta`` draws."""
        step = A.stack([A.cast(delta, _dtypes.int64), A.zeros([], _dtypes.int64),
                        A.zeros([], _dtypes.int64)])
        return self._state_var.assign_add(step)

    def _draw(self, fn: Any) -> Tensor:
        """``fn(seed)`` for a seed taken from the state, which then moves on."""
        state = self._state_var.read_value()
        seed = A.stack([M.add(state[0], M.multiply(state[1], 7919)), state[2]])
        out = fn(seed)
        with control_dependencies([out]):
            bump = self._state_var.assign_add(np.array([1, 0, 0], np.int64))
        with control_dependencies([bump]):
            return A.identity(out)

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
               dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
        with name_scope(name, "stateful_normal"):
            return self._draw(lambda s: S.stateless_random_normal(shape, s, mean, stddev,
                                                                  dtype))

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                         dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
        with name_scope(name, "truncated_normal"):
            return self._draw(lambda s: S.stateless_truncated_normal(shape, s, mean, stddev,
                                                                     dtype))

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None,
                dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
        with name_scope(name, "stateful_uniform"):
            return self._draw(lambda s: S.stateless_random_uniform(shape, s, minval, maxval,
                                                                   dtype))

    def uniform_full_int(self, shape: Any, dtype: Any = _dtypes.uint64,
                         name: Optional[str] = None) -> Tensor:
        with name_scope(name, "stateful_uniform_full_int"):
            return self._draw(lambda s: D.stateless_random_uniform_full_int(shape, s, dtype))

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = _dtypes.int32,
                 name: Optional[str] = None) -> Tensor:
        with name_scope(name, "binomial"):
            return self._draw(lambda s: D.stateless_random_binomial(shape, s, counts, probs,
                                                                    dtype))

    def make_seeds(self, count: int = 1) -> Tensor:
        """``[2, count]`` seeds for the stateless ops."""
        return self._draw(lambda s: A.transpose(D.stateless_split(s, int(count))))

    def split(self, count: int = 1) -> List["Generator"]:
        """``count`` new generators whose states are drawn from this one's (at graph-build
        time, from its initial state)."""
        rng = np.random.Generator(np.random.Philox(key=[int(v) & ((1 << 64) - 1)
                                                        for v in self._initial[1:]]))
        return [Generator(state=rng.integers(0, 1 << 62, STATE_SIZE, dtype=np.int64),
                          alg=self._alg) for _ in range(int(count))]


# One global generator per graph: its state is a variable of that graph.
_GLOBAL: "weakref.WeakKeyDictionary[Any, Generator]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def get_global_generator() -> Generator:
    """The default graph's global generator (made from entropy on first use)."""
    graph = get_default_graph()
    with _LOCK:
        gen = _GLOBAL.get(graph)
        if gen is None:
            gen = Generator.from_non_deterministic_state()
            _GLOBAL[graph] = gen
        return gen


def set_global_generator(generator: Generator) -> None:
    """Makes ``generator`` the default graph's global generator."""
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator takes a tf.random.Generator, got "
                        f"{type(generator).__name__}")
    with _LOCK:
        _GLOBAL[get_default_graph()] = generator
