"""``tensorfleet launch``: every task of a cluster on this machine, with one command.

Each task is ``python script.py args`` in its own process group, with the
``TF_CONFIG`` of its role, the cluster token, one BLAS thread and, appended to
its arguments, the seed's ``--ps_hosts/--worker_hosts/--job_name/--task_index``
flags. The launcher merges their output (prefixed ``[worker:0] ``) and decides
the outcome:

* every worker (and the chief and evaluator, if any) exits 0: success.
  Parameter servers get a moment to exit by themselves
  (``join_until_workers_done``), then SIGTERM, then SIGKILL after ``--grace``
  seconds;
* a task exits non-zero or dies of a signal: it is restarted if it has restarts
  left (``--max-restarts``, same TF_CONFIG and port), else every other task is
  stopped and the launch fails, naming the task;
* Ctrl-C or SIGTERM to the launcher stops the chief, then the other workers, then
  the parameter servers (the chief checkpoints while they still hold the
  variables); a second Ctrl-C kills every task at once.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import secrets
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

from tensorfleet.cli import launch_checks, runfiles
from tensorfleet.cli.launch_checks import (KnownError, TracebackFilter, busy_ports,
                                           busy_ports_message, classify_error)
from tensorfleet.cli.output import PrefixWriter
from tensorfleet.cli.task_reports import TaskReports

EXIT_OK = 0
EXIT_TASK_FAILED = 1
EXIT_USAGE = 2
EXIT_SIGINT = 130
EXIT_SIGTERM = 143

EXIT_CODES_HELP = """\
exit status:
  0    every worker (and the chief and evaluator, if any) exited 0
  1    a task failed (exited non-zero or was killed) and had no restarts left;
       the last line names it, e.g. "task worker:1 failed: exit code 3"
  2    bad command line, a port of the cluster already in use, or a task could
       not be started
  130  interrupted by Ctrl-C (SIGINT); every task was stopped
  143  terminated by SIGTERM; every task was stopped
"""

# Jobs that must exit 0 for the launch to succeed; the others (ps) serve them. The
# evaluator of train_and_evaluate exits after evaluating the final checkpoint.
REQUIRED_ROLES = ("chief", "worker", "evaluator")
SERVICE_SETTLE_SECONDS = 2.0
_POLL_SECONDS = 0.05


class TaskSpec:
    """One task to run: its name, command and environment."""

    def __init__(self, job: str, index: int, address: str, argv: List[str],
                 env: Dict[str, str]):
        self.job, self.index, self.address = job, index, address
        self.argv, self.env = argv, env

    @property
    def name(self) -> str:
        return f"{self.job}:{self.index}"

    def shell_command(self, env_keys: Sequence[str] = ("TF_CONFIG",)) -> str:
        """The command a user would type to start this task by hand."""
        env = " ".join(f"{k}={shlex.quote(self.env[k])}" for k in env_keys if k in self.env)
        argv = " ".join(shlex.quote(a) for a in self.argv)
        return f"{env} {argv}".strip()


# -- planning -----------------------------------------------------------------------------------

def plan_cluster(ps: int, workers: int, chief: bool = False, evaluator: bool = False,
                 host: str = "localhost", port_base: Optional[int] = None) -> Dict[str, List[str]]:
    """Addresses of every task: ``{"chief": [..], "ps": [..], "worker": [..], "evaluator": [..]}``.

    Ports are ``port_base``, ``port_base+1``, ... in that order of jobs, or free ports.
    """
    if ps < 0 or workers < 0:
        raise ValueError("--ps and --workers must be >= 0")
    if workers + int(chief) < 1:
        raise ValueError("a cluster needs at least one worker or a chief")
    counts = [("chief", int(chief)), ("ps", ps), ("worker", workers),
              ("evaluator", int(evaluator))]
    total = sum(n for _, n in counts)
    if port_base is not None:
        if not 0 < port_base <= 65535 - total:
            raise ValueError(f"--port-base {port_base} leaves no room for {total} ports")
        ports = list(range(port_base, port_base + total))
    else:
        from tensorfleet.distributed.server import free_ports  # not needed for --help

        ports = free_ports(total)
    it = iter(ports)
    return {job: [f"{host}:{next(it)}" for _ in range(n)] for job, n in counts if n}


def tf_config_for(cluster: Dict[str, List[str]], job: str, index: int) -> str:
    """The ``TF_CONFIG`` of task ``job:index`` of ``cluster`` (see
    ``distributed.resolver.tf_config_for``)."""
    # Imported on use: the cluster classes (and numpy) are not needed to print help.
    from tensorfleet.distributed import resolver

    return resolver.tf_config_for(cluster, job, index)


def seed_flags(cluster: Dict[str, List[str]], job: str, index: int) -> List[str]:
    """The seed programs' flags for one task."""
    flags = []
    if "chief" in cluster:
        flags.append("--chief_hosts=" + ",".join(cluster["chief"]))
    flags += ["--ps_hosts=" + ",".join(cluster.get("ps", [])),
              "--worker_hosts=" + ",".join(cluster.get("worker", [])),
              f"--job_name={job}", f"--task_index={index}"]
    return flags


