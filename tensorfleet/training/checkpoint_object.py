"""``tf.train.Checkpoint`` in graph mode: saves and restores the variables of the objects
it is given by attribute name, through tensorfleet's checkpoint files.

``Checkpoint(model=..., optimizer=..., step=var)`` tracks, under each keyword:
a ``Variable`` (key ``<name>/.ATTRIBUTES/VARIABLE_VALUE``); another ``Checkpoint``
(its own keys under ``<name>/``); or any object with ``variables`` (a list, or a method
as optimizers, layers, models and templates have), whose variables are keyed
``<name>/<variable op name>/.ATTRIBUTES/VARIABLE_VALUE``. ``save(prefix)`` writes
``prefix-<save_counter>`` (and the directory's ``checkpoint`` state file, so
``tf.train.latest_checkpoint`` finds it); ``restore(path)`` returns a status whose
``run_restore_ops`` / ``initialize_or_restore`` assign the saved values, in the default
session unless one is given.

Restoration is immediate: variables created after ``restore`` are not filled in later
(TensorFlow defers them), and ``assert_consumed`` fails if any tracked object has no
value in the checkpoint or a saved value has no object.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Dict, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, device
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.ops.variables import Variable, is_variable_initialized
from tensorfleet.runtime.session import get_default_session
from tensorfleet.training.checkpoint_management import NewCheckpointReader
from tensorfleet.training.checkpoint_options import CheckpointOptions, io_device_of
from tensorfleet.training.python_state import KEY_SUFFIX, PythonState, PythonStateSlot
from tensorfleet.training.saver import Saver

logger = logging.getLogger(__name__)

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_COUNTER = "save_counter"


def _session(session: Any, what: str) -> Any:
    sess = session if session is not None else get_default_session()
    if sess is None:
        raise ValueError(f"Checkpoint.{what} needs a session in graph mode: pass session= or "
                         f"call it inside `with tf.Session():`")
    return sess


def _object_variables(obj: Any) -> Optional[List[Any]]:
    got = getattr(obj, "variables", None)
    if got is None:
        return None
    got = got() if callable(got) else got
    return list(got)


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` found: run ``run_restore_ops`` (or
    ``initialize_or_restore``) to assign the values; the ``assert_*`` methods check the
    match between the checkpoint and the tracked objects."""

    def __init__(self, checkpoint: "Checkpoint", save_path: Optional[str],
                 matched: Dict[str, Any], unused_keys: List[str], missing_keys: List[str]):
        self._checkpoint = checkpoint
        self._save_path = save_path
        self._matched = matched
        self._unused = unused_keys
        self._missing = missing_keys
        self._saver = Saver(matched, sharded=False) if matched else None

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """Raises AssertionError unless every saved value has an object and every
        tracked variable a saved value."""
        if self._save_path is None:
            raise AssertionError("No checkpoint was restored (restore(None))")
        if self._unused:
            raise AssertionError(f"Unresolved values in the checkpoint {self._save_path}: "
                                 f"{self._unused}")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> "CheckpointLoadStatus":
        """Raises AssertionError unless every tracked variable has a saved value."""
        if self._missing:
            raise AssertionError(f"Tracked variables without a value in the checkpoint "
                                 f"{self._save_path}: {self._missing}")
        return self

    def expect_partial(self) -> "CheckpointLoadStatus":
        """Marks a partial restore as intended (nothing is logged about unused values)."""
        self._unused = []
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Assigns the saved values to the matched variables (and hands the saved
        strings of ``PythonState`` objects to their ``deserialize``)."""
        if self._saver is not None:
            sess = _session(session, "run_restore_ops")
            self._saver.restore(sess, self._save_path)
            for key in self._matched:
                slot = self._checkpoint._slots_by_key().get(key)
                if slot is not None:
                    slot.load(sess)

    def initialize_or_restore(self, session: Any = None) -> None:
        """Restores the matched variables and initialises the tracked ones the checkpoint
        lacks (all of them after ``restore(None)``)."""
        sess = _session(session, "initialize_or_restore")
        pending = [v for k, v in self._checkpoint._tracked().items()
                   if k not in self._matched]
        if pending:
            sess.run(group(*[v.initializer for v in pending]))
        self.run_restore_ops(sess)


class Checkpoint:
    """Groups variables and objects that own variables for saving and restoring (see
    the module docstring).

    Raises:
      ValueError: a keyword whose value neither is a Variable or Checkpoint nor has
        ``variables``.
    """

    def __init__(self, **kwargs: Any):
        for name, obj in kwargs.items():
            if not (isinstance(obj, (Variable, Checkpoint, PythonState)) or
                    _object_variables(obj) is not None):
                raise ValueError(f"Checkpoint: {name}={obj!r} is not trackable; pass "
                                 f"Variables, Checkpoints, PythonStates or objects with "
                                 f"`variables`")
        self._children = dict(kwargs)
        self._slots: Dict[str, PythonStateSlot] = {}
        self._save_counter: Optional[Variable] = None
        self._counter_ops: Optional[tuple] = None
        self._savers: Dict[tuple, Saver] = {}

    def __getattr__(self, name: str) -> Any:
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    @property
    def save_counter(self) -> Variable:
        """An int64 variable counting the ``save`` calls (made on first use)."""
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name=_COUNTER,
                                          dtype=_dtypes.int64,
                                          collections=[GraphKeys.GLOBAL_VARIABLES])
        return self._save_counter

    def _ready_counter(self, sess: Any) -> Variable:
        """``save_counter``, initialised to 0 in ``sess`` if it was not yet."""
        counter = self.save_counter
        if self._counter_ops is None:
            self._counter_ops = (is_variable_initialized(counter), counter.assign_add(1))
        if not sess.run(self._counter_ops[0]):
            sess.run(counter.initializer)
        return counter

    def _tracked(self, prefix: str = "") -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for name, obj in self._children.items():
            if isinstance(obj, Variable):
                out[f"{prefix}{name}{_SUFFIX}"] = obj
            elif isinstance(obj, PythonState):
                out[f"{prefix}{name}{KEY_SUFFIX}"] = self._slot(name).variable
            elif isinstance(obj, Checkpoint):
                out.update(obj._tracked(f"{prefix}{name}/"))
            else:
                for v in _object_variables(obj) or []:
                    out[f"{prefix}{name}/{v.op.name}{_SUFFIX}"] = v
        return out

    def _slot(self, name: str) -> PythonStateSlot:
        if name not in self._slots:
            self._slots[name] = PythonStateSlot(self._children[name], name)
        return self._slots[name]

    def _slots_by_key(self, prefix: str = "") -> Dict[str, PythonStateSlot]:
        """Every ``PythonState`` slot of this checkpoint and the nested ones, by key."""
        out: Dict[str, PythonStateSlot] = {}
        for name, obj in self._children.items():
            if isinstance(obj, PythonState):
                out[f"{prefix}{name}{KEY_SUFFIX}"] = self._slot(name)
            elif isinstance(obj, Checkpoint):
                out.update(obj._slots_by_key(f"{prefix}{name}/"))
        return out

    def _store_python_state(self, sess: Any) -> None:
        for slot in self._slots_by_key().values():
            slot.store(sess)

    def _saver_for(self, var_list: Dict[str, Any],
                   options: Optional[CheckpointOptions] = None) -> Saver:
        io_device = io_device_of(options)
        key = (tuple(sorted(var_list)), io_device)
        if key not in self._savers:
            # device(None) would clear the caller's device scopes: only an io device
            # given in the options changes where the save ops go.
            with device(io_device) if io_device else contextlib.nullcontext():
                self._savers[key] = Saver(var_list, sharded=False, max_to_keep=None)
        return self._savers[key]

    def write(self, file_prefix: str, session: Any = None,
              options: Optional[CheckpointOptions] = None) -> str:
        """Saves the tracked variables (and ``save_counter``) to ``file_prefix``; the save
        ops go on ``options.experimental_io_device`` when given."""
        sess = _session(session, "write")
        var_list = self._tracked()
        self._store_python_state(sess)
        var_list[_COUNTER + _SUFFIX] = self._ready_counter(sess)
        return self._saver_for(var_list, options).save(sess, file_prefix,
                                                       write_meta_graph=False,
                                                       write_state=False)

    def save(self, file_prefix: str, session: Any = None,
             options: Optional[CheckpointOptions] = None) -> str:
        """Increments ``save_counter`` and saves to ``file_prefix-<save_counter>``,
        recording it in the directory's ``checkpoint`` state file."""
        sess = _session(session, "save")
        io_device_of(options)  # a wrong type fails before the counter moves
        counter = self._ready_counter(sess)
        n = int(sess.run(self._counter_ops[1]))
        var_list = self._tracked()
        self._store_python_state(sess)
        var_list[_COUNTER + _SUFFIX] = counter
        return self._saver_for(var_list, options).save(sess, file_prefix, global_step=n,
                                                       write_meta_graph=False)

    def restore(self, save_path: Optional[str]) -> CheckpointLoadStatus:
        """Matches the checkpoint ``save_path`` (None: nothing to restore) with the
        tracked variables; returns the status that runs the restore."""
        tracked = self._tracked()
        tracked[_COUNTER + _SUFFIX] = self.save_counter
        if save_path is None:
            return CheckpointLoadStatus(self, None, {}, [], [])
        saved = set(NewCheckpointReader(save_path).get_variable_to_shape_map())
        matched = {k: v for k, v in tracked.items() if k in saved}
        unused = sorted(saved - set(tracked))
        missing = sorted(k for k in tracked if k not in saved and k != _COUNTER + _SUFFIX)
        if unused:
            logger.debug("checkpoint %s has values no object claims: %s", save_path, unused)
        return CheckpointLoadStatus(self, save_path, matched, unused, missing)


__all__ = ["Checkpoint", "CheckpointLoadStatus"]
