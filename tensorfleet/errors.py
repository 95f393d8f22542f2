"""Error classes raised by tensorfleet, with canonical codes shared with gRPC.

Every ``OpError`` carries one canonical code. The numeric values are the gRPC
status codes, so an error raised on a remote task travels as a status and is
re-raised at the caller as the same subclass.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, Optional, Type

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running an op, with a canonical error code.

    Attributes:
      node_def: the name of the op that failed, or None.
      op: the ``Operation`` that failed when it is known locally, else None.
      message: the human-readable message.
      error_code: the canonical code (an int matching gRPC status codes).
      task: the task (``/job:x/task:n``) where the error happened, if remote.
    """

    error_code = UNKNOWN

    def __init__(self, node_def: Any, op: Any, message: str,
                 error_code: Optional[int] = None, task: Optional[str] = None):
        if error_code is not None:
            self.error_code = error_code
        self.node_def = node_def
        self.op = op
        self.message = message
        self.task = task
        super().__init__(message)

    def __str__(self) -> str:
        parts = [self.message]
        if self.node_def:
            name = getattr(self.node_def, "name", self.node_def)
            where = getattr(self.op, "defined_at", None)
            # As TensorFlow 1.x does: the user's line that built the failing op.
            parts.append(f"[[op: {name} (defined at {where})]]" if where else f"[[op: {name}]]")
        if self.task:
            parts.append(f"[[task: {self.task}]]")
        return " ".join(parts)

    def __reduce__(self):
        return (type(self), (self.node_def, None, self.message, self.error_code, self.task))


def _subclass(name: str, code: int, doc: str) -> Type[OpError]:
    def __init__(self, node_def=None, op=None, message="", *args, task=None):
        OpError.__init__(self, node_def, op, message, code, task)

    return type(name, (OpError,), {"__init__": __init__, "error_code": code, "__doc__": doc})


CancelledError = _subclass("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An error of unknown kind.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument.")
DeadlineExceededError = _subclass(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired before the call finished.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _subclass(
    "AlreadyExistsError", ALREADY_EXISTS, "An entity that was to be created already exists.")
PermissionDeniedError = _subclass(
    "PermissionDeniedError", PERMISSION_DENIED, "The caller may not run this operation.")
ResourceExhaustedError = _subclass(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource (memory, size limit) ran out.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to run the operation (e.g. uninitialized variable).")
AbortedError = _subclass("AbortedError", ABORTED, "An operation was aborted (e.g. a task restarted).")
OutOfRangeError = _subclass(
    "OutOfRangeError", OUT_OF_RANGE, "Iteration past the valid range (e.g. a closed, empty queue).")
UnimplementedError = _subclass(
    "UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _subclass("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _subclass(
    "UnavailableError", UNAVAILABLE, "A task or service cannot be reached right now.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _subclass(
    "UnauthenticatedError", UNAUTHENTICATED, "The caller did not present valid credentials.")

_CODE_TO_CLASS: Dict[int, Type[OpError]] = {
    cls.error_code: cls
    for cls in (CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
                NotFoundError, AlreadyExistsError, PermissionDeniedError,
                ResourceExhaustedError, FailedPreconditionError, AbortedError,
                OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
                DataLossError, UnauthenticatedError)
}


def exception_type_from_error_code(code: int) -> Type[OpError]:
    """Returns the ``OpError`` subclass for a canonical code (UnknownError if unknown)."""
    return _CODE_TO_CLASS.get(int(code), UnknownError)


def make_error(code: int, message: str, node_def: Any = None,
               task: Optional[str] = None) -> OpError:
    """Builds the ``OpError`` subclass instance that matches ``code``."""
    return exception_type_from_error_code(code)(node_def, None, message, task=task)


def error_code_from_exception_type(cls: Type[OpError]) -> int:
    """The canonical code of an ``OpError`` subclass (``tf.errors.NOT_FOUND`` for
    ``NotFoundError`` ...).

    Raises:
      TypeError: ``cls`` is not an ``OpError`` subclass.
    """
    if not (isinstance(cls, type) and issubclass(cls, OpError)):
        raise TypeError(f"error_code_from_exception_type needs an OpError subclass, got "
                        f"{cls!r}")
    return int(cls.error_code)


class _Status:
    """What ``raise_exception_on_not_ok_status`` yields: a code (``OK`` until ``set``) and a
    message."""

    def __init__(self) -> None:
        self.code, self.message = OK, ""

    def set(self, code: int, message: str) -> None:
        """Records a failure (``code`` a canonical error code)."""
        self.code, self.message = int(code), str(message)


@contextlib.contextmanager
def raise_exception_on_not_ok_status() -> Iterator[_Status]:
    """A context yielding a status object; if the block sets it to a code other than
    ``OK``, the matching ``OpError`` subclass is raised on leaving the block."""
    status = _Status()
    yield status
    if status.code != OK:
        raise make_error(status.code, status.message)


__all__ = [
    "error_code_from_exception_type", "raise_exception_on_not_ok_status",
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "ResourceExhaustedError", "FailedPreconditionError",
    "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError", "UnauthenticatedError",
    "exception_type_from_error_code", "make_error",
]
