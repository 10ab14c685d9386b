"""House rules in general: the JSON form of any rule set's options, with defaults and ranges.

A table fixes its house rules for a whole match (rules.md, "House rules"). Each rule set has one
class holding its complete option sheet (``Ruleset.rules_class``): its field defaults are the
defaults of log-format.md, and construction refuses anything out of range, so a rules object
that exists is one the payout functions can trust. This module reads and writes any of them.
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from mjledger._text import shown
from mjledger.errors import FormatError
from mjledger.rules.registry import find_ruleset, ruleset_of

MAX_STAKE: Final = 1_000_000
# Field metadata of a variant key (variants.md): listed in the output's ``rules`` (and stored)
# only when set to something other than its default, so a log without variants is unchanged.
VARIANT: Final = {"variant": True}


def default_rules(ruleset: str) -> Any:
    """The option sheet a table gets when its log names no house rules."""
    return find_ruleset(ruleset).rules_class()


def rules_from_json(ruleset: str, raw: object) -> Any:
    """Validate a log's ``rules`` object against the ruleset's options; omitted keys default.

    Values are checked strictly (a JSON ``true`` is not the integer 1, ``10.0`` is not 10),
    because the contract forbids coercion and a silently coerced stake is lost money.
    """
    cls = find_ruleset(ruleset).rules_class
    if not isinstance(raw, dict):
        raise FormatError("rules must be a JSON object", code="bad_house_rule")
    known = {a.name: a for a in attrs.fields(cls)}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise FormatError(
            f"unknown house rule {shown(unknown[0])} for {ruleset} (known: {', '.join(known)})",
            code="bad_house_rule",
        )
    for name, value in raw.items():
        default = known[name].default
        # A key may take values of more than one JSON type (kong_money_passing: true, false
        # or "refund"): each value its validator lists is of a type the key accepts.
        kinds = {type(a) for a in getattr(known[name].validator, "allowed", (default,))}
        if type(value) not in kinds:
            expected = " or ".join(_EXPECTED[k] for k in sorted(kinds, key=_EXPECTED.__getitem__))
            raise FormatError(
                f"house rule {name!r} must be {expected}, not {shown(value)}",
                code="bad_house_rule",
            )
    return cls(**raw)


_EXPECTED: Final = {int: "an integer", str: "a string", bool: "true or false"}


def rules_to_json(rules: Any) -> dict[str, object]:
    """Every contract key present (as the replay output's ``rules`` requires), plus the
    extension options that are switched on and the variant keys set to something other than
    their default (variants.md: "new keys appear in the output's `rules` only when set")."""
    extensions = ruleset_of(rules).extension_keys
    out: dict[str, object] = {}
    for a in attrs.fields(type(rules)):
        value = getattr(rules, a.name)
        if a.name in extensions and value is False:
            continue
        if a.metadata.get("variant") and value == a.default:
            continue
        out[a.name] = value
    return out
