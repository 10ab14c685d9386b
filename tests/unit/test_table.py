"""Table stakes, the batch cap on its own (variants.md, "Table stakes"): worked figures and
Hypothesis over random batches."""

from __future__ import annotations

from collections import Counter

from attrs import frozen
from hypothesis import given
from hypothesis import strategies as st

from mjledger.rules.table import Stakes

P = ("ana", "bo", "cy", "di")


@frozen
class Due:
    payer: str
    payee: str
    amount: int
    reason: str = "x"


def test_a_payer_who_cannot_cover_pays_the_balance_in_proportion() -> None:
    """variants.md: "split among that batch's payees in proportion to what each was due,
    rounded down; the points left over go one each to those payees in turn order starting
    after the payer" — 92 against 384 to each of three: 30 each and 2 left, to bo and cy."""
    stakes = Stakes.start(P, {"ana": 92, "bo": 1024, "cy": 992, "di": 992})
    paid, after = stakes.settle([Due("ana", p, 384) for p in ("bo", "cy", "di")])
    assert [(d.payee, d.amount) for d in paid] == [("bo", 31), ("cy", 31), ("di", 30)]
    assert after.as_dict() == {"ana": 0, "bo": 1055, "cy": 1023, "di": 1022}
    assert after.bust == {"ana"}


def test_the_worked_example_of_variants_md() -> None:
    """variants.md: "ana owes 9 but holds 5, so ana pays 5 and is bust; bo and di pay 9 each.
    cy collects 23"."""
    stakes = Stakes.start(P, {"ana": 5, "bo": 100, "cy": 100, "di": 100})
    paid, after = stakes.settle([Due(p, "cy", 9) for p in ("ana", "bo", "di")])
    assert [(d.payer, d.amount) for d in paid] == [("ana", 5), ("bo", 9), ("di", 9)]
    assert after.balance("cy") == 123
    assert after.bust == {"ana"}


def test_a_payee_share_fills_the_dues_in_the_order_of_the_checks() -> None:
    """variants.md: "the transfers to a payee keep their reasons, filled in the order the
    checks run" (tests/data/variants/README.md, sichuan-stakes-wall)."""
    stakes = Stakes.start(P, {"ana": 21, "bo": 93, "cy": 113, "di": 93})
    dues = [
        Due("ana", "bo", 16, "flower_pig"),
        Due("ana", "cy", 16, "flower_pig"),
        Due("ana", "di", 16, "flower_pig"),
        Due("ana", "bo", 16, "not_ready"),
        Due("ana", "di", 1, "not_ready"),
        Due("ana", "bo", 2, "kong_refund"),
        Due("ana", "cy", 2, "kong_refund"),
        Due("ana", "di", 2, "kong_refund"),
    ]
    paid, after = stakes.settle(dues)
    assert [(d.payee, d.amount, d.reason) for d in paid] == [
        ("bo", 11, "flower_pig"),
        ("cy", 5, "flower_pig"),
        ("di", 5, "flower_pig"),
    ]
    assert after.as_dict() == {"ana": 0, "bo": 104, "cy": 118, "di": 98}


def test_once_bust_a_player_pays_nothing_even_after_receiving() -> None:
    stakes = Stakes.start(P, {"ana": 3, "bo": 10, "cy": 10, "di": 10})
    _, after = stakes.settle([Due("ana", "bo", 3)])
    _, after = after.settle([Due("bo", "ana", 4)])
    assert after.balance("ana") == 4
    paid, again = after.settle([Due("ana", "cy", 2)])
    assert paid == ()
    assert again == after


batches = st.lists(
    st.builds(
        Due,
        st.sampled_from(P),
        st.sampled_from(P),
        st.integers(0, 500),
        st.sampled_from(("a", "b", "c")),
    ).filter(lambda d: d.payer != d.payee),
    max_size=12,
)


@given(
    st.lists(st.integers(0, 400), min_size=4, max_size=4),
    st.sets(st.sampled_from(P)),
    batches,
)
def test_a_batch_never_overdraws_never_overpays_and_sums_to_zero(
    balances: list[int], bust: set[str], dues: list[Due]
) -> None:
    before = Stakes(
        P,
        tuple(balances),
        frozenset(bust) | {p for p, b in zip(P, balances, strict=True) if b == 0},
    )
    paid, after = before.settle(dues)
    assert sum(after.balances) == sum(before.balances)
    assert min(after.balances) >= 0
    owed: Counter[tuple[str, str]] = Counter()
    for d in dues:
        owed[(d.payer, d.payee)] += d.amount
    got: Counter[tuple[str, str]] = Counter()
    for d in paid:
        assert d.amount > 0
        got[(d.payer, d.payee)] += d.amount
    assert all(got[k] <= owed[k] for k in got)
    for p in P:
        total = sum(d.amount for d in dues if d.payer == p)
        out = sum(d.amount for d in paid if d.payer == p)
        expected = 0 if p in before.bust else min(total, before.balance(p))
        assert out == expected
    assert after.bust == before.bust | {p for p in P if after.balance(p) == 0}
    # each payer's payments are a subsequence of their dues, each due at most in full
    for p in P:
        rest = iter(d for d in dues if d.payer == p)
        for d in (d for d in paid if d.payer == p):
            assert any(
                (x.payee, x.reason) == (d.payee, d.reason) and x.amount >= d.amount for x in rest
            ), d
