"""Replay a whole log through the folds and shape the result as the contract's JSON output.

``replay`` is all or nothing: the first rejected line raises, and no partial result escapes,
because a half-replayed match is exactly the kind of wrong figure a dispute must not see.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, get_origin

from attrs import frozen

from mjledger._gc import gc_paused
from mjledger.errors import FormatError, MjledgerError
from mjledger.fold.hand import HandState, Transfer, net_of
from mjledger.fold.match import MatchFold, MatchState, finish, start
from mjledger.fold.output import hand_to_json as hand_to_json
from mjledger.fold.output import transfer_to_json as transfer_to_json
from mjledger.log.events import Event
from mjledger.log.reader import iter_log, iter_text
from mjledger.rules.house import rules_to_json
from mjledger.rules.protocol import HouseRules

# cattrs is imported with the output converter, when it is first asked for (``OUTPUT``, for
# the store's read models): ``replay --json`` writes its output without it.
if TYPE_CHECKING:
    import cattrs

    OUTPUT: cattrs.Converter


@frozen
class Replay:
    """The settled result of a log: the table, each hand as finally folded, and the totals."""

    ruleset: str
    match: str | None
    players: tuple[str, ...]
    rules: HouseRules
    hands: tuple[HandState, ...]
    state: MatchState

    def totals(self) -> dict[str, int]:
        return net_of(self.players, (t for h in self.hands for t in h.transfers))

    def to_json(self) -> dict[str, Any]:
        """Exactly the replay output of log-format.md ("Replay output"); with table stakes
        also ``stakes``, the balances the match started with (variants.md)."""
        out = {
            "ruleset": self.ruleset,
            "match": self.match,
            "players": list(self.players),
            "rules": rules_to_json(self.rules),
            "hands": [hand_to_json(h) for h in self.hands],
            "totals": self.totals(),
        }
        if self.state.initial_stakes is not None:
            out["stakes"] = {p: self.state.initial_stakes[p] for p in self.players}
        return out


def _is_tuple(t: Any) -> bool:
    return t is tuple or get_origin(t) is tuple


def make_output_converter() -> cattrs.Converter:
    """The converter that shapes outputs as JSON: arrays for tuples, and a transfer's payer and
    payee under the contract's names (``from``, ``to``)."""
    import cattrs
    from cattrs.gen import make_dict_unstructure_fn, override

    conv = cattrs.Converter()
    conv.register_unstructure_hook_func(
        _is_tuple, lambda value: [conv.unstructure(v) for v in value]
    )
    conv.register_unstructure_hook(
        Transfer,
        make_dict_unstructure_fn(
            Transfer, conv, payer=override(rename="from"), payee=override(rename="to")
        ),
    )
    return conv


@cache
def output_converter() -> cattrs.Converter:
    """The output converter (:func:`make_output_converter`), made once, when first needed."""
    return make_output_converter()


def __getattr__(name: str) -> Any:
    """``OUTPUT``: the output converter, made when a reader first asks for it (PEP 562)."""
    if name == "OUTPUT":
        return output_converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Replayer:
    """Folds one log's numbered events as they arrive; :meth:`result` settles what it has.

    ``replay_events`` is this in one call; the store feeds several at once when it re-derives
    every match from its notification log.
    """

    __slots__ = ("fold", "settled")

    def __init__(self) -> None:
        self.fold: MatchFold | None = None
        self.settled: list[HandState] = []  # every hand before the latest, as it ended

    @property
    def state(self) -> MatchState | None:
        return None if self.fold is None else self.fold.state

    def feed(self, line: int | None, event: Event) -> None:
        if self.fold is None:
            self.fold = MatchFold(start(event, line))
            return
        settled = self.fold.feed(event, line)
        if settled is not None:
            self.settled.append(settled)

    def result(self) -> Replay:
        if self.fold is None:
            raise FormatError("the log is empty", line=1)
        state = finish(self.fold.state)
        hands = self.settled if state.hand is None else [*self.settled, state.hand]
        return Replay(
            ruleset=state.ruleset,
            match=state.match_id,
            players=state.players,
            rules=state.rules,
            hands=tuple(hands),
            state=state,
        )


def replay_events(events: Iterable[tuple[int | None, Event]]) -> Replay:
    """Fold numbered events (as :func:`mjledger.log.codec.parse_log` gives them) into a replay."""
    replayer = Replayer()
    numbered = iter(events)
    # A fold makes no reference cycles, so the collector is paused while it runs (a fifth of
    # the time went to collections walking the settled hands) and left as the caller had it.
    # (What the fold made is not aged or frozen on the way out, as ``replay`` the command
    # does: in a caller's long-running process that would hold back its own cyclic garbage;
    # see mjledger/_gc.py.)
    with gc_paused():
        return _replayed(replayer, numbered)


def _replayed(replayer: Replayer, numbered: Iterator[tuple[int | None, Event]]) -> Replay:
    try:
        for line, event in numbered:  # the first event starts the match ...
            replayer.feed(line, event)
            break
        if replayer.fold is not None:  # ... and a hand's events are folded in one loop
            replayer.settled.extend(replayer.fold.feed_all(numbered))
    except MjledgerError:
        for _ in numbered:  # a stream's later line the codec refuses is the log's error
            pass
        raise
    return replayer.result()


def replay(text: str) -> Replay:
    """Replay a log given as text (JSON Lines), folding each event as it is decoded."""
    return replay_events(iter_text(text))


def replay_bytes(data: bytes) -> Replay:
    """Replay a log given as raw bytes (checked to be UTF-8, line by line)."""
    return replay_events(iter_log((data,)))
