"""Every command in the README and docs/ works as written, run from the repository root.

Each command is checked one of three ways:

* run: the command runs to the end and exits 0 (``RUN``: the ones that finish in
  seconds and need no fixed port);
* arguments: every ``tensorfleet`` command parses with the CLI's own parser (a command
  shown after a ``$`` prompt, with its error, must fail to parse); for ``launch``, the
  script exists and its own argument parser accepts the arguments every task gets
  (with the task's ``TF_CONFIG`` and seed flags); ``tensorfleet k8s`` runs and the
  script in its manifest accepts the manifest's arguments; ``python script.py ...``
  exists and accepts its arguments;
* not run (``NOT_RUN``, each with why): installing, Kubernetes itself, the test suite.

A new command in a doc is checked without a change here; a command no check can take
fails the test, so the docs cannot drift from the programs.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tensorfleet.cli import launch
from tensorfleet.cli.main import build_parser, main as cli_main

from .doc_commands import ROOT, DocCommand, commands

ALL = list(commands())

NOT_RUN = {
    "pip": "installs packages; the environment running the tests is installed already",
    "kubectl": "needs a Kubernetes cluster; the manifest it applies is checked from the "
               "tensorfleet k8s command before it",
    "python -m pytest": "is this test suite",
}

# Finish in seconds on a loaded 2-core machine and bind only free ports.
RUN = {
    "python examples/hello.py",
    "tensorfleet launch --ps 0 --workers 1 examples/hello.py",
    "tensorfleet launch --ps 1 --workers 1 examples/launch_seed_zcalc.py",
    "tensorfleet launch --allreduce 2 examples/allreduce_convnet.py --steps 300",
    "tensorfleet launch --ps 1 --workers 2 --no-flags examples/tfconfig_trainer.py "
    "--train_steps 300",
    "tensorfleet launch --chief --ps 1 --workers 1 --no-flags examples/tfconfig_trainer.py "
    "--train_steps 300",
}

# Runs a script up to its argument parser: exit 0 once its arguments parsed, 2 (the
# parser's own error) when they do not, 4 when parse_known_args left some unused.
ARG_CHECK = r"""
import argparse, os, runpy, sys
class Parsed(BaseException):
    pass
depth = [0]
orig_pa, orig_pka = argparse.ArgumentParser.parse_args, argparse.ArgumentParser.parse_known_args
def parse_args(self, args=None, namespace=None):
    depth[0] += 1
    try:
        orig_pa(self, args, namespace)
    finally:
        depth[0] -= 1
    raise Parsed()
def parse_known_args(self, args=None, namespace=None):
    depth[0] += 1
    try:
        ns, rest = orig_pka(self, args, namespace)
    finally:
        depth[0] -= 1
    if depth[0]:
        return ns, rest
    if rest:
        print("arguments left unused: %s" % rest, file=sys.stderr)
        sys.exit(4)
    raise Parsed()
argparse.ArgumentParser.parse_args = parse_args
argparse.ArgumentParser.parse_known_args = parse_known_args
kind, target = sys.argv[1], sys.argv[2]
sys.argv = [target] + sys.argv[3:]
try:
    if kind == "module":
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")
except Parsed:
    sys.exit(0)
