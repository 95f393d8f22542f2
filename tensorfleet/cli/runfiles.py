"""Run files: how ``tensorfleet status`` finds a cluster that ``tensorfleet launch`` started.

A launch makes a fresh cluster token, which other terminals cannot know. While it
runs, the launcher keeps a small JSON file (cluster spec, token, pid) in a
directory only its user can read, ``$TENSORFLEET_RUN_DIR`` or
``~/.cache/tensorfleet/run``; ``status`` reads the token from there for an
address of that cluster, or shows the newest live launch when given no address.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from typing import Any, Dict, List, Optional

logger = logging.getLogger(__name__)

ENV = "TENSORFLEET_RUN_DIR"


def run_dir() -> str:
    """The directory of run files (not created)."""
    return os.environ.get(ENV) or os.path.join(os.path.expanduser("~"), ".cache", "tensorfleet",
                                               "run")


def _private_dir() -> Optional[str]:
    d = run_dir()
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        st = os.stat(d)
        # Tokens must not be readable by anyone else: refuse a shared directory.
        if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
            logger.warning("not writing run files to %s: it is not private to this user", d)
            return None
    except OSError as e:
        logger.warning("cannot use run file directory %s: %s", d, e)
        return None
    return d


def write(cluster: Dict[str, Any], token: Optional[str], script: str) -> Optional[str]:
    """Records this process's launch; returns the file's path (None if it could not)."""
    d = _private_dir()
    if d is None:
        return None
    path = os.path.join(d, f"launch-{os.getpid()}.json")
    body = json.dumps({"pid": os.getpid(), "cluster": cluster, "token": token,
                       "script": script})
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(body)
    except OSError as e:
        logger.warning("cannot write run file %s: %s", path, e)
        return None
    return path


def remove(path: Optional[str]) -> None:
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def live_launches() -> List[Dict[str, Any]]:
    """Run files of launches still running, newest first (stale ones are removed)."""
    d = run_dir()
    out = []
    try:
        names = os.listdir(d)
    except OSError:
        return []
    for name in names:
        if not (name.startswith("launch-") and name.endswith(".json")):
            continue
        path = os.path.join(d, name)
        try:
            with open(path) as f:
                info = json.load(f)
            mtime = os.path.getmtime(path)
        except (OSError, ValueError):
            continue
        if not isinstance(info, dict) or not isinstance(info.get("pid"), int):
            continue
        if not _alive(info["pid"]):
            remove(path)
            continue
        info["mtime"] = mtime
        out.append(info)
    out.sort(key=lambda i: i["mtime"], reverse=True)
    return out


def token_for(address: str) -> Optional[str]:
    """The token of a live launch whose cluster has ``address``, if any."""
    for info in live_launches():
        for tasks in (info.get("cluster") or {}).values():
            if address in (tasks if isinstance(tasks, list) else []):
                return info.get("token")
    return None


__all__ = ["run_dir", "write", "remove", "live_launches", "token_for"]
