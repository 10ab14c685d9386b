"""What decides whether an event read from a line (or a stored row) may be given again for the
same bytes without reading them: the log's fast decoder (:mod:`mjledger.log.fast`) keeps its
lines' events so, and the audit's one-step reader its rows' (:mod:`mjledger.store.
canonical_rows`)."""

from __future__ import annotations

from typing import Any

import attrs

from mjledger.log.events import RulesetName
from mjledger.log.hints import type_hints


def names_ruleset(hint: Any) -> bool:
    """Whether a field of this type names a rule set (checked against the registry)."""
    return hint in (RulesetName, RulesetName | None)


def registry_fields(cls: type) -> tuple[str, ...]:
    """The fields of ``cls`` read against the registry of rule sets (a plug-in's rule set can
    come and go within a process): a rule set's name, house rules. A line that gives none of
    them is read from its bytes alone."""
    hints = type_hints(cls)
    return tuple(
        a.name for a in attrs.fields(cls) if a.name == "rules" or names_ruleset(hints[a.name])
    )


def kept_for_its_bytes(event: Any, registry: tuple[str, ...]) -> bool:
    """Whether ``event`` may be given again for the same bytes without reading them: it is
    read from its bytes alone (none of its :func:`registry_fields`, here ``registry``, is
    given) and it is an immutable value (it hashes: no dict in it)."""
    for name in registry:  # a loop, not all() of a generator: asked of every row decoded
        if getattr(event, name) is not None:
            return False
    try:
        hash(event)
    except TypeError:
        return False
    return True
