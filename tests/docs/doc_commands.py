"""The commands the README and docs/ show, as a test finds them.

A command is a line of a plain (or shell) code block that starts with one of
``COMMAND_WORDS`` (``\\`` continuations joined, ``| ...`` and ``&& ...`` split
into their own commands), or an inline code span starting with ``tensorfleet`` or
``python`` that names a ``.py`` file. Lines after a ``$ `` prompt are output.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
COMMAND_WORDS = ("tensorfleet", "python", "pip", "kubectl", "export", "TF_CONFIG=")
_FENCE = re.compile(r"^```([A-Za-z]*)\s*$")
_INLINE = re.compile(r"`((?:tensorfleet|python) [^`]*?\.py[^`]*)`")


@dataclass(frozen=True)
class DocCommand:
    """One command of a doc: where it is, its text and whether a ``$ `` prompt shows
    its output (then it is shown failing on purpose)."""
    doc: str
    line: int
    text: str
    prompted: bool = False

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}:{self.text[:60]}"

    def words(self) -> List[str]:
        return shlex.split(self.text, comments=True)


def _split(text: str) -> List[str]:
    parts = []
    for chunk in re.split(r"\s\|\s|\s&&\s", text):
        chunk = chunk.strip().rstrip("&").strip()
        if chunk:
            parts.append(chunk)
    return parts


def _starts_command(line: str) -> bool:
    return any(line.startswith(w if w.endswith("=") else w + " ") or line == w
               for w in COMMAND_WORDS)


def commands() -> Iterator[DocCommand]:
    """Every command of every doc, in order."""
    for path in DOCS:
        name = str(path.relative_to(ROOT))
        lines = path.read_text().splitlines()
        fence = None
        shows_output = False  # a "$ " prompt came earlier in this block
        i = 0
        while i < len(lines):
            raw = lines[i]
            m = _FENCE.match(raw.strip())
            if m:
                fence = None if fence is not None else m.group(1)
                shows_output = False
                i += 1
                continue
            if fence is not None and fence in ("", "sh", "bash", "shell", "console"):
                start = i
                text = raw.strip()
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text[:-1].rstrip() + " " + lines[i].strip()
                prompted = text.startswith("$ ")
                if prompted:
                    text = text[2:]
                    shows_output = True
                elif shows_output:
                    i += 1
                    continue  # output shown after a prompt
                if _starts_command(text):
                    for part in _split(text):
                        yield DocCommand(name, start + 1, part, prompted)
            elif fence is None:
                for m in _INLINE.finditer(raw):
                    if "..." not in m.group(1):
                        for part in _split(m.group(1)):
                            yield DocCommand(name, i + 1, part)
            i += 1
