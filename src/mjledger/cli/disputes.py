"""``mjledger explain``: a disputed hand, step by step, in the player's language.

``explain LOG`` explains a log (a stand-alone hand, or ``--hand N`` of a match log, or every
hand); ``explain MATCH N`` (with ``--store``) explains a stored hand, corrections included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mjledger._gc import gc_paused
from mjledger._text import escaped, plural
from mjledger.cli.commands import command
from mjledger.cli.exits import json_option
from mjledger.cli.outputs import (
    check_output,
    force_option,
    store_files,
    write_output,
    write_output_pieces,
)
from mjledger.cli.shell import open_existing_for_writing, open_ledger, refusals, store_option
from mjledger.errors import MjledgerError
from mjledger.explain.languages import DEFAULT_LANGUAGE, LANGUAGES

# Each command imports what it uses when it runs (``mjledger --help`` loads none of it).
if TYPE_CHECKING:
    from mjledger.explain.steps import HandExplanation
    from mjledger.store.application import Ledger
    from mjledger.store.corrections import CorrectionResult

lang_option = click.option(
    "--lang",
    type=click.Choice(sorted(LANGUAGES)),
    default=DEFAULT_LANGUAGE,
    show_default=True,
    help="The language of the explanation.",
)


def read_file(path: str) -> bytes:
    try:
        with click.open_file(path, "rb") as stream:
            data: bytes = stream.read()
    except OSError as exc:
        raise MjledgerError(f"cannot read {path}: {exc.strerror}", code="bad_parameter") from None
    return data


def explain_file(path: str, hand: int | None) -> tuple[tuple[HandExplanation, ...], bool]:
    """The explanation of a log file ('-': standard input), or of its hand ``hand``; and
    whether the answer is one hand (a stand-alone hand log, or ``hand`` given)."""
    from mjledger.explain.steps import explain_events
    from mjledger.log.codec import read_log_bytes
    from mjledger.log.events import HandStarted

    if hand is not None:
        return (explain_one_hand(path, hand),), True
    events = read_log_bytes(read_file(path))
    return explain_events(events), isinstance(events[0][1], HandStarted)


def explain_one_hand(path: str, hand: int) -> HandExplanation:
    """Hand ``hand`` of a log: the whole log checked first, read a block at a time as
    ``replay --json`` reads it (all or nothing, the same error), then read again only as far
    as that hand's end, keeping that hand alone (standard input is spooled to be read twice)."""
    from mjledger._spool import seekable
    from mjledger.explain.steps import explain_numbered_hand
    from mjledger.fold.stream import replay_json_parts
    from mjledger.log.reader import iter_log_file

    try:
        stream = click.open_file(path, "rb")
    except OSError as exc:
        raise MjledgerError(f"cannot read {path}: {exc.strerror}", code="bad_parameter") from None
    with seekable(stream) as source:  # type: ignore[arg-type]
        for _ in replay_json_parts(iter_log_file(source)):
            pass
        source.seek(0)
        return explain_numbered_hand(iter_log_file(source), hand)


def print_explanation(
    hands: tuple[HandExplanation, ...], lang: str, as_json: bool, single: bool
) -> None:
    from mjledger.explain.i18n import hand_json, render_text

    if as_json:
        document: Any = (
            hand_json(hands[0], lang)
            if single
            else {"hands": [hand_json(h, lang) for h in sorted(hands, key=lambda h: h.number)]}
        )
        click.echo(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        click.echo(render_text(hands, lang), nl=False)


def parse_target(args: tuple[str, ...]) -> tuple[str, int | None]:
    """``LOG`` or ``MATCH N``."""
    if len(args) == 1:
        return args[0], None
    if len(args) == 2:
        try:
            number = int(args[1])
        except ValueError:
            number = 0
        if number < 1:
            raise MjledgerError(
                f"hand number must be a positive integer, not {args[1]!r}", code="bad_parameter"
            )
        return args[0], number
    raise MjledgerError(
        "explain takes LOG, or MATCH N (a stored hand, with --store)", code="bad_parameter"
    )


def store_or_log(args: tuple[str, ...], store: str | None) -> tuple[str, int | None, bool]:
    """Whether ARGS name a stored hand (``MATCH N``, or any ARGS with ``--store``) or a log."""
    target, number = parse_target(args)
    stored = store is not None or number is not None
    if stored and number is None:
        raise MjledgerError(
            "a stored hand is named by MATCH and N: explain --store S MATCH N", code="bad_parameter"
        )
    return target, number, stored


@command("explain")
@click.argument("args", nargs=-1, required=True)
@click.option(
    "--hand", "hand", type=click.IntRange(min=1), default=None, help="Hand N of a match log."
)
@lang_option
@json_option(help="The steps as data (one JSON document).")
@store_option
@refusals
def explain_command(
    args: tuple[str, ...], hand: int | None, lang: str, as_json: bool, store: str | None
) -> None:
    """Explain a hand step by step: LOG (with --hand N for a match log), or MATCH N stored.

    Every event, the rule and house rule it fell under, the arithmetic, who paid whom and
    the running net after it, then a summary that ties to the hand's net.
    """
    from mjledger.cli.store import resolve_match
    from mjledger.explain.stored import explain_stored

    target, number, stored = store_or_log(args, store)
    if stored:
        assert number is not None
        with open_ledger(store) as ledger:
            match = resolve_match(ledger, target)
            hands: tuple[HandExplanation, ...] = (explain_stored(ledger, match, number),)
        print_explanation(hands, lang, as_json, single=True)
        return
    if target != "-" and not Path(target).exists():  # a match id without its hand number?
        raise MjledgerError(
            f"cannot read {target}: No such file or directory (a stored hand is named by "
            f"MATCH N: explain {target} N --store S)",
            code="bad_parameter",
        )
    hands, single = explain_file(target, hand)
    print_explanation(hands, lang, as_json, single)


@command("report")
@click.argument("target")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The HTML file to write (never a store or the log read).",
)
@force_option
@lang_option
@store_option
@refusals
def report_command(target: str, html_file: Path, force: bool, lang: str, store: str | None) -> None:
    """Write one self-contained HTML page for a match: TARGET is a log file, or a MATCH id
    in the store (with --store, or when no file of that name exists).

    A running-score chart, each hand's dealer, outcome and transfers, corrections marked,
    the totals; nothing is fetched from the network when the page is viewed.
    """
    from mjledger.cli.store import resolve_match
    from mjledger.explain.report import render_report, report_from_replay
    from mjledger.fold.replay import replay_bytes

    from_log = store is None and (target == "-" or Path(target).is_file())
    keep = (Path(target),) if from_log and target != "-" else store_files(store)
    check_output(html_file, force=force, keep=keep)
    if from_log:
        with gc_paused():  # a whole log folded: no cycles for a collection to find
            data = report_from_replay(replay_bytes(read_file(target)))
        write_output(html_file, render_report(data, lang), force=force, keep=keep)
        hands = len(data.hands)
    else:
        with open_ledger(store) as ledger:
            hands = _write_stored_report(
                ledger, resolve_match(ledger, target), html_file, lang, force=force, keep=keep
            )
    click.echo(escaped(f"report: {plural(hands, 'hand')} written to {html_file}"))


