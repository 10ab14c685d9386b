"""``mjledger audit`` and ``mjledger keygen``: the audit's and the signing keys' command line.

A thin shell over :mod:`mjledger.store.audit` and :mod:`mjledger.store.signing`. Exit status follows
``diff`` and the command line's statuses (:mod:`mjledger.cli.exits`): 0 when the store is clean,
1 when there is any finding, 2 when the store cannot be read (one line on standard error), 70 on
an internal error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mjledger._replay_json import phases
from mjledger._text import plural
from mjledger.cli.commands import command
from mjledger.cli.exits import EXIT_FINDINGS, json_option
from mjledger.cli.shell import key_option, print_json, refusals, store_option

# The store and rich are imported when a command runs (not on every start-up).
if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from mjledger.store.audit import AuditReport, Finding
    from mjledger.store.since import Consistency


@command("audit")
@store_option
@click.option("--match", "matches", multiple=True, help="Audit only this match (repeatable).")
@json_option(help="Print the findings as JSON.")
@key_option(
    "--public-key",
    "Verify every signature with this public key (PATH.pub of keygen PATH); an unsigned "
    "hand or head is then a finding.",
)
@click.option("--head", "head_only", is_flag=True, help="Print the store's head digest and stop.")
@click.option(
    "--since",
    "since_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A head saved from audit --head --json: prove the store extends it (a rollback or a "
    "rewrite is a finding).",
)
@refusals
def audit_command(
    store: str | None,
    matches: tuple[str, ...],
    as_json: bool,
    public_key: Path | None,
    head_only: bool,
    since_file: Path | None,
) -> None:
    """Re-derive everything in the store and report what does not agree (exit 1 if anything)."""
    from mjledger.cli.render import TerminalConsole
    from mjledger.store.audit import Auditor, AuditReport
    from mjledger.store.signing import load_verifier
    from mjledger.store.since import read_saved_head, since

    require_existing(store)
    if head_only:
        _print_head(store, as_json)
        return
    saved = read_saved_head(since_file) if since_file is not None else None
    verifier = load_verifier(public_key) if public_key is not None else None
    with phases() as step:
        step("auditing", 0, None)
        auditor = Auditor(
            store,
            matches=matches or None,
            public_key=verifier,
            progress=lambda done, total: step("auditing", done, total),
        )
        findings = tuple(auditor.run())
        consistency = None if saved is None else since(store, saved, verifier)
    if consistency is not None:
        findings += consistency.findings
    report = AuditReport(findings, auditor.summary)
    if as_json:
        document = report.to_json()
        if consistency is not None:
            document["since"] = consistency.to_json()
        print_json(document)
    else:
        _render(report, TerminalConsole(), consistency)
    if findings:
        sys.exit(EXIT_FINDINGS)


def require_existing(store: str | None) -> None:
    """A PostgreSQL store must be there before it is audited (a SQLite file is checked by
    the audit itself): the audit reads, and reading creates nothing."""
    from mjledger.store.location import PostgresStore, store_location

    location = store_location(store)
    if isinstance(location, PostgresStore):
        from mjledger.store.postgres import require_store

        require_store(location)


def _print_head(store: str | None, as_json: bool) -> None:
    from mjledger.store.audit import store_head

    head = store_head(store)
    if as_json:
        print_json(head.to_json())
    else:
        click.echo(head.digest)
    if not head.agrees:
        stored = (
            "none"
            if head.stored_digest is None
            else f"{head.stored_digest} ({head.stored_rows} rows)"
        )
        click.echo(
            f"mjledger: the stored head ({stored}) is not the head of the "
            f"{plural(head.rows, 'row')} stored: run mjledger audit",
            err=True,
        )
        sys.exit(EXIT_FINDINGS)


def _render(report: AuditReport, console: Console, consistency: Consistency | None) -> None:
    from mjledger.cli.render import inert

    s = report.summary
    heading = inert(f"audit of {s.store}", style="bold")
    console.print(
        heading.append(
            f": {plural(s.matches, 'match', 'matches')}, {plural(s.hands, 'hand')}, "
            f"{plural(s.tables, 'table')}, {plural(s.rows, 'row')}"
        )
    )
    signed = "signed" if s.head_signed else "unsigned"
    console.print(f"store head: {s.head} ({plural(s.rows, 'row')}, {signed})", soft_wrap=True)
    checked = "verified" if s.signatures_checked else "not verified (no --public-key)"
    console.print(f"signatures: {plural(s.signed_hands, 'hand')} signed; {checked}")
    console.print(f"read models: {s.views}")
    if consistency is not None:
        console.print(_since_line(consistency), soft_wrap=True)
    if report.clean:
        console.print(inert("no findings", style="green"))
        return
    counts: dict[str, int] = {}
    for finding in report.findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
        console.print(_line(finding), soft_wrap=True)
    summary = ", ".join(f"{code} {n}" for code, n in counts.items())
    console.print(
        inert(plural(len(report.findings), "finding"), style="red").append(f": {summary}")
    )


def _since_line(consistency: Consistency) -> Text:
    from rich.text import Text

    saved = consistency.saved
    head = f"since the saved head ({plural(saved.rows, 'row')}): "
    if not consistency.consistent:
        return Text(head).append("not extended", style="red")
    added = consistency.rows - saved.rows
    return Text(f"{head}extended by {plural(added, 'row')}, the same rows in the same order")


def _line(finding: Finding) -> Text:
    from mjledger.cli.render import inert

    text = str(finding)
    return inert(finding.code, style="red").append_text(inert(text[len(finding.code) :]))


@command("keygen")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@refusals
def keygen_command(path: Path) -> None:
    """Write a new Ed25519 private key to PATH and its public key to PATH.pub."""
    from mjledger.store.signing import keygen

    private, public = keygen(path)
    click.echo(f"private key: {private} (keep it secret; record --signing-key uses it)")
    click.echo(f"public key: {public} (audit --public-key uses it)")
