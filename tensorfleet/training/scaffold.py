"""``tf.train.Scaffold`` and the session creators used by ``MonitoredSession``.

A Scaffold gathers the pieces that make a model usable in a session: the ops
that initialize and check it, the saver that checkpoints it and the op that
computes its summaries. ``finalize()`` fills whatever the user left out with
defaults taken from the graph's collections (so that every task of a cluster,
building the same graph, agrees on them), then freezes the graph.

The chief creates sessions with ``ChiefSessionCreator`` (restore or
initialize); other workers with ``WorkerSessionCreator`` (wait until ready).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Optional

from tensorfleet.framework.graph import GraphKeys, get_default_graph
from tensorfleet.ops import control_flow_ops
from tensorfleet.ops import variables as variables_lib
from tensorfleet.training.session_manager import SessionManager, import_training_module

logger = logging.getLogger(__name__)

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator"]


def _coalesce(mine: Any, theirs: Any) -> Any:
    return mine if mine is not None else theirs


class Scaffold:
    """The init, readiness, saving and summary pieces of a model.

    Every argument may be None; ``finalize()`` then picks the default:

    * ``init_op``: the ``INIT_OP`` collection, else ``global_variables_initializer()``
    * ``ready_op``: the ``READY_OP`` collection, else ``report_uninitialized_variables()``
    * ``ready_for_local_init_op``: the ``READY_FOR_LOCAL_INIT_OP`` collection, else
      ``report_uninitialized_variables(global_variables())``
    * ``local_init_op``: the ``LOCAL_INIT_OP`` collection, else
      ``group(local_variables_initializer(), <table initializers>)``
    * ``summary_op``: the ``SUMMARY_OP`` collection, else ``tf.summary.merge_all()``
    * ``saver``: the one saver in the ``SAVERS`` collection, else a new sharded Saver

    Args:
      init_op: run by the chief when no checkpoint was restored.
      init_feed_dict: feeds for ``init_op``.
      init_fn: ``init_fn(scaffold, session)``, called after ``init_op``.
      ready_op: names what is uninitialized (empty when ready).
      ready_for_local_init_op: names the global variables not yet initialized.
      local_init_op: initializes this task's local state in every session.
      summary_op: the merged summary op.
      saver: the ``tf.train.Saver`` for checkpoints.
      copy_from_scaffold: a Scaffold whose values fill the arguments left as None.
      local_init_feed_dict: feeds for ``local_init_op``.
    """

    def __init__(self, init_op: Any = None, init_feed_dict: Optional[dict] = None,
                 init_fn: Optional[Callable[["Scaffold", Any], None]] = None,
                 ready_op: Any = None, ready_for_local_init_op: Any = None,
                 local_init_op: Any = None, summary_op: Any = None, saver: Any = None,
                 copy_from_scaffold: Optional["Scaffold"] = None,
                 local_init_feed_dict: Optional[dict] = None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError(f"copy_from_scaffold is not a Scaffold instance: "
                                f"{copy_from_scaffold!r}")
            src = copy_from_scaffold
            init_op = _coalesce(init_op, src.init_op)
            init_feed_dict = _coalesce(init_feed_dict, src._init_feed_dict)
            init_fn = _coalesce(init_fn, src._user_init_fn)
            ready_op = _coalesce(ready_op, src.ready_op)
            ready_for_local_init_op = _coalesce(ready_for_local_init_op,
                                                src.ready_for_local_init_op)
            local_init_op = _coalesce(local_init_op, src.local_init_op)
            local_init_feed_dict = _coalesce(local_init_feed_dict, src._local_init_feed_dict)
            summary_op = _coalesce(summary_op, src.summary_op)
            saver = _coalesce(saver, src.saver)
        self._user_init_fn = init_fn
        # TensorFlow's init_fn receives the scaffold too; SessionManager passes only
        # the session, so bind the scaffold here.
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver
        self._finalized = False

    def finalize(self) -> "Scaffold":
        """Creates the missing pieces from the graph's collections and finalizes the graph.

        Safe to call again (as session re-creation after a failure does): defaults
        are only built the first time.
        """
        graph = get_default_graph()
        if not self._finalized:
            if self._init_op is None:
                self._init_op = Scaffold.get_or_default(
                    "init_op", GraphKeys.INIT_OP, variables_lib.global_variables_initializer)
            if self._ready_op is None:
                self._ready_op = Scaffold.get_or_default(
                    "ready_op", GraphKeys.READY_OP,
                    variables_lib.report_uninitialized_variables)
            if self._ready_for_local_init_op is None:
                self._ready_for_local_init_op = Scaffold.get_or_default(
                    "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                    lambda: variables_lib.report_uninitialized_variables(
                        variables_lib.global_variables()))
            if self._local_init_op is None:
                self._local_init_op = Scaffold.get_or_default(
                    "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
            if self._summary_op is None:
                self._summary_op = Scaffold.get_or_default(
                    "summary_op", GraphKeys.SUMMARY_OP, _merge_all_summaries)
            if self._saver is None:
                self._saver = _default_saver()
            self._finalized = True
        graph.finalize()
        logger.debug("Graph was finalized.")
        return self

    # -- accessors ------------------------------------------------------------------------
    @property
    def init_fn(self) -> Optional[Callable[[Any], None]]:
        """``init_fn(session)`` (the user's function with this scaffold bound), or None."""
        return self._init_fn

    @property
    def init_op(self) -> Any:
        """The op the chief runs when no checkpoint was restored."""
        return self._init_op

    @property
    def ready_op(self) -> Any:
        """The op naming what is still uninitialized (empty when ready)."""
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        """The op naming the global variables local_init_op still waits for."""
        return self._ready_for_local_init_op

    @property
    def local_init_op(self) -> Any:
        """The op initializing this task's local state in every new session."""
        return self._local_init_op

    @property
    def local_init_feed_dict(self) -> Optional[dict]:
        """Feeds for ``local_init_op``."""
        return self._local_init_feed_dict

    @property
    def summary_op(self) -> Any:
        """The merged summary op, or None when the graph has no summaries."""
        return self._summary_op

    @property
    def saver(self) -> Any:
        """The Saver used for checkpoints, or None."""
        return self._saver

    @property
    def init_feed_dict(self) -> Optional[dict]:
        """Feeds for ``init_op``."""
        return self._init_feed_dict

    # -- defaults -------------------------------------------------------------------------
    @staticmethod
    def get_or_default(arg_name: str, collection_key: str,
                       default_constructor: Callable[[], Any]) -> Any:
        """The single item of ``collection_key``, or a new one from
        ``default_constructor`` (added to the collection so other users share it).

        Raises:
          RuntimeError: if the collection holds more than one item.
        """
        graph = get_default_graph()
        found = graph.get_collection(collection_key)
        if found:
            if len(found) > 1:
                raise RuntimeError(f"More than one item in the collection {collection_key!r}. "
                                   f"Please indicate which one to use by passing it to the "
                                   f"tf.Scaffold constructor as: tf.Scaffold({arg_name}=item to "
                                   f"use)")
            return found[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op() -> Any:
        """``group(local_variables_initializer(), <TABLE_INITIALIZERS>)``."""
        tables = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
        return control_flow_ops.group(variables_lib.local_variables_initializer(), *tables)


def _merge_all_summaries() -> Any:
    try:
        summary_ops = import_training_module("summary_ops")
    except ImportError as e:
        logger.warning("No summary op: %s", e)
        return None
    merge_all = getattr(summary_ops, "merge_all", None)
    if merge_all is None:
        logger.warning("No summary op: tensorfleet.ops.summary_ops has no merge_all yet.")
        return None
    return merge_all()


def _default_saver() -> Any:
    """The saver of the ``SAVERS`` collection, or a new sharded one added to it."""
    graph = get_default_graph()
    savers = graph.get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS!r}. Please "
                               f"indicate which one to use by passing it to the constructor.")
        return savers[0]
    if not variables_lib.global_variables():
        # Nothing to checkpoint; a saver over no variables would only fail later.
        return None
    try:
        saver_lib = import_training_module("saver")
    except ImportError as e:
        logger.warning("Checkpoints disabled: %s", e)
        return None
    saver = saver_lib.Saver(sharded=True, allow_empty=True)
    graph.add_to_collection(GraphKeys.SAVERS, saver)
    return saver


