"""Programs shown in full in docs/ are the example files the doc commands run."""

import re

from .doc_commands import ROOT


def _python_block_after(doc: str, heading: str) -> str:
    text = (ROOT / doc).read_text()
    section = text[text.index(heading):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def _without_docstring(path) -> str:
    text = path.read_text()
    assert text.startswith('"""')
    return text[text.index('"""', 3) + 3:].lstrip("\n")


def test_the_kubernetes_program_is_the_example_file_run_by_its_commands():
    shown = _python_block_after("docs/kubernetes.md", "## The program")
    assert shown == _without_docstring(ROOT / "examples" / "tfconfig_trainer.py")
    # It tells the chief from worker 0 itself, with and without a Chief replica.
    assert 'is_chief = job == "chief" or ("chief" not in cluster.jobs and index == 0)' in shown
