"""A settled hand as the contract's JSON output (what ``replay`` and ``replay --json`` write of
it, and the HTTP API's reads): kept apart from :mod:`mjledger.fold.replay`, which re-exports
it, so that ``replay --json`` writes its hands without importing the whole-log replay (its
``Replay`` class, the store's output converter) it never uses.
"""

from __future__ import annotations

from typing import Any

from mjledger.fold.hand import HandState, Transfer


def transfer_to_json(t: Transfer) -> dict[str, Any]:
    """``OUTPUT.unstructure(t)``, spelled out: a replay writes one for every transfer, and the
    converter's generic dispatch was a tenth of the time ``replay --json`` took."""
    return {"from": t.payer, "to": t.payee, "amount": t.amount, "reason": t.reason, "line": t.line}


def hand_to_json(hand: HandState) -> dict[str, Any]:
    return {
        "number": hand.number,
        "dealer": hand.dealer,
        "dealer_streak": hand.dealer_streak,
        "round_wind": hand.round_wind,
        "outcome": hand.outcome,
        "winners": list(hand.winners),
        "transfers": [transfer_to_json(t) for t in hand.transfers],
        "net": hand.net(),
        "next_dealer": hand.next_dealer,
        # Table stakes (variants.md): each player's balance after the hand.
        **({} if hand.stakes is None else {"balances": hand.stakes.as_dict()}),
    }
