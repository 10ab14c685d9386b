"""Reading a stored row as the ledger sealed it, in one step: its event and its chain link.

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

Whatever is declined (a backslash, metadata other than the recorder writes, a class above
version 1, an encoding that differs, a field only the strict codec types, anything refused) is read
the general way, so a damaged row gives exactly the findings it gives there.
"""

from __future__ import annotations

import binascii
import hashlib
import re
from collections.abc import Callable
from functools import cache
from typing import Any, Final

import msgspec

from mjledger.log.events import EVENT_CLASSES, HandStarted
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

_HAND_STARTED: Final = topic_of(HandStarted)
_SET_RULES: Final[Callable[[Any, Any], None]] = vars(HandStarted)["rules"].__set__
_RULES_KEPT: Final = 256  # house rules read, kept by their JSON (a store has few)

# Events kept for their canonical text, per topic (each kept set forgotten when full): a
# store repeats the same discards, void suits, kongs and wins over and over.
_SEEN_ROWS: Final = 2048

_sha256: Final = hashlib.sha256
_hexlify: Final = binascii.hexlify  # a digest's hex digits as bytes, as hexdigest spells them

_Reader = tuple[Callable[[bytes], Any], Callable[[Any], Any], tuple[str, ...], dict[bytes, Any]]


class CanonicalRows:
    """Reads rows of the log's and the ledger's event classes (by their topic column) that
    are in the sealed canonical form; :meth:`sealed` gives None for anything else. A row it
    reads is valid JSON without a repeated key, so its whole object (metadata and all) is what
    :func:`msgspec.json.decode` gives, as :func:`mjledger.log.codec.decode_json` would."""

    def __init__(self) -> None:
        self._readers: dict[str, _Reader] = {}
        for cls in (*EVENT_CLASSES, *STORE_EVENT_CLASSES):
            if getattr(cls, "class_version", 1) != 1:
                continue  # its rows may need upcasting: the general path's
            struct, build = event_struct(cls)
            decode: Callable[[bytes], Any] = msgspec.json.Decoder(struct).decode
            self._readers[topic_of(cls)] = (decode, build, registry_fields(cls), {})
        self._encode: Callable[[Any], bytes] = msgspec.json.Encoder(order="sorted").encode
        self._rules: dict[tuple[str, type, bytes], Any] = {}

    def sealed(self, topic: str, state: Any, previous: bytes) -> tuple[Any, bytes, bytes] | None:
        """``(event, link, digest)`` of a row after ``previous``: its event, the digest its
        canonical text links to, the digest it stores; None when the general path must read
        it. The digests are the bytes of their hex digits (``previous`` in UTF-8): a chain
        read row by row carries the digest its last row stores, as bytes, into the next
        row's link, with no string made of it."""
        reader = self._readers.get(topic)
        if reader is None or type(state) is not bytes:
            return None
        tail = _TAIL.search(state)  # at the last _META or nowhere: see _TAIL (and _tail_of)
        if tail is None:
            return None
        body = _closed_before(state, tail.start())
        decode, build, registry, seen = reader
        event = seen.get(body)
        if event is None:
            event = self._event(topic, body, decode, build)
            if event is None:
                return None
            if kept_for_its_bytes(event, registry):
                if len(seen) >= _SEEN_ROWS:
                    seen.clear()
                seen[body] = event
        return event, _hexlify(_sha256(previous + body).digest()), tail.group(1)

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
            if topic == _HAND_STARTED and struct.rules is not UNSET:
                return self._with_rules(struct, build)
            return build(struct)
        except UNDECODED:
            return None
        except UNBUILT:  # the general path words it
            return None

    def _with_rules(self, struct: Any, build: Callable[[Any], Any]) -> Any:
        """A stored hand_started with its match's house rules (a field only the strict codec
        types): the event without them, then the rules as the converter reads them
        (:func:`mjledger.rules.house.rules_from_json` of the line's ruleset, a pure function,
        so each match's rules are read once). The rules field has no validator of its own
        (the post-init check reads it), so this is the converter's event, or None where the
        converter must say why not. The event is new, built here: setting its slot shares
        nothing."""
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
        _SET_RULES(event, rules)
        event.__attrs_post_init__()
        return event


def canonical_text(state: bytes) -> bytes:
    """The canonical text of a row :meth:`CanonicalRows.sealed` read (its ``state``): the
    row's bytes up to the metadata, closed, the very bytes its link was hashed over. Decoded,
    it is the row's object less the metadata keys."""
    return _closed_before(state, _tail_of(state).start())


def _tail_of(state: bytes) -> re.Match[bytes]:
    """The metadata tail of a row :meth:`CanonicalRows.sealed` read, found as it found it."""
    tail = _TAIL.search(state)
    assert tail is not None  # the reader read the row by this very search
    return tail


def _closed_before(state: bytes, cut: int) -> bytes:
    """A row's object up to its metadata (at ``cut``), closed: its canonical text."""
    return state[:cut] + b"}"


def sealed_signature(state: bytes) -> str | None:
    """The signature of a row :meth:`CanonicalRows.sealed` read (its ``state``), from its
    metadata tail: what its object's ``"signature"`` key holds, or None where it has none."""
    signature: bytes | None = _tail_of(state).group(2)
    return None if signature is None else signature.decode("ascii")


@cache
def canonical_rows() -> CanonicalRows:
    """The reader, built once (its structs are generated from the event classes)."""
    return CanonicalRows()
