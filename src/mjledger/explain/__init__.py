"""Disputed hands explained: every step of a hand with its rule, operands, arithmetic and
running net (:mod:`.steps`, data in no language), in six languages (:mod:`.i18n`), a stored
hand with its corrections (:mod:`.stored`), and a match as one HTML page (:mod:`.report`)."""

from mjledger.explain.steps import (
    CorrectionNote,
    ExplanationError,
    HandExplanation,
    Payment,
    Sentence,
    Step,
    explain_events,
    explain_hand,
    explain_log,
    iter_sentences,
    money_by_player,
    select_hand,
)

__all__ = [
    "CorrectionNote",
    "ExplanationError",
    "HandExplanation",
    "Payment",
    "Sentence",
    "Step",
    "explain_events",
    "explain_hand",
    "explain_log",
    "iter_sentences",
    "money_by_player",
    "select_hand",
]
