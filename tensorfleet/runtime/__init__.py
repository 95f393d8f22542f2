"""Executor, resource manager and the local Session."""

from tensorfleet.runtime.resource_mgr import ResourceManager, VariableResource  # noqa: F401
from tensorfleet.runtime.session import (  # noqa: F401
    InteractiveSession, Session, get_default_session)
