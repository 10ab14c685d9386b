"""The ``mjledger`` group stated once, without click: its help, its options' helps, and each
command's module and one-line help.

Two readers build from this table. :mod:`mjledger.cli` declares the click group, its options
and each command with these words (:func:`mjledger.cli.commands.command`), and
:mod:`mjledger._console` writes the top-level ``mjledger --help`` page from them without
importing click (click alone is most of a bare ``--help``); ``tests/cli/test_top_help.py``
holds that page byte for byte to click's at every terminal width, so neither can drift.
Nothing here imports more than the interpreter has loaded already.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs a start-up more than this module
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final


class Entry:
    """A command of the group: the ``module:attribute`` of its click command, and its
    short help."""

    __slots__ = ("short_help", "where")

    def __init__(self, where: str, short_help: str) -> None:
        self.where = where
        self.short_help = short_help

    def __repr__(self) -> str:
        return f"Entry({self.where!r}, {self.short_help!r})"


# The environment variable that asks for an internal error's traceback, as ``--debug`` does.
DEBUG_ENV: Final = "MJLEDGER_DEBUG"
# The group's own help (its docstring, as click shows it).
GROUP_HELP: Final = (
    "mjledger: an event-sourced ledger for mahjong sessions (Hong Kong and Sichuan)."
)
# How the group's usage line reads after the program's name (click's words for a group).
GROUP_USAGE: Final = "[OPTIONS] COMMAND [ARGS]..."
# The names of the help option, and the words click gives it.
HELP_OPTION_NAMES: Final = ("-h", "--help")
HELP_OPTION_HELP: Final = "Show this message and exit."

# The group's options, by name, with their help, in the order ``--help`` lists them.
OPTIONS: Final[Mapping[str, str]] = {
    "--version": "Show the version and exit.",
    "--debug": "On an internal error, print the traceback ($MJLEDGER_DEBUG=1 too).",
    "--verify": "Check the digest chain of every stream read from the store; refuse a broken one.",
}

COMMANDS: Final[Mapping[str, Entry]] = {
    "audit": Entry(
        "mjledger.cli.audit:audit_command",
        "Re-derive everything in the store; report what does not agree.",
    ),
    "correct": Entry(
        "mjledger.cli.disputes:correct_command",
        "Replace a stored hand's settlement by a corrected hand.",
    ),
    "demo": Entry(
        "mjledger.cli.simulate:demo",
        "Record a short simulated match of each rule set, and show it.",
    ),
    "evaluate": Entry(
        "mjledger.cli.evaluate:evaluate", "A hand's arrangements and fan, or its waits."
    ),
    "explain": Entry(
        "mjledger.cli.disputes:explain_command",
        "Explain a hand step by step: from a log, or stored.",
    ),
    "export": Entry("mjledger.cli.main:export_command", "Print a stored match as a canonical log."),
    "hand": Entry(
        "mjledger.cli.main:hand_command",
        "One stored hand, as replaying the match's export reports it.",
    ),
    "history": Entry(
        "mjledger.cli.main:history_command",
        "A stored match, hand by hand: dealer, outcome and net.",
    ),
    "keygen": Entry(
        "mjledger.cli.audit:keygen_command",
        "Write a new Ed25519 key pair for signed checkpoints.",
    ),
    "matches": Entry(
        "mjledger.cli.standings:matches_command",
        "The matches in the store: rule set, players, hands, state.",
    ),
    "project": Entry(
        "mjledger.cli.main:project_command",
        "Bring the read models up to date, or rebuild them.",
    ),
    "record": Entry(
        "mjledger.cli.main:record_command",
        "Validate a log whole, then record it into the store.",
    ),
    "replay": Entry(
        "mjledger.cli.main:replay_command", "Replay a hand or match log and settle it."
    ),
    "report": Entry(
        "mjledger.cli.disputes:report_command",
        "Write one self-contained HTML page for a match.",
    ),
    "schema": Entry("mjledger.cli.main:schema_command", "Print the JSON Schema of the log format."),
    "scores": Entry(
        "mjledger.cli.standings:scores_command",
        "Running scores: per match, and per player across matches.",
    ),
    "serve": Entry(
        "mjledger.cli.serve:serve_command", "Serve the HTTP API under /v1 and the desk."
    ),
    "simulate": Entry(
        "mjledger.cli.simulate:simulate",
        "Simulate legal tile-level play and write match logs.",
    ),
    "streaks": Entry(
        "mjledger.cli.standings:streaks_command",
        "Dealer streaks: current dealers, each player's longest.",
    ),
    "token": Entry(
        "mjledger.cli.serve:token_group",
        "Bearer tokens for the HTTP service: create, list, revoke.",
    ),
    "void": Entry(
        "mjledger.cli.disputes:void_command",
        "Void a stored hand: its transfers stop counting.",
    ),
}
