"""The void of an abandoned hand (http-api.md, "An abandoned hand"): the empty wall, its
``hand_closed`` and the ``hand_voided`` row are stored in one transaction, on every backend;
a failed write or a lost race leaves the hand in play exactly as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mjledger.errors import ConcurrencyError, MjledgerError, StoreError
from mjledger.log.codec import decode_line
from mjledger.log.events import WallExhausted
from mjledger.store.abandoned import void_abandoned
from mjledger.store.application import Ledger
from mjledger.store.audit import audit, store_head
from mjledger.store.corrections import correction_log, void
from mjledger.store.events import HandVoided

EVENTS = (
    '{"type": "kong_declared", "player": "ana", "kind": "exposed", "from": "di", "tile": "7p"}',
    '{"type": "discarded", "player": "ana", "tile": "3s"}',
    '{"type": "won_on_discard", "player": "cy", "from": "ana", "fan": 2}',
)


def _hand_in_play(store: str, ruleset: str = "sichuan") -> Ledger:
    ledger = Ledger(store)
    ledger.start_match(ruleset, ["ana", "bo", "cy", "di"], match_id="m1")
    ledger.start_hand("m1", "di")
    for line in EVENTS if ruleset == "sichuan" else EVENTS[:2]:
        ledger.record("m1", 1, decode_line(line))  # type: ignore[arg-type]
    return ledger


@pytest.mark.parametrize("ruleset", ["sichuan", "hongkong"])
def test_the_wall_its_closing_and_the_void_are_one_transaction(
    any_store: str, ruleset: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ledger = _hand_in_play(any_store, ruleset)
    saves: list[list[Any]] = []
    real = Ledger._save

    def counted(self: Ledger, records: Any, exists: str | None = None) -> None:
        saves.append(list(records))
        real(self, records, exists)

    monkeypatch.setattr(Ledger, "_save", counted)
    result = void_abandoned(ledger, "m1", 1, reason="the table broke up", by="wen.li")
    assert [[type(r.event).__name__ for r in batch] for batch in saves] == [
        ["WallExhausted", "HandClosed", "HandVoided"]
    ]
    assert result.kind == "voided"
    assert result.net == dict.fromkeys(result.net, 0)
    # the same as recording that wall and then voiding the finished hand, in two steps
    wall = ledger.hand_events("m1", 1)[-1]
    assert isinstance(wall, WallExhausted)
    control = _hand_in_play(str(tmp_path / "control.sqlite"), ruleset)
    control.record("m1", 1, wall)
    two_steps = void(control, "m1", 1, reason="the table broke up", by="wen.li")
    assert result.original_net == two_steps.original_net
    assert control.export("m1") == ledger.export("m1")
    control.close()
    assert ledger.hand("m1", 1).state.ended
    log = correction_log(ledger, "m1")
    assert log is not None
    assert isinstance(log.entries[0].event, HandVoided)
    assert audit(any_store).findings == ()
    ledger.start_hand("m1")  # the match goes on
    ledger.close()


def test_a_write_that_fails_leaves_the_hand_in_play_and_nothing_stored(
    any_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = _hand_in_play(any_store)
    before = store_head(any_store)

    def crash(self: Ledger, records: Any, exists: str | None = None) -> None:
        raise StoreError("the disk went away", code="store_unavailable")

    monkeypatch.setattr(Ledger, "_save", crash)
    with pytest.raises(StoreError):
        void_abandoned(ledger, "m1", 1, reason="r", by="wen.li")
    monkeypatch.undo()
    assert store_head(any_store) == before
    assert not ledger.hand("m1", 1).state.ended
    assert correction_log(ledger, "m1") is None
    ledger.record("m1", 1, decode_line('{"type": "discarded", "player": "di", "tile": "1m"}'))  # type: ignore[arg-type]
    ledger.close()


def test_a_writer_that_appends_first_wins_the_race_and_nothing_is_voided(
    any_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = _hand_in_play(any_store)
    other = Ledger(any_store)
    real = Ledger._save

    def raced(self: Ledger, records: Any, exists: str | None = None) -> None:
        if self is ledger:  # the other writer's event lands between the read and the write
            other.record(
                "m1", 1, decode_line('{"type": "discarded", "player": "di", "tile": "1m"}')
            )  # type: ignore[arg-type]
        real(self, records, exists)

    monkeypatch.setattr(Ledger, "_save", raced)
    with pytest.raises(ConcurrencyError):
        void_abandoned(ledger, "m1", 1, reason="r", by="wen.li")
    monkeypatch.undo()
    assert correction_log(ledger, "m1") is None
    assert not ledger.hand("m1", 1).state.ended
    # read again, it voids the hand at its new position
    void_abandoned(ledger, "m1", 1, reason="r", by="wen.li")
    assert ledger.hand("m1", 1).state.ended
    assert audit(any_store).findings == ()
    other.close()
    ledger.close()


def test_a_finished_hand_is_voided_as_void_does(any_store: str) -> None:
    ledger = _hand_in_play(any_store, "hongkong")
    ledger.record("m1", 1, decode_line('{"type": "self_drawn", "player": "bo", "fan": 3}'))  # type: ignore[arg-type]
    result = void_abandoned(ledger, "m1", 1, reason="r", by="wen.li")
    with pytest.raises(MjledgerError, match="already voided"):
        void(ledger, "m1", 1, reason="r", by="wen.li")
    assert result.kind == "voided"
    ledger.close()
