"""Disputed hands explained: every step of a hand with its rule, operands, arithmetic and
running net (:mod:`.steps`, data in no language), in six languages (:mod:`.i18n`), a stored
hand with its corrections (:mod:`.stored`), and a match as one HTML page (:mod:`.report`)."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    # steps is loaded when first asked for: the command line reads LANGUAGES (languages.py)
    # on every start-up, and that must not load the explanations.
    if name not in __all__:
        raise AttributeError(f"module 'mjledger.explain' has no attribute {name!r}")
    from mjledger.explain import steps

    return getattr(steps, name)
