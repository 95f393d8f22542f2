"""``tf.train.SessionRunHook`` and the small records hooks exchange with a session.

A hook watches a ``MonitoredSession``. It is told when the session is being
built (``begin``), when a raw session was created or re-created after a failure
(``after_create_session``), around every ``run`` call (``before_run`` and
``after_run``) and when the monitored session closes normally (``end``).

Around a ``run`` call a hook may ask for more tensors to be fetched and fed in
the same step (by returning ``SessionRunArgs`` from ``before_run``); it then
receives their values in ``SessionRunValues.results``. A hook stops the
training loop through ``SessionRunContext.request_stop()``.
"""

from __future__ import annotations

import collections
from typing import Any, Dict, Optional, Sequence, Tuple

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
           "gather_run_args"]


class SessionRunHook:
    """Base class of the hooks given to ``MonitoredSession``; every method is a no-op.

    Subclasses override the callbacks they need. The order of calls is::

        begin()
        after_create_session(session, coord)   # again after each recovery
        # for every MonitoredSession.run:
        before_run(run_context) -> SessionRunArgs or None
        after_run(run_context, run_values)
        end(session)                           # only when closing without error
    """

    def begin(self) -> None:
        """Called once, before the graph is finalized: the hook may still add ops."""

    def after_create_session(self, session: Any, coord: Any) -> None:
        """Called each time a raw session is ready for use (variables initialized).

        Args:
          session: the raw ``tf.Session``; running ops on it does not call hooks.
          coord: the ``Coordinator`` of the threads started for this session.
        """

    def before_run(self, run_context: "SessionRunContext") -> Optional["SessionRunArgs"]:
        """Called before each ``run``; may return extra fetches/feeds for that step.

        Returns:
          ``SessionRunArgs`` (merged with the caller's and the other hooks') or None.
        """
        return None

    def after_run(self, run_context: "SessionRunContext",
                  run_values: "SessionRunValues") -> None:
        """Called after each successful ``run`` with the values this hook asked for.

        Not called when the step raised. ``run_context.request_stop()`` here makes
        ``should_stop()`` true.
        """

    def end(self, session: Any) -> None:
        """Called once when the monitored session closes without an exception."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a ``run`` call.

    Attributes:
      fetches: anything ``Session.run`` accepts as fetches (a tensor, an op, or a
        nested list/tuple/dict of them), or None to fetch nothing.
      feed_dict: extra feeds; a tensor may not be fed twice in one step.
      options: ``RunOptions``-like value passed to the session (or None).
    """

    __slots__ = ()

    def __new__(cls, fetches: Any, feed_dict: Optional[dict] = None,
                options: Any = None) -> "SessionRunArgs":
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunValues(collections.namedtuple("SessionRunValues",
                                              ["results", "options", "run_metadata"])):
    """What a hook receives after a ``run`` call.

    Attributes:
      results: the values of the fetches the hook returned from ``before_run``,
        in the same structure (None when it asked for nothing).
      options: the run options used for the step.
      run_metadata: the run metadata object passed to the step, if any.
    """

    __slots__ = ()


class SessionRunContext:
    """The ``run`` call being made, as seen by hooks.

    Args:
      original_args: the caller's ``SessionRunArgs`` (fetches and feeds).
      session: the raw session the step runs on.
    """

    def __init__(self, original_args: SessionRunArgs, session: Any):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        """The fetches and feeds the caller passed to ``MonitoredSession.run``."""
        return self._original_args

    @property
    def session(self) -> Any:
        """The raw ``tf.Session``; hooks may run extra ops on it (without hooks)."""
        return self._session

    @property
    def stop_requested(self) -> bool:
        """True once some hook called ``request_stop()`` during this step."""
        return self._stop_requested

    def request_stop(self) -> None:
        """Asks the monitored session to stop: ``should_stop()`` becomes True.

        The current step still completes and every hook's ``after_run`` is
        called; the caller's loop ends at its next ``should_stop()`` check.
        """
        self._stop_requested = True

    def __repr__(self) -> str:
        return (f"SessionRunContext(fetches={self._original_args.fetches!r}, "
                f"stop_requested={self._stop_requested})")


def _feed_key(graph: Any, key: Any) -> Any:
    """The tensor a feed key names (so that ``x`` and ``"x:0"`` compare equal)."""
    try:
        return graph.as_graph_element(key, allow_operation=False)
    except (KeyError, ValueError, TypeError):
        return key


def gather_run_args(hooks: Sequence[SessionRunHook], run_context: SessionRunContext,
                    graph: Any, options: Any = None) -> Tuple[Dict[int, Any], dict, Any]:
    """Calls every hook's ``before_run`` and merges what they ask for with the caller's
    arguments (``run_context.original_args``).

    Returns:
      (fetches per hook index, for the hooks that asked for any; the merged
      feed dict; the run options -- the last hook's that gave some, else ``options``).

    Raises:
      RuntimeError: if a tensor would be fed twice in the step, by two hooks or by
        a hook and the caller; a step has one value per tensor.
    """
    feeds = dict(run_context.original_args.feed_dict or {})
    user_fed = {_feed_key(graph, k) for k in feeds}
    fed = set(user_fed)
    hook_fetches: Dict[int, Any] = {}
    for i, hook in enumerate(hooks):
        request = hook.before_run(run_context)
        if request is None:
            continue
        if request.fetches is not None:
            hook_fetches[i] = request.fetches
        for k, v in (request.feed_dict or {}).items():
            key = _feed_key(graph, k)
            if key in fed:
                who = "a SessionRunHook and user" if key in user_fed else "two hooks"
                raise RuntimeError(f"Same tensor is fed by {who}: {getattr(key, 'name', key)}")
            fed.add(key)
            feeds[k] = v
        if request.options is not None:
            # Run options are not merged field by field here; the last hook's win.
            options = request.options
    return hook_fetches, feeds, options
