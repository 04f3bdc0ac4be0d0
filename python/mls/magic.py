"""The ``%%mls`` cell magic (``%load_ext mls``): the cell is an mls scenario, run by mls.run.

    %%mls [-o NAME] [--use NAME=CHOICE]... [--set NAME=VALUE]... [--preset NAME]
          [--uncertainty N] [--seed S] [--max-points N] [--keep-going] [--name NAME] [-h]

The Run is the cell's output (results with their assumptions folded, tables with units and the
report's charts); ``-o NAME`` also binds it to NAME in the notebook. An error in the cell raises
mls.Error, its code and place (``<cell>:LINE:COL``) in the message.
"""

import argparse
import shlex

from ._errors import UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError("%%%%mls: %s (usage: %s)" % (message, self.format_usage().strip()))


def _pair(text):
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError("expected NAME=VALUE, got %r" % text)
    return name.strip(), value.strip()


def parser():
    p = _Parser(
        prog="%%mls",
        add_help=False,
        description="Runs the cell as an mls scenario; the Run is the cell's output.",
        epilog="Example: %%mls -o plan --use batch=global --set gpus=2048",
    )
    p.add_argument("-o", "--output", metavar="NAME", help="bind the Run to NAME in the notebook")
    p.add_argument("--use", type=_pair, action="append", default=[], metavar="NAME=CHOICE",
                   help="choose a convention (as mls run --use); repeatable")  # fmt: skip
    p.add_argument("--set", type=_pair, action="append", default=[], metavar="NAME=VALUE",
                   help="override a global or a record's field (as mls run --set); repeatable")  # fmt: skip
    p.add_argument("--preset", metavar="NAME", help="a named set of conventions (mls presets)")
    p.add_argument("--uncertainty", type=int, metavar="N", help="N Monte Carlo samples of the uncertain inputs")
    p.add_argument("--seed", type=int, metavar="S", help="the Monte Carlo seed (default 1)")
    p.add_argument("--max-points", type=int, metavar="N", help="the sweep cap (default 10^6)")
    p.add_argument("--keep-going", action="store_true", help="run on past a failing statement")
    p.add_argument("--name", default="<cell>", help="what the cell is called in messages")
    p.add_argument("-h", "--help", action="store_true", help="print this help; the cell is not run")
    return p


def help_text():
    """What ``%%mls --help`` prints: the options, each with what it does."""
    return parser().format_help()


def run_cell(line, cell, namespace=None):
    """Runs one ``%%mls`` cell: ``line`` the magic's options, ``cell`` the scenario."""
    from . import run

    a = parser().parse_args(shlex.split(line))
    if a.help:
        print(help_text(), end="")
        return None
    r = run(
        cell if cell.endswith("\n") else cell + "\n",
        use=a.use,
        set=a.set,
        preset=a.preset,
        uncertainty=a.uncertainty,
        seed=a.seed,
        max_points=a.max_points,
        keep_going=a.keep_going,
        name=a.name,
    )
    if a.output and namespace is not None:
        namespace[a.output] = r
    return r


def register(ipython):
    def mls(line, cell):
        return run_cell(line, cell, ipython.user_ns)

    mls.__doc__ = __doc__
    ipython.register_magic_function(mls, magic_kind="cell", magic_name="mls")
