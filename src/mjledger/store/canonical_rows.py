"""Reading a stored row as the ledger sealed it, in one step: its event and its canonical text.

The audit must read every row strictly and recompute its link from the row's canonical JSON.
The general way (strict :mod:`json` decoding, the cattrs converter, the canonical JSON encoded
again from the decoded object) is the reference and stays the answer for any row this module
declines. But a row sealed by :func:`mjledger.store.records.seal` is the canonical JSON of its
event with the metadata appended: ``{…canonical…,"recorded_at":"…","digest":"…"}`` (and a
``"signature"`` where the recorder signs). So the
canonical text is the row's own bytes up to the metadata, and this module only has to prove
that: it decodes those bytes into the event's msgspec struct (:func:`mjledger.log.fast.
event_struct`: strict types, unknown fields refused, so the metadata keys cannot hide in
them), encodes the struct again with sorted keys and requires the very same bytes. Equal bytes
mean the text is canonical (compact, sorted, no key repeated: a repeated key would decode to
one key and encode shorter) and, having no backslash, spells every string as :mod:`json`
writes it; the link is then the SHA-256 of the previous digest and those bytes, with nothing
encoded again from Python objects. The event comes from the struct through the attrs class
(every validator runs), as the log's fast path gives it.

A store repeats the same discards, void suits, kongs and wins over and over: an event read
from its bytes alone is kept for them (per topic), and a row with the same canonical text is
given it again without decoding it (its link is still hashed over its own bytes).

The chains pass reads each row so (:func:`mjledger.store.audit.chains.read_stream`: the tail
found by :data:`sealed_tail`, the text cut there by :func:`closed_before`, the event kept for
that text or given by :meth:`CanonicalRows.event`), in its own loop: a call a row fewer.

Whatever is declined (a backslash, metadata other than the recorder writes, a row of a class's
earlier version, an encoding that differs, a field only the strict codec types, anything
refused) is read the general way, so a damaged row gives exactly the findings it gives there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any, Final, Literal

import msgspec

from mjledger.log.events import EVENT_CLASSES, HandStarted, MatchStarted
from mjledger.log.fast import UNBUILT, UNDECODED, UNSET, event_struct
from mjledger.log.kept import kept_for_its_bytes, registry_fields
from mjledger.rules.house import rules_from_json
from mjledger.rules.registry import find_ruleset
from mjledger.store.events import STORE_EVENT_CLASSES
from mjledger.store.records import topic_of

# The metadata ``seal`` appends, as it writes it: ``,"recorded_at":"…","digest":"…"}``, and
# on a signed row ``,"signature":"…"`` after the digest, every value printable ASCII without
# quotes or backslashes (anything else: the general path).
_META: Final = b',"recorded_at":"'
_PLAIN: Final = rb"[ !#-\[\]-~]*"  # printable ASCII but for '"' and '\\'
# The whole tail from the last ``_META`` on, matched in one step (the digest its group): what
# follows the last ``_META`` has no other quote, so the first ``","digest":"`` and
# ``","signature":"`` after it are the ones ``seal`` wrote. It can match at the last
# ``_META`` only, so a search finds what a match there finds: past ``_META`` the quotes it
# matches are its literals', each pair of them holding a value (followed by ``","``, ``"}``)
# or a key (``digest``, ``signature``) — never ``recorded_at`` followed by ``:"``, so no
# ``_META`` can begin inside a match (nor overlap its own: ``_META`` has one comma, first).
_TAIL: Final = re.compile(
    _META + _PLAIN + rb'","digest":"(' + _PLAIN + rb')(?:","signature":"(' + _PLAIN + rb'))?"\}\Z'
)

# The metadata tail of a row as ``seal`` wrote it, or None: the digest its group 1, a
# signature its group 2 (see _TAIL).
sealed_tail: Final = _TAIL.search

# The events that carry house rules, by topic: the setter of each one's ``rules`` slot.
_SET_RULES: Final[dict[str, Callable[[Any, Any], None]]] = {
    topic_of(cls): vars(cls)["rules"].__set__ for cls in (MatchStarted, HandStarted)
}
_RULES_KEPT: Final = 256  # house rules read, kept by their JSON (a store has few)

# Events kept for their canonical text, per topic (each kept set forgotten when full): a
# store repeats the same discards, void suits, kongs and wins over and over.
_SEEN_ROWS: Final = 2048

# A topic's reader: its struct's decoder, the event's builder, the fields read against the
# registry (None: the topic's events are never kept, each naming its own match or hand) and
# the events kept by their canonical text, at SEEN: a row whose text is there has its event.
Reader = tuple[
    Callable[[bytes], Any], Callable[[Any], Any], tuple[str, ...] | None, dict[bytes, Any]
]
SEEN: Final = 3


class CanonicalRows:
    """Reads rows of the log's and the ledger's event classes (by their topic column) that
    are in the sealed canonical form: :attr:`readers` by topic, :data:`sealed_tail` and
    :func:`closed_before` for a row's canonical text, :meth:`event` for the event of a text
    not kept (the chains pass's loop, :func:`mjledger.store.audit.chains.read_stream`, puts
    them together a row at a time). A row it reads is valid JSON without a repeated key, so
    its whole object (metadata and all) is what :func:`msgspec.json.decode` gives, as
    :func:`mjledger.log.codec.decode_json` would."""

    def __init__(self) -> None:
        self.readers: dict[str, Reader] = {}
        for cls in (*EVENT_CLASSES, *STORE_EVENT_CLASSES):
            version = getattr(cls, "class_version", 1)
            # A class above version 1 is stored with its version (``seal``): a row of the
            # class's own version is read here, one of an earlier version (to be upcast) is
            # refused by the struct's type and read the general way.
            extra = [] if version == 1 else [("class_version", Literal[version])]
            struct, build = event_struct(cls, extra)
            decode: Callable[[bytes], Any] = msgspec.json.Decoder(struct).decode
            # The ledger's own events name their match or hand (a closing its hand's digest):
            # no two rows of them have the same text, so none is kept.
            registry = None if cls in STORE_EVENT_CLASSES else registry_fields(cls)
            self.readers[topic_of(cls)] = (decode, build, registry, {})
        self._encode: Callable[[Any], bytes] = msgspec.json.Encoder(order="sorted").encode
        self._rules: dict[tuple[str, type, bytes], Any] = {}

    def event(self, topic: str, body: bytes, reader: Reader) -> Any:
        """The event of a sealed row's canonical text ``body`` (``topic``'s reader, from
        :attr:`readers`) that its reader has not kept (:data:`SEEN`), or None when the general
        path must read the row. Kept for the next row with the same text where
        :func:`~mjledger.log.kept.kept_for_its_bytes` allows and the topic repeats at all."""
        decode, build, registry, seen = reader
        event = self._event(topic, body, decode, build)
        if event is not None and registry is not None and kept_for_its_bytes(event, registry):
            if len(seen) >= _SEEN_ROWS:
                seen.clear()
            seen[body] = event
        return event

    def _event(
        self, topic: str, body: bytes, decode: Callable[[bytes], Any], build: Callable[[Any], Any]
    ) -> Any:
        """The event of a row's canonical text ``body`` not read before (see the module's
        docstring), or None. A function of the bytes alone (and, for a rule set's name or
        house rules, the registry's: such events are not kept), so an event it gave is given
        again for the same bytes, unread (:func:`mjledger.log.kept.kept_for_its_bytes`, as the
        log's fast decoder keeps its lines' events)."""
        if b"\\" in body:
            return None
        try:
            struct = decode(body)
            if self._encode(struct) != body:
                return None
            set_rules = _SET_RULES.get(topic)
            if set_rules is not None and struct.rules is not UNSET:
                return self._with_rules(struct, build, set_rules)
            return build(struct)
        except UNDECODED:
            return None
        except UNBUILT:  # the general path words it
            return None

    def _with_rules(
        self, struct: Any, build: Callable[[Any], Any], set_rules: Callable[[Any, Any], None]
    ) -> Any:
        """A stored match_started or hand_started with its house rules (a field only the
        strict codec types): the event without them, then the rules as the converter reads
        them (:func:`mjledger.rules.house.rules_from_json` of the line's ruleset, a pure
        function, so each table's rules are read once, not once a match and once a hand).
        The rules field has no validator of its own in either class (the post-init check
        reads it), so this is the converter's event, or None where the converter must say
        why not. The event is new, built here: setting its slot shares nothing."""
        raw, struct.rules = struct.rules, UNSET
        event = build(struct)
        if event is None or event.ruleset is None:
            return None
        key = (event.ruleset, find_ruleset(event.ruleset).rules_class, self._encode(raw))
        rules = self._rules.get(key)
        if rules is None:
            rules = rules_from_json(event.ruleset, raw)
            if len(self._rules) >= _RULES_KEPT:
                self._rules.clear()
            self._rules[key] = rules
        # ``attrs.evolve`` less its second run of the validators over the values they passed:
        # the rules set in the new event's slot, then the one check that reads them.
        set_rules(event, rules)
        event.__attrs_post_init__()
        return event


def closed_before(state: bytes, cut: int) -> bytes:
    """A row's object up to its metadata (at ``cut``), closed: its canonical text."""
    return state[:cut] + b"}"


@cache
def canonical_rows() -> CanonicalRows:
    """The reader, built once (its structs are generated from the event classes)."""
    return CanonicalRows()