def build_tasks(cluster: Dict[str, List[str]], program: List[str], script_args: List[str],
                token: Optional[str], flags: bool = True,
                extra_env: Optional[Dict[str, str]] = None) -> List[TaskSpec]:
    """One ``TaskSpec`` per task of ``cluster`` (as made by ``plan_cluster``).

    ``program`` is the interpreter part of the command (``[python, -u, script.py]``).
    The evaluator's ``TF_CONFIG`` lists it; the others' leave it out, as TFJob does.
    """
    training = {j: a for j, a in cluster.items() if j != "evaluator"}
    base = dict(os.environ)
    base.update(extra_env or {})
    base.setdefault("TENSORFLEET_BLAS_THREADS", "1")
    base.setdefault("OPENBLAS_NUM_THREADS", "1")  # no idle BLAS threads spinning either
    base["PYTHONUNBUFFERED"] = "1"  # output reaches the terminal as it is printed
    base.setdefault("GRPC_VERBOSITY", "ERROR")  # no gRPC core chatter when a peer exits
    if token:
        base["TENSORFLEET_TOKEN"] = token
    tasks = []
    for job, addrs in cluster.items():
        spec_cluster = cluster if job == "evaluator" else training
        for i, addr in enumerate(addrs):
            env = dict(base)
            env["TF_CONFIG"] = tf_config_for(spec_cluster, job, i)
            env["TENSORFLEET_TASK"] = f"{job}:{i}"
            argv = list(program) + list(script_args)
            if flags:
                argv += seed_flags(training, job, i)
            tasks.append(TaskSpec(job, i, addr, argv, env))
    return tasks


# -- running -------------------------------------------------------------------------------------

