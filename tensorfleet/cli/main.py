"""The ``tensorfleet`` command: one entry point, a subcommand per task a user has.

    tensorfleet launch --ps 1 --workers 2 trainer.py   # a whole cluster on this machine
    tensorfleet server --cluster spec.json --job_name ps --task_index 0
    tensorfleet status grpc://localhost:2222           # who is up, steps/s, bytes, variables
    tensorfleet demo                                   # train on the digits, 1 ps + 2 workers
    tensorfleet k8s --ps 1 --workers 2 --image IMG trainer.py   # a Kubeflow TFJob manifest
"""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import List, Optional

from tensorfleet.platform import logs
from tensorfleet.cli import demo, k8s, launch, server_cmd, status

DESCRIPTION = """\
tensorfleet: distributed TensorFlow 1.x programs in Python (`import tensorfleet as tf`).

commands:
  launch   start every task of a cluster (ps, workers, chief, evaluator) on this machine
  server   run the server of one task, for machines where tasks are started one by one
  status   show a running cluster: every task up or down, steps/s, bytes, variables on ps
  demo     train a small network on the digits with 1 ps + 2 workers, with progress bars
  k8s      write a Kubeflow TFJob (or plain Kubernetes) manifest for a training script

Run `tensorfleet COMMAND --help` for the options of one command.
"""

EPILOG = """\
logging:
  --log-level or TENSORFLEET_LOG_LEVEL (debug, info, warning, error) sets how much
  tensorfleet logs; `launch` passes the level on to every task.

getting started:
  tensorfleet demo                                  # 10-20 s, ends with the test accuracy
  tensorfleet launch --ps 1 --workers 2 trainer.py  # your own between-graph trainer
"""


class _Version(argparse.Action):
    """``--version``: the version is read when asked for (its module is not light)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: Optional[str] = None) -> None:
        from tensorfleet.platform.build_info import VERSION
        parser.exit(message=f"tensorfleet {VERSION}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (also used to render the docs)."""
    p = argparse.ArgumentParser(prog="tensorfleet", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_Version, nargs=0,
                   help="show the version of tensorfleet and exit")
    p.add_argument("--log-level", default=None, choices=logs.LEVELS, type=str.lower,
                   help="how much tensorfleet logs (default: $TENSORFLEET_LOG_LEVEL, "
                        "else warning)")
    # The commands are listed in DESCRIPTION, more readably than argparse would.
    sub = p.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)
    for module in (launch, server_cmd, status, demo, k8s):
        sp = module.add_parser(sub)
        # Also accepted after the command name; SUPPRESS keeps the top-level value.
        sp.add_argument("--log-level", default=argparse.SUPPRESS, choices=logs.LEVELS,
                        type=str.lower, help="as `tensorfleet --log-level`")
        # Unknown options are reported with the usage of the command they were given to.
        sp.set_defaults(command_parser=sp)
    return p


def close_options(parser: argparse.ArgumentParser, unknown: List[str]) -> List[str]:
    """``--wokers: did you mean --workers?`` for each option of ``unknown`` that looks
    like a misspelt option of ``parser``."""
    known = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    hints = []
    for tok in unknown:
        if not tok.startswith("--"):
            continue
        name = tok.split("=", 1)[0]
        match = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        if match:
            hints.append(f"{name}: did you mean {match[0]}?")
    return hints


def _reject_unknown(args: argparse.Namespace, argv: List[str], unknown: List[str]) -> None:
    """Exits with the command's usage and an error naming ``unknown``: a misspelt option
    gets the option it resembles; for ``launch``, other options get the command line
    with them moved after the script path."""
    sub = args.command_parser
    hints = close_options(sub, unknown)
    if hints:
        sub.error("unrecognized arguments: " + " ".join(unknown) + "\n" + "\n".join(hints))
    if args.command != "launch":
        sub.error("unrecognized arguments: " + " ".join(unknown))
    tokens = argv[argv.index("launch") + 1:]
    sub.error(launch.unknown_options_message(tokens, unknown, getattr(args, "module", False)))


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``tensorfleet`` console script; returns the exit status."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args, unknown = parser.parse_known_args(argv)
    if not getattr(args, "func", None):
        if unknown:
            parser.error("unrecognized arguments: " + " ".join(unknown))
        parser.print_help()
        return 2
    if unknown:
        _reject_unknown(args, argv, unknown)
    try:
        logs.configure_logging(args.log_level)
    except ValueError as e:
        parser.error(str(e))
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0  # `tensorfleet status | head`: the reader left


if __name__ == "__main__":
    sys.exit(main())
