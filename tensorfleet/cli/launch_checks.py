"""What ``tensorfleet launch`` checks so that a first run's mistakes cost one clear line.

* Options before the script path that the launcher does not know (``launch --sync
  trainer.py``): the error shows the command with them moved after the script path,
  where the script's own options go.
* A port of the cluster already in use: found before any task starts.
* Errors every task would hit the same way (a port taken after the check, a program
  that places variables on a parameter server in a cluster without one): the
  task's traceback is replaced by one launcher line saying what to change.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import socket
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Collection, Dict, List, Optional, Sequence, Tuple


# -- options in the wrong place ---------------------------------------------------------------


def _looks_like_script(token: str, module: bool) -> bool:
    if module:
        return True  # any word can be a module name
    return token.endswith(".py") or os.path.isfile(token)


def move_unknown_options(tokens: Sequence[str], unknown: Collection[str],
                         value_options: Collection[str],
                         module: bool = False) -> List[str]:
    """``tokens`` (the arguments after ``launch``) with the ``unknown`` options found
    before the script path, and their values, moved after it (after ``SCRIPT`` when no
    script path can be told apart).

    A word right after an unknown option is taken as its value unless it looks like
    the script (ends in ``.py`` or is a file; with ``-m`` every word may be a module).
    """
    left = list(unknown)
    kept: List[str] = []
    moved: List[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in left and tok.startswith("-"):
            left.remove(tok)
            moved.append(tok)
            i += 1
            while (i < len(tokens) and not tokens[i].startswith("-")
                   and not _looks_like_script(tokens[i], module)):
                moved.append(tokens[i])
                i += 1
            continue
        if tok.startswith("-"):
            kept.append(tok)
            if "=" not in tok and tok in value_options and i + 1 < len(tokens):
                kept.append(tokens[i + 1])
                i += 1
            i += 1
            continue
        # The first plain word that is not an option's value: the script path.
        return kept + [tok] + moved + list(tokens[i + 1:])
    return kept + ["SCRIPT"] + moved


def unknown_options_message(tokens: Sequence[str], unknown: Sequence[str],
                            value_options: Collection[str], module: bool = False) -> str:
    """The error for launcher options it does not know, with the corrected command."""
    fixed = move_unknown_options(tokens, unknown, value_options, module)
    where = "tensorfleet launch " + " ".join(shlex.quote(t) for t in fixed)
    return (f"unrecognized arguments: {' '.join(unknown)}\n"
            f"Options before the script path are the launcher's own; the script's options "
            f"go after its path:\n  {where}")


# -- a module to run -----------------------------------------------------------------------------

_FIND_MODULE = ("import importlib.util, sys\n"
                "try:\n"
                "    found = importlib.util.find_spec(sys.argv[1]) is not None\n"
                "except (ImportError, ValueError):\n"
                "    found = False\n"
                "sys.exit(0 if found else 1)\n")


def module_exists(name: str, timeout: float = 60.0) -> bool:
    """Whether ``python -m name`` would find the module, asked of the interpreter the
    tasks run, from this directory and with this environment, as each task will."""
    if not name or name.startswith(".") or "/" in name:
        return False
    # ``-c`` puts the working directory first on sys.path, as ``-m`` does for tasks.
    r = subprocess.run([sys.executable, "-c", _FIND_MODULE, name], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    return r.returncode == 0


# -- ports ---------------------------------------------------------------------------------------

def port_in_use(address: str) -> bool:
    """Whether another socket listens on ``host:port`` (bound the way a task binds it)."""
    # Imported here: the transport package is not needed to print help.
    from tensorfleet.transport.auth import split_address

    host, port = split_address(address)
    if port == 0:
        return False
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return False  # the task reports an unknown host itself
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as probe:
            # Connections of an earlier launch in TIME_WAIT must not count as in use.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(sockaddr)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    return True
    return False


def busy_ports(addresses: Dict[str, str]) -> List[Tuple[str, str]]:
    """``(task, address)`` of every task in ``addresses`` (name -> host:port) whose port
    is already in use."""
    return [(name, addr) for name, addr in addresses.items() if port_in_use(addr)]


def busy_ports_message(busy: List[Tuple[str, str]], port_base: Optional[int]) -> str:
    """One line naming the ports in use and what to do."""
    which = ", ".join(f"{addr} ({name})" for name, addr in busy)
    verb = "is" if len(busy) == 1 else "are"
    what = ("choose another --port-base, or leave it out to use free ports"
            if port_base is not None else "launch again: free ports are picked each time")
    return f"{which} {verb} already in use by another program; {what}"


# -- errors every task would hit -------------------------------------------------------------

@dataclass(frozen=True)
class KnownError:
    """A task error the launcher explains in one line.

    ``retry`` is False for errors a restart cannot fix (the cluster lacks a job the
    program needs), so that ``--max-restarts`` does not repeat them.
    """

    message: str
    retry: bool


_IN_USE = re.compile(r"address (\S+) is already in use")
# How a missing ps job shows: an empty --ps_hosts entry given to ClusterSpec, or an op
# placed on /job:ps when the cluster has no such job.
_NO_PS = re.compile(r"/job:ps\b|job 'ps' is not in the cluster")


def classify_error(line: str, jobs: Collection[str]) -> Optional[KnownError]:
    """The ``KnownError`` of a task's exception line, or None for any other error.

    ``jobs`` are the jobs of the launched cluster.
    """
    m = _IN_USE.search(line)
    if m:
        return KnownError(f"cannot listen on {m.group(1)}: the port is already in use by "
                          "another program (choose another --port-base, or leave it out "
                          "to use free ports)", retry=True)
    if "ps" not in jobs and _NO_PS.search(line):
        return KnownError("the program places variables on a parameter server, but the "
                          "cluster has none: launch it with --ps 1 (or more)", retry=False)
    return None


class TracebackFilter:
    """Passes a task's output through, holding back each Python traceback until its
    exception line: the traceback of a ``KnownError`` is dropped (``known`` keeps it),
    any other is passed on whole.

    ``classify(exception_line)`` returns a ``KnownError`` or None. Output that is not a
    traceback is passed on as it arrives, partial lines (progress bars) included.
    """

    MARK = b"Traceback (most recent call last):"
    MAX_HELD = 1 << 20  # a traceback longer than this is passed on as it is

    def __init__(self, classify: Callable[[str], Optional[KnownError]]):
        self._classify = classify
        self._pending = b""  # an incomplete line that may start a traceback, or is in one
        self._traceback = b""
        self._in_traceback = False
        self._line_start = True
        self.known: Optional[KnownError] = None

    def feed(self, data: bytes) -> bytes:
        """The part of ``data`` to show now."""
        text, self._pending = self._pending + data, b""
        out = bytearray()
        pos = 0
        while pos < len(text):
            nl = text.find(b"\n", pos)
            if not self._in_traceback:
                if self._line_start:
                    head = text[pos:pos + len(self.MARK)]
                    if head == self.MARK:
                        self._in_traceback = True
                        continue
                    if nl < 0 and self.MARK.startswith(head):
                        self._pending = text[pos:]  # wait for the rest of the line
                        break
                end = len(text) if nl < 0 else nl + 1
                out += text[pos:end]
                self._line_start = nl >= 0
                pos = end
                continue
            if nl < 0:
                if len(self._traceback) + len(text) - pos > self.MAX_HELD:
                    out += self._end_traceback(None) + text[pos:]
                    self._line_start = False
                else:
                    self._pending = text[pos:]
                break
            line, pos = text[pos:nl + 1], nl + 1
            self._traceback += line
            body = line.rstrip(b"\r\n")
            if body and not body[:1].isspace() and not body.startswith(self.MARK):
                out += self._end_traceback(body.decode("utf-8", "replace"))
            elif len(self._traceback) > self.MAX_HELD:
                out += self._end_traceback(None)
        return bytes(out)

    def _end_traceback(self, exception_line: Optional[str]) -> bytes:
        held, self._traceback = self._traceback, b""
        self._in_traceback, self._line_start = False, True
        known = self._classify(exception_line) if exception_line is not None else None
        if known is None:
            return held
        self.known = known
        return b""

    def close(self) -> bytes:
        """What is still held at the end of the output (an unfinished traceback)."""
        held = self._traceback + self._pending
        self._traceback, self._pending, self._in_traceback = b"", b"", False
        return held


__all__ = ["module_exists", "move_unknown_options", "unknown_options_message", "port_in_use", "busy_ports",
           "busy_ports_message", "KnownError", "classify_error", "TracebackFilter"]
