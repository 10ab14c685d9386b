"""The corrections pass: a match's corrections stream and each corrected hand's stream.

Read once before the match's hands (what the read models must show for a corrected or voided
hand, :meth:`Corrections.in_force`) and audited after them (:meth:`Corrections.audit`).
"""

from __future__ import annotations

import json
from typing import Any

from mjledger.errors import RuleError
from mjledger.fold.hand import close_hand
from mjledger.fold.match import evolve, start
from mjledger.log.events import HandStarted
from mjledger.store.audit.chains import Row, read_chain, read_stream
from mjledger.store.audit.run import Run
from mjledger.store.audit.signatures import check_signature
from mjledger.store.correction_log import correction_stream, corrections_stream
from mjledger.store.events import HandCorrected, HandVoided
from mjledger.store.integrity import link
from mjledger.store.streams import match_stream


class Corrections:
    """A match's corrections stream (``corrections/{match}``) and each corrected hand's stream.

    The rows are read once before the match's hands, to know what the read models must show
    for a corrected or voided hand, and audited after them: the first row chains from one of
    the match stream's digests (the latest when the first correction was made), each later row
    from the one before; a corrected hand's stream starts from the digest its ``hand_corrected``
    row chains from, which records its length and last digest; the corrected hand replays to
    the row's outcome, winners and net; ``original_net`` is the net in force before it.
    """

    def __init__(self, run: Run, match_id: str) -> None:
        self.run = run
        self.match = match_id
        self.stream = corrections_stream(match_id).hex
        self.rows: list[dict[str, Any]] = []
        for state in run.rows.states(self.stream):
            try:
                self.rows.append(json.loads(state))
            except ValueError:
                self.rows.append({})
        self.anchored: str | None = None
        self._first = self.rows[0] if self.rows else None

    def anchor(self, digest: str) -> None:
        """Offer one of the match stream's digests as where the corrections chain starts."""
        first = self._first
        if (
            first is not None
            and self.anchored is None
            and link(digest, first) == first.get("digest")
        ):
            self.anchored = digest

    def in_force(self, number: int, expected: dict[str, Any]) -> dict[str, Any]:
        """What the read models show for hand ``number``: the latest correction applied."""
        for row in reversed(self.rows):
            if row.get("number") != number:
                continue
            if row.get("type") == HandVoided.TYPE:
                return {**expected, "net": dict.fromkeys(expected["net"], 0)}
            if row.get("type") == HandCorrected.TYPE:
                return {
                    **expected,
                    "outcome": row.get("outcome"),
                    "winners": row.get("winners"),
                    "net": row.get("net"),
                }
        return expected

    def audit(self, latest: str) -> None:
        if not self.rows:
            return
        run = self.run
        previous = self.anchored if self.anchored is not None else latest
        in_force: dict[int, dict[str, int]] = {}
        stream = self.stream
        raw = run.rows.stream(stream)
        for row in read_chain(run, raw, previous, stream, lambda v: {"match": self.match}):
            where = {"match": self.match, "stream": stream, "version": row.version}
            event = row.event
            if isinstance(event, (HandCorrected, HandVoided)):
                where["hand"] = event.number
                check_signature(run, row, self.match, event.number, stream, None)
                before = in_force.get(event.number)
                if before is None:
                    before = self._recorded_net(event.number)
                if before is not None and event.original_net != before:
                    run.find(
                        "replay_differs",
                        f"{event.TYPE}: original_net is not the net in force before it",
                        expected=before,
                        found=event.original_net,
                        **where,
                    )
                if isinstance(event, HandVoided):
                    in_force[event.number] = dict.fromkeys(event.original_net, 0)
                else:
                    in_force[event.number] = event.net
                    self._corrected_hand(event, row.version, previous, where)
            elif event is not None:
                run.find("row_misplaced", "a corrections stream holds corrections only", **where)
            previous = row.digest

    def _recorded_net(self, number: int) -> dict[str, int] | None:
        """The net hand ``number`` was closed with (its hand_closed row)."""
        found = self.run.rows.state_at(match_stream(self.match).hex, number + 1)
        try:
            net = json.loads(found)["net"] if found is not None else None
        except (ValueError, KeyError):
            return None
        return net if isinstance(net, dict) else None

    def _corrected_hand(
        self, event: HandCorrected, version: int, previous: str, where: dict[str, Any]
    ) -> None:
        run = self.run
        if event.correction != version:
            run.find(
                "closing_differs",
                "hand_corrected: correction is not its place in the corrections stream",
                expected=version,
                found=event.correction,
                **where,
            )
        stream = correction_stream(self.match, event.number, event.correction).hex
        rows = read_stream(
            run,
            run.rows.stream_rows(stream),
            previous,
            stream,
            lambda v: {"match": self.match, "hand": event.number},
        )
        if not rows:
            run.find("hand_missing", "the corrected hand's stream is empty", **where)
            return
        run.corrected_streams += 1
        found = {"events": event.events, "hand_digest": event.hand_digest}
        fingerprint = {"events": len(rows), "hand_digest": rows[-1].digest}
        if found != fingerprint:
            run.find(
                "closing_differs",
                "hand_corrected does not fit its corrected hand's stream",
                expected=fingerprint,
                found=found,
                **where,
            )
        self._replay(event, rows, where)

    def _replay(self, event: HandCorrected, rows: list[Row], where: dict[str, Any]) -> None:
        """The corrected hand replayed, against the result its hand_corrected states."""
        run = self.run
        first = rows[0].event
        if not isinstance(first, HandStarted):
            run.find("row_misplaced", "a corrected hand starts with hand_started", **where)
            return
        try:
            state = start(first, 1)
            for row in rows[1:]:
                if row.event is None:
                    return
                state = evolve(state, row.event, row.version)
        except RuleError as exc:
            run.find("replay_refused", f"corrected hand: {exc}", **where)
            return
        assert state.hand is not None
        hand = close_hand(state.hand)
        replayed = {"outcome": hand.outcome, "winners": list(hand.winners), "net": hand.net()}
        stored = {"outcome": event.outcome, "winners": list(event.winners), "net": event.net}
        if replayed != stored:
            run.find(
                "replay_differs",
                "hand_corrected is not what its corrected hand replays to",
                expected=replayed,
                found=stored,
                **where,
            )