print("the program finished without parsing its arguments", file=sys.stderr)
sys.exit(5)
"""


def _env(extra=None):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TF_CONFIG", None)
    env.update(extra or {})
    return env


def _uses_argparse(script: Path) -> bool:
    return "argparse" in script.read_text()


def _check_arguments(cmd: DocCommand, program: list, env=None) -> None:
    """``program``: [python, (-u), script.py | -m module, args...]."""
    argv = [a for a in program[1:] if a != "-u"]
    if argv[0] == "-m":
        kind, target, args = "module", argv[1], argv[2:]
    else:
        kind, target, args = "path", argv[0], argv[1:]
        script = ROOT / target
        assert script.is_file(), f"{cmd.id}: no such script {target}"
        if not _uses_argparse(script):
            assert not args, f"{cmd.id}: {target} takes no arguments, given {args}"
            return
    r = subprocess.run([sys.executable, "-c", ARG_CHECK, kind, target, *args],
                       env=_env(env), cwd=str(ROOT), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, f"{cmd.id}: {target} rejects {args}:\n{r.stderr[-2000:]}"


def _not_run_reason(words):
    text = " ".join(words)
    for prefix, why in NOT_RUN.items():
        if text == prefix or text.startswith(prefix + " "):
            return why
    return None


def _strip_env(words):
    env = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        k, v = words[0].split("=", 1)
        env[k] = v
        words = words[1:]
    return env, words


def _check_tensorfleet(cmd: DocCommand, words, tmp_path) -> None:
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(words[1:])
        ok = not unknown
    except SystemExit:
        ok = False
    if cmd.prompted:
        assert not ok, f"{cmd.id}: shown failing, but it parses"
        return
    assert ok, f"{cmd.id}: tensorfleet does not accept it"
    if getattr(args, "command", None) == "launch":
        launch.resolve_layout(args)
        cluster = launch.plan_cluster(args.ps, args.workers, args.chief, args.evaluator)
        program = launch.program_for(args.script, args.module)
        tasks = launch.build_tasks(cluster, program, args.args, "doc-token",
                                   flags=not args.no_flags)
        seen = set()
        for t in tasks:  # one task of each job: their arguments differ only by index
            if t.job not in seen:
                seen.add(t.job)
                _check_arguments(cmd, t.argv,
                                 {"TF_CONFIG": t.env["TF_CONFIG"]})
    elif getattr(args, "command", None) == "k8s":
        out = tmp_path / "manifest.yaml"
        argv = list(words[1:])
        if "-o" not in argv:
            argv[1:1] = ["-o", str(out)]
        else:
            argv[argv.index("-o") + 1] = str(out)
        assert cli_main(argv) == 0, cmd.id
        docs = [d for d in yaml.safe_load_all(out.read_text()) if d]
        commands_seen = set()
        for d in docs:
            for c in _containers(d):
                commands_seen.add(tuple(c["command"]))
        assert commands_seen, f"{cmd.id}: no container in the manifest"
        for c in commands_seen:
            # The manifest's script must exist here and accept the manifest's arguments
            # (the flags that --plain manifests append included).
            _check_arguments(cmd, [sys.executable] + list(c[1:]), _tf_config_of(docs))


def _containers(doc):
    if doc.get("kind") == "Pod":
        yield from doc["spec"]["containers"]
    for spec in (doc.get("spec", {}).get("tfReplicaSpecs") or {}).values():
        yield from spec["template"]["spec"]["containers"]


def _tf_config_of(docs):
    for d in docs:
        for c in _containers(d):
            for e in c.get("env", []):
                if e["name"] == "TF_CONFIG":
                    return {"TF_CONFIG": e["value"]}
    return {"TF_CONFIG": json.dumps({"cluster": {"worker": ["localhost:1"]},
                                     "task": {"type": "worker", "index": 0}})}


@pytest.mark.parametrize("cmd", ALL, ids=[c.id for c in ALL])
def test_a_doc_command_works_as_written(cmd: DocCommand, tmp_path):
    words = cmd.words()
    env, words = _strip_env(words)
    if _not_run_reason(words):
        return
    text = " ".join(shlex.quote(w) for w in words)
    if cmd.text.split("#")[0].strip() in RUN:
        r = subprocess.run(words if words[0] != "tensorfleet" else
                           [sys.executable, "-m", "tensorfleet.cli.main", *words[1:]],
                           env=_env(), cwd=str(ROOT), capture_output=True, text=True,
                           timeout=300, executable=sys.executable if words[0] == "python"
                           else None)
        assert r.returncode == 0, f"{cmd.id}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        return
    if words[0] == "tensorfleet":
        _check_tensorfleet(cmd, words, tmp_path)
    elif words[0] == "python":
        _check_arguments(cmd, words)
    elif words[0] == "export":
        r = subprocess.run(["bash", "-c", cmd.text], capture_output=True, text=True,
                           env=_env(), timeout=60)
        assert r.returncode == 0, f"{cmd.id}: {r.stderr}"
    else:
        pytest.fail(f"{cmd.id}: no check knows how to take {text!r}")


def test_the_commands_found_cover_every_doc_that_shows_one():
    docs = {c.doc for c in ALL}
    assert {"README.md", "docs/launcher.md", "docs/kubernetes.md", "docs/allreduce.md"} <= docs
    ran = {c.text.split("#")[0].strip() for c in ALL} & RUN
    assert ran == RUN, f"RUN names commands no doc shows: {RUN - ran}"