def _deathsig_fn() -> Optional[Callable[[], None]]:
    """On Linux, a child gets SIGKILL if the launcher dies without cleaning up."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    PR_SET_PDEATHSIG = 1

    def set_deathsig() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    return set_deathsig


def describe_exit(rc: int) -> str:
    """``exit code 3`` or ``killed by signal SIGKILL``."""
    if rc < 0:
        try:
            return f"killed by signal {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit code {rc}"


class _Task:
    def __init__(self, spec: TaskSpec):
        self.spec = spec
        self.proc: Optional[subprocess.Popen] = None
        self.pump: Optional[threading.Thread] = None
        self.restarts = 0
        self.returncode: Optional[int] = None
        self.stopping = False
        self.known: Optional[KnownError] = None  # an error explained in one line


class Launcher:
    """Runs ``tasks`` and supervises them; ``run()`` returns the launch's exit status."""

    def __init__(self, tasks: List[TaskSpec], max_restarts: int = 0, grace: float = 10.0,
                 writer: Optional[PrefixWriter] = None, cwd: Optional[str] = None):
        self.tasks = [_Task(t) for t in tasks]
        self.max_restarts = max(0, int(max_restarts))
        self.grace = float(grace)
        self.writer = writer or PrefixWriter()
        self.cwd = cwd
        self.failed: Optional[str] = None  # "worker:1 failed: exit code 3"
        self._signal: Optional[int] = None
        self._kill_now = False  # set by a second Ctrl-C
        self._jobs = {t.job for t in tasks}
        self._deathsig = _deathsig_fn()
        self.reports = TaskReports()

    def say(self, msg: str) -> None:
        self.writer.message(f"[launch] {msg}")

    # -- processes -----------------------------------------------------------------------------
    def _start(self, t: _Task) -> None:
        t.returncode = None
        t.stopping = False
        t.known = None
        t.proc = subprocess.Popen(t.spec.argv, env=t.spec.env, cwd=self.cwd,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, start_new_session=True,
                                  preexec_fn=self._deathsig)
        t.pump = threading.Thread(target=self._pump, args=(t, t.proc),
                                  name=f"pump-{t.spec.name}", daemon=True)
        t.pump.start()

    def _pump(self, t: _Task, proc: subprocess.Popen) -> None:
        name, fd = t.spec.name, proc.stdout.fileno()
        tracebacks = TracebackFilter(lambda line: classify_error(line, self._jobs))
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                break
            self.reports.feed(name, data)
            shown = tracebacks.feed(data)
            if tracebacks.known is not None:
                t.known = tracebacks.known
            if shown:
                self.writer.feed(name, shown)
        self.writer.feed(name, tracebacks.close(), final=True)
        proc.stdout.close()

    @staticmethod
    def _signal_group(t: _Task, sig: int) -> None:
        if t.proc is None:
            return
        try:
            os.killpg(t.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _reap(self, t: _Task) -> Optional[int]:
        if t.proc is None or t.returncode is not None:
            return t.returncode
        rc = t.proc.poll()
        if rc is None:
            return None
        t.returncode = rc
        # Children the task left behind in its group go with it.
        self._signal_group(t, signal.SIGKILL)
        if t.pump is not None:
            t.pump.join(2.0)
        return rc

    def running(self) -> List[_Task]:
        return [t for t in self.tasks if t.proc is not None and self._reap(t) is None]

    def stop(self, tasks: Optional[List[_Task]] = None, grace: Optional[float] = None) -> None:
        """Stops ``tasks`` (default: all) in order: the chief, then the other workers and
        the evaluator, then the parameter servers.

        Each stage gets SIGTERM to its process groups and ``grace`` seconds before
        SIGKILL; a stage starts once the previous one has exited, so the chief writes
        its final checkpoint while the parameter servers holding the variables are up.
        After a second Ctrl-C (``_kill_now``) nothing waits.
        """
        grace = self.grace if grace is None else grace
        live = [t for t in (self.tasks if tasks is None else tasks)
                if t.proc is not None and self._reap(t) is None]
        for stage in self._stop_stages(live):
            if self._kill_now:
                break
            self._stop_stage(stage, grace)
        for t in live:  # what a second Ctrl-C left, or a stage that was skipped
            if self._reap(t) is None:
                self._signal_group(t, signal.SIGKILL)
                t.proc.wait()
                self._reap(t)

    def _stop_stages(self, tasks: List[_Task]) -> List[List[_Task]]:
        """``tasks`` grouped in stop order: chief, other workers and evaluator, the rest."""
        chief_job = "chief" if any(t.spec.job == "chief" for t in self.tasks) else "worker"

        def stage(t: _Task) -> int:
            if t.spec.job == chief_job and t.spec.index == 0:
                return 0
            return 1 if t.spec.job in REQUIRED_ROLES else 2
        stages: List[List[_Task]] = [[], [], []]
        for t in tasks:
            stages[stage(t)].append(t)
        return [s for s in stages if s]

    def _stop_stage(self, tasks: List[_Task], grace: float) -> None:
        tasks = [t for t in tasks if self._reap(t) is None]  # some exit by themselves
        for t in tasks:
            t.stopping = True
            self._signal_group(t, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while (any(self._reap(t) is None for t in tasks) and time.monotonic() < deadline
               and not self._kill_now):
            time.sleep(_POLL_SECONDS)
        for t in tasks:
            if self._reap(t) is None and not self._kill_now:
                self.say(f"{t.spec.name} did not stop within {grace:g} s; killing it")
                self._signal_group(t, signal.SIGKILL)
                t.proc.wait()
                self._reap(t)

    # -- policy -------------------------------------------------------------------------------
    def _on_signal(self, signum: int, frame) -> None:  # noqa: ANN001
        if self._signal is None:
            self._signal = signum
            return
        # A second Ctrl-C: kill at once, here, whatever the main loop is waiting for.
        # Only flags and kill(2) in a handler: printing could deadlock on the
        # writer's lock if the signal arrived while the main thread held it.
        self._kill_now = True
        for t in self.tasks:
            if t.proc is not None and t.returncode is None:
                self._signal_group(t, signal.SIGKILL)

    def run(self) -> int:
        """Starts every task and returns when the launch is decided (see module doc)."""
        handlers = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                handlers[sig] = signal.signal(sig, self._on_signal)
        try:
            return self._run()
        finally:
            try:
                self.stop(grace=0.0 if self._signal else self.grace)
            finally:
                for sig, h in handlers.items():
                    signal.signal(sig, h)

    def _run(self) -> int:
        for t in self.tasks:
            try:
                self._start(t)
            except OSError as e:
                self.failed = f"{t.spec.name} could not start: {e}"
                self.say(f"task {self.failed}")
                return EXIT_USAGE
        required = [t for t in self.tasks if t.spec.job in REQUIRED_ROLES]
        while True:
            if self._signal is not None:
                name = signal.Signals(self._signal).name
                then = (", then the parameter servers"
                        if any(t.spec.job == "ps" for t in self.running()) else "")
                self.say(f"received {name}; stopping the workers{then} "
                         f"(Ctrl-C again to kill every task at once)")
                self.stop()
                if self._kill_now:
                    self.say("received a second signal; killed every task")
                self.say(self._stopped_line())
                return EXIT_SIGINT if self._signal == signal.SIGINT else EXIT_SIGTERM
            for t in self.tasks:
                if t.stopping or t.returncode is not None:
                    continue
                rc = self._reap(t)
                if rc is None or rc == 0:
                    continue
                why = t.known.message if t.known else describe_exit(rc)
                if t.restarts < self.max_restarts and (t.known is None or t.known.retry):
                    t.restarts += 1
                    self.say(f"{t.spec.name} exited ({why}); restarting it "
                             f"({t.restarts}/{self.max_restarts})")
                    try:
                        self._start(t)
                    except OSError as e:
                        self.failed = f"{t.spec.name} could not restart: {e}"
                        self.say(f"task {self.failed}")
                        self.stop()
                        return EXIT_TASK_FAILED
                    continue
                others = self.running()
                self.failed = f"{t.spec.name} failed: {why}"
                if t.known is not None:
                    # One line for an error the tasks hit alike, whichever hit it.
                    self.stop(others)
                    names = [t.spec.name] + [o.spec.name for o in self.tasks
                                             if o is not t and o.known == t.known]
                    self.say(f"task{'s' if len(names) > 1 else ''} {', '.join(names)} "
                             f"failed: {why}")
                    return EXIT_TASK_FAILED
                if others:
                    self.say(f"{t.spec.name} failed ({why}); stopping "
                             + ", ".join(o.spec.name for o in others))
                self.stop(others)
                self.say(f"task {self.failed}" + (f" after {t.restarts} restart(s)"
                                                  if t.restarts else ""))
                return EXIT_TASK_FAILED
            if all(t.returncode == 0 for t in required):
                self._finish_services()
                return EXIT_OK
            time.sleep(_POLL_SECONDS)

    def _stopped_line(self) -> str:
        """The closing line of a launch stopped by a signal: where the checkpoint went."""
        saved = self.reports.checkpoint_summary()
        if saved:
            return f"stopped every task; {saved}; run the same command to resume from it"
        return ("stopped every task; no task reported a checkpoint written on stop "
                "(a task writes one when its MonitoredTrainingSession has a "
                "checkpoint_dir)")

    def finished_line(self) -> str:
        """The closing line of a successful launch."""
        idle = sorted(self.reports.nothing_to_train)
        chief = "chief:0" if "chief" in self._jobs else "worker:0"
        if chief in idle:
            return (f"all workers finished, but {', '.join(idle)} had nothing to train: "
                    f"the checkpoint directory was already at the last step (see above)")
        return "all workers finished successfully"

    def _finish_services(self) -> None:
        """After the workers succeeded: let the ps tasks exit by themselves, else stop them."""
        deadline = time.monotonic() + SERVICE_SETTLE_SECONDS
        while self.running() and time.monotonic() < deadline and self._signal is None:
            time.sleep(_POLL_SECONDS)
        left = self.running()
        if left:
            self.say("workers finished; stopping " + ", ".join(t.spec.name for t in left))
            self.stop(left)


# -- command line --------------------------------------------------------------------------------

def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "launch", help="start every task of a cluster on this machine",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Start every task of a cluster (chief, ps, worker, evaluator) on this "
                    "machine, each running\n`python SCRIPT ARGS` with its own TF_CONFIG, "
                    "the cluster token and the seed's flags\n--ps_hosts/--worker_hosts/"
                    "--job_name/--task_index appended after ARGS.",
        epilog="examples:\n"
               "  tensorfleet launch --ps 1 --workers 2 trainer.py --steps 1000\n"
               "  tensorfleet launch --workers 2 --chief --max-restarts 3 train.py\n"
               "  tensorfleet launch --allreduce 2 examples/allreduce_convnet.py\n"
               "  tensorfleet launch --ps 1 --workers 2 --dry-run trainer.py   "
               "# print the commands\n\n" + EXIT_CODES_HELP)
    p.add_argument("--ps", type=int, default=None, metavar="N",
                   help="parameter server tasks (default 1)")
    p.add_argument("--workers", type=int, default=None, metavar="M",
                   help="worker tasks (default 2)")
    p.add_argument("--allreduce", type=int, default=None, metavar="N",
                   help="N workers training by ring all-reduce: no ps, no seed flags, each "
                        "task's TF_CONFIG lists the N workers (instead of --ps/--workers)")
    p.add_argument("--chief", action="store_true",
                   help="add a chief task (job 'chief'); else worker 0 is the chief")
    p.add_argument("--evaluator", action="store_true",
                   help="add an evaluator task (only its own TF_CONFIG lists it); the launch "
                        "waits for it to exit too")
    p.add_argument("--max-restarts", type=int, default=0, metavar="K",
                   help="restart a failed task up to K times (same TF_CONFIG and port) "
                        "before failing the launch (default 0)")
    p.add_argument("--port-base", type=int, default=None, metavar="P",
                   help="use ports P, P+1, ... (chief, ps, workers, evaluator); default: "
                        "free ports")
    p.add_argument("--host", default="localhost",
                   help="host name in the cluster spec (default localhost)")
    p.add_argument("--grace", type=float, default=10.0, metavar="SECONDS",
                   help="time between SIGTERM and SIGKILL when stopping tasks, for each "
                        "stage of a stop: chief, other workers, ps (default 10)")
    p.add_argument("--no-flags", action="store_true",
                   help="do not append --ps_hosts/--worker_hosts/--job_name/--task_index "
                        "(for scripts whose argparse rejects unknown flags; TF_CONFIG is "
                        "still set)")
    p.add_argument("--dry-run", action="store_true",
                   help="print each task's command and TF_CONFIG, start nothing")
    p.add_argument("-m", dest="module", action="store_true",
                   help="SCRIPT is a module name, run as `python -m SCRIPT`")
    p.add_argument("script", help="the program every task runs (script.py, or a module with -m)")
    rest = p.add_argument("args", nargs=argparse.REMAINDER,
                          help="arguments for the script: everything after SCRIPT goes to it")
    rest.required = False  # a missing SCRIPT is the only thing to report
    p.set_defaults(func=run_command)
    return p


# The launcher's options that take a value, to tell an unknown option's value from the
# script path when showing where the script's options go.
VALUE_OPTIONS = ("--ps", "--workers", "--allreduce", "--max-restarts", "--port-base", "--host",
                 "--grace", "--log-level")


def unknown_options_message(tokens: Sequence[str], unknown: Sequence[str],
                            module: bool = False) -> str:
    """The error for options before the script path that the launcher does not know
    (``tokens``: the arguments after ``launch``; ``module``: ``-m`` was given), showing
    the corrected command."""
    return launch_checks.unknown_options_message(tokens, unknown, VALUE_OPTIONS, module)


def program_for(script: str, module: bool = False) -> List[str]:
    """The command prefix that runs ``script`` with this interpreter, unbuffered."""
    return [sys.executable, "-u", "-m", script] if module else [sys.executable, "-u", script]


def make_token() -> str:
    """The launch's cluster token: ``$TENSORFLEET_TOKEN`` if set, else a fresh one."""
    return os.environ.get("TENSORFLEET_TOKEN") or secrets.token_urlsafe(32)


def resolve_layout(args: argparse.Namespace) -> None:
    """Fills ``args.ps``, ``args.workers`` and ``args.no_flags`` from ``--allreduce N``
    or the defaults (1 ps, 2 workers).

    Raises:
      ValueError: ``--allreduce`` with options that describe another layout.
    """
    allreduce = getattr(args, "allreduce", None)
    if allreduce is None:
        args.ps = 1 if args.ps is None else args.ps
        args.workers = 2 if args.workers is None else args.workers
        return
    clash = [flag for flag, given in (("--ps", args.ps is not None),
                                      ("--workers", args.workers is not None),
                                      ("--chief", args.chief),
                                      ("--evaluator", args.evaluator)) if given]
    if clash:
        raise ValueError(f"--allreduce {allreduce} starts {allreduce} workers and no ps; "
                         f"drop {', '.join(clash)}")
    if allreduce < 1:
        raise ValueError(f"--allreduce needs at least 1 worker, got {allreduce}")
    # Every rank is a worker of the same TF_CONFIG cluster; the seed's flags would
    # describe a ps job that does not exist.
    args.ps, args.workers, args.no_flags = 0, allreduce, True


def run_command(args: argparse.Namespace) -> int:
    """``tensorfleet launch``."""
    try:
        resolve_layout(args)
        cluster = plan_cluster(args.ps, args.workers, args.chief, args.evaluator, args.host,
                               args.port_base)
    except ValueError as e:
        print(f"tensorfleet launch: {e}", file=sys.stderr)
        return EXIT_USAGE
    if not args.module and not os.path.exists(args.script):
        print(f"tensorfleet launch: no such script: {args.script}", file=sys.stderr)
        return EXIT_USAGE
    if args.module and not launch_checks.module_exists(args.script):
        print(f"tensorfleet launch: no such module: {args.script} (`{sys.executable} -m "
              f"{args.script}` cannot find it from {os.getcwd()})", file=sys.stderr)
        return EXIT_USAGE
    if args.max_restarts < 0:
        print("tensorfleet launch: --max-restarts must be >= 0", file=sys.stderr)
        return EXIT_USAGE
    token = make_token()
    extra = {}
    if getattr(args, "log_level", None):
        extra["TENSORFLEET_LOG_LEVEL"] = args.log_level
    tasks = build_tasks(cluster, program_for(args.script, args.module), args.args, token,
                        flags=not args.no_flags, extra_env=extra)
    if args.dry_run:
        print("# TENSORFLEET_TOKEN must be the same for every task; "
              "TENSORFLEET_BLAS_THREADS=1 is set too")
        for t in tasks:
            print(f"# {t.name} at {t.address}")
            print(t.shell_command())
        return EXIT_OK
    busy = busy_ports({t.name: t.address for t in tasks})
    if busy:
        print(f"tensorfleet launch: {busy_ports_message(busy, args.port_base)}",
              file=sys.stderr)
        return EXIT_USAGE
    training = {j: a for j, a in cluster.items() if j != "evaluator"}
    launcher = Launcher(tasks, max_restarts=args.max_restarts, grace=args.grace)
    summary = ", ".join(f"{len(a)} {j}{'s' if j == 'worker' and len(a) > 1 else ''}"
                        for j, a in cluster.items())
    first = training.get("chief", training.get("worker"))[0]
    launcher.say(f"{summary}: " + " ".join(f"{t.name}={t.address}" for t in tasks))
    launcher.say(f"watch it with: tensorfleet status grpc://{first}")
    path = runfiles.write(training, token, args.script)
    try:
        rc = launcher.run()
    finally:
        runfiles.remove(path)
    if rc == EXIT_OK:
        launcher.say(launcher.finished_line())
    return rc


__all__ = ["TaskSpec", "Launcher", "plan_cluster", "build_tasks", "seed_flags", "program_for",
           "describe_exit", "add_parser", "run_command", "unknown_options_message",
           "VALUE_OPTIONS", "EXIT_CODES_HELP"]