class SessionCreator:
    """Something that creates a ready ``tf.Session`` for a ``MonitoredSession``."""

    def create_session(self) -> Any:
        """Returns a new raw session whose model is ready."""
        raise NotImplementedError("create_session is not implemented for SessionCreator.")


def _session_manager(scaffold: Scaffold) -> SessionManager:
    return SessionManager(local_init_op=scaffold.local_init_op,
                          local_init_feed_dict=scaffold.local_init_feed_dict,
                          ready_op=scaffold.ready_op,
                          ready_for_local_init_op=scaffold.ready_for_local_init_op,
                          graph=get_default_graph())


class ChiefSessionCreator(SessionCreator):
    """Creates the chief's sessions: restore the latest checkpoint, else initialize.

    A session created again after a failed step keeps the model as it is when it is
    still initialized on every task (nothing was lost); only when a task lost its
    variables (a parameter server restarted) is the latest checkpoint restored.

    Args:
      scaffold: the model's ``Scaffold`` (a default one when None).
      master: the session target.
      config: the ``ConfigProto``.
      checkpoint_dir: where to look for the latest checkpoint.
      checkpoint_filename_with_path: a specific checkpoint to restore instead.
    """

    def __init__(self, scaffold: Optional[Scaffold] = None, master: str = "",
                 config: Any = None, checkpoint_dir: Optional[str] = None,
                 checkpoint_filename_with_path: Optional[str] = None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._created = False

    def create_session(self) -> Any:
        self._scaffold.finalize()
        manager = _session_manager(self._scaffold)
        if self._created and self._scaffold.ready_op is not None:
            # A re-creation after a failed step: when no task lost its state (a task
            # froze or was cut off for a moment, a worker restarted) go on with the
            # model as it is; restore the checkpoint only when a ps restarted.
            sess = manager.session_if_still_ready(self._master, config=self._config)
            if sess is not None:
                return sess
        sess = manager.prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config, init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict, init_fn=self._scaffold.init_fn)
        self._created = True
        return sess


class WorkerSessionCreator(SessionCreator):
    """Creates a non-chief worker's sessions: wait until the chief made the model ready.

    Args:
      scaffold: the model's ``Scaffold`` (a default one when None).
      master: the session target.
      config: the ``ConfigProto``.
      max_wait_secs: give up (DeadlineExceededError) after this long.
    """

    def __init__(self, scaffold: Optional[Scaffold] = None, master: str = "",
                 config: Any = None, max_wait_secs: float = 30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self) -> Any:
        self._scaffold.finalize()
        return _session_manager(self._scaffold).wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs)
