"""A player declares at most four kongs in a hand, under every rule set (sixteen tiles of
four kinds; a fifth kong cannot be held). Refusing more keeps every hand's cost bounded."""

from __future__ import annotations

import pytest

from mjledger import RuleError, replay
from tests.helpers import ANA, BO, CY, DI, jsonl, kong, match_start, new_hand


@pytest.mark.parametrize("ruleset", ["hongkong", "sichuan"])
@pytest.mark.parametrize("kind", ["concealed", "added"])
def test_a_fifth_kong_by_one_player_is_refused_naming_its_line(ruleset: str, kind: str) -> None:
    four = [match_start(ruleset), new_hand(), *(kong(BO, kind) for _ in range(4))]
    replay(jsonl(*four, kong(CY, kind), kong(DI, kind)))  # others may still declare theirs
    with pytest.raises(RuleError) as caught:
        replay(jsonl(*four, kong(BO, kind)))
    assert caught.value.line == 7
    assert caught.value.event_type == "kong_declared"
    assert "'bo' has already declared 4 kongs this hand" in str(caught.value)


def test_the_count_is_per_hand() -> None:
    hand = [kong(ANA, "concealed") for _ in range(4)]
    log = [match_start("hongkong"), new_hand(), *hand, {"type": "wall_exhausted"}]
    log += [new_hand(), *hand]
    assert len(replay(jsonl(*log)).hands) == 2
