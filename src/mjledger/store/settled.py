"""What a stored hand settles, as ``replay`` of its match's export reports it: transfer lines
are lines of the export, an open run of wins is closed, the next dealer is the one the match
recorded, and upheld disputes apply (:mod:`mjledger.store.corrections`). The ledger's
``settlement`` and ``hand_at`` verbs (:class:`mjledger.store.application.Ledger`) read here.
"""

from __future__ import annotations

import attrs

from mjledger.errors import LogError, StoreError
from mjledger.fold.hand import HandState, close_hand
from mjledger.store.corrections import settle_corrected
from mjledger.store.hand_forms import shift_lines
from mjledger.store.reads import StoredLedger


def settled_hand(ledger: StoredLedger, match_id: str, number: int) -> HandState:
    """Hand ``number`` as ``replay`` of the match's export settles it (see the module)."""
    match = ledger.match(match_id)
    try:
        hand = ledger.hand(match_id, number)
    except LogError as exc:  # an illegal stored row: placed at its line of the export
        line = None if exc.line is None else match.first_line(number) + exc.line - 1
        raise StoreError(
            f"stored hand {number} cannot be settled: {exc.at(line)}", code="store_damaged"
        ) from None
    # An open run of wins is closed as the end of the export would close it, then hand-stream
    # positions become export lines.
    state = shift_lines(close_hand(hand.state), match.first_line(number) - 1)
    if number <= len(match.closed):
        state = attrs.evolve(state, next_dealer=match.closed[number - 1].next_dealer)
    # Upheld disputes are a compensating record beside the hand (store.corrections).
    return settle_corrected(ledger, match, number, state)


def hand_at_version(ledger: StoredLedger, match_id: str, number: int, version: int) -> HandState:
    """Hand ``number`` after its first ``version`` events (1 is its ``hand_started``), as a
    dispute asks about it, its transfer lines those of the export."""
    stored = ledger.hand(match_id, number).version
    if not 1 <= version <= stored:
        raise StoreError(
            f"hand {number} of match {match_id!r} has versions 1 to {stored}, not {version}",
            code="no_hand",
        )
    state = ledger.hand(match_id, number, version=version).state
    match = ledger.match(match_id)
    return shift_lines(close_hand(state), match.first_line(number) - 1)