def _write_stored_report(
    ledger: Ledger, match: str, html_file: Path, lang: str, *, force: bool, keep: tuple[Path, ...]
) -> int:
    """A stored match's page, one hand held at a time (``stored_page``: the nets its closings
    record, then each hand settled, checked and written); where the closings do not give the
    page, every hand settled at once as before, which gives the same page or the same error."""
    from mjledger.explain.report import render_report
    from mjledger.explain.stored import NotFromClosingsError, report_from_store, stored_page

    try:
        page, nets, settled = stored_page(ledger, match)
        write_output_pieces(html_file, page.chunks(lang, nets, settled), force=force, keep=keep)
        return len(nets)
    except NotFromClosingsError:
        data = report_from_store(ledger, match)
        write_output(html_file, render_report(data, lang), force=force, keep=keep)
        return len(data.hands)


@command("correct")
@click.argument("match")
@click.argument("number", type=click.IntRange(min=1))
@click.option(
    "--with",
    "fixed",
    required=True,
    help="The corrected hand: a stand-alone hand log with the stored hand's context.",
)
@click.option("--reason", required=True, help="Why (the upheld complaint).")
@click.option("--by", "by", required=True, help="Who corrects it (a staff id).")
@click.option(
    "--keep-later-hands",
    is_flag=True,
    help="Accept a correction that would deal the next hand otherwise: later hands keep "
    "their recorded dealer, streak and round wind; only money changes.",
)
@store_option
@refusals
def correct_command(
    match: str,
    number: int,
    fixed: str,
    reason: str,
    by: str,
    keep_later_hands: bool,
    store: str | None,
) -> None:
    """Replace stored hand NUMBER's settlement by a corrected hand (a new, compensating
    record: nothing stored is changed). Refused, with nothing written, if the corrected
    hand's table differs from the stored hand's or it changes the next dealer."""
    from mjledger.cli.store import resolve_match
    from mjledger.store.corrections import correct

    text = decode_log(read_file(fixed))
    with open_existing_for_writing(store) as ledger:
        result = correct(
            ledger,
            resolve_match(ledger, match),
            number,
            text,
            reason=reason,
            by=by,
            keep_later_hands=keep_later_hands,
        )
        ledger.views.catch_up()
    click.echo(_done(result))


@command("void")
@click.argument("match")
@click.argument("number", type=click.IntRange(min=1))
@click.option("--reason", required=True, help="Why (the upheld complaint).")
@click.option("--by", "by", required=True, help="Who voids it (a staff id).")
@store_option
@refusals
def void_command(match: str, number: int, reason: str, by: str, store: str | None) -> None:
    """Void stored hand NUMBER: its transfers stop counting, its rotation stays."""
    from mjledger.cli.store import resolve_match
    from mjledger.store.corrections import void

    with open_existing_for_writing(store) as ledger:
        result = void(ledger, resolve_match(ledger, match), number, reason=reason, by=by)
        ledger.views.catch_up()
    click.echo(_done(result))


def _done(result: CorrectionResult) -> str:
    def net(values: dict[str, int]) -> str:
        return "  ".join(f"{p} {a:+d}" if a else f"{p} 0" for p, a in values.items())

    kept = "; later hands keep the recorded rotation" if result.keep_later_hands else ""
    lines = (
        f"{result.kind}: hand {result.number} of match {result.match} "
        f"(correction {result.correction}){kept}",
        f"  before: {net(result.original_net)}",
        f"  now:    {net(result.net)}",
    )
    return "\n".join(map(escaped, lines))


def decode_log(data: bytes) -> str:
    """A log's text, or the error naming the first line that is not UTF-8."""
    from mjledger.log.codec import read_log_bytes

    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        read_log_bytes(data)  # raises the error naming the line
        raise
