"""How an event is stored: an envelope with its stream position and digest, as plain JSON.

A stored row's state is the event exactly as a log line writes it, plus ``recorded_at`` and
``digest`` (and ``class_version`` when above 1), so anyone can read the database with
``sqlite3`` and see the log. eventsourcing's default mapper rebuilds events through
``__dict__``, which slotted attrs classes do not have, so this mapper goes through the cattrs
converter instead (shared/notes/eventsourcing.md, "Fitting attrs + cattrs").

Digests chain each stream: ``sha256(previous digest + canonical JSON of the stored event)``,
hex-encoded, where canonical JSON is sorted keys, no spaces, UTF-8, taken over the event as
stored (without ``recorded_at`` and ``digest``). A match stream starts from the empty string; a
hand's first event starts from its match's latest digest. Any edited, removed, inserted or
reordered row breaks the chain from that row on.
"""

from __future__ import annotations

import binascii
import hashlib
import json
import typing
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import cache
from types import UnionType
from typing import Any, Final, Literal, NewType, Union, get_args, get_origin
from uuid import UUID

import attrs
import cattrs
from attrs import field, frozen
from eventsourcing.persistence import JSONTranscoder, Mapper, StoredEvent
from eventsourcing.utils import get_topic, resolve_topic

from mjledger._checks import ids_as_stored
from mjledger._codegen import compile_function
from mjledger.errors import StoreError
from mjledger.log.codec import canonical as canonical
from mjledger.log.codec import canonical_bytes as canonical_bytes
from mjledger.log.codec import configure_event_classes, make_converter, upcast
from mjledger.log.events import EVENT_CLASSES, MatchStarted, json_name
from mjledger.log.fast import ObjectDecoder
from mjledger.rules.house import default_rules, rules_to_json
from mjledger.store.events import STORE_EVENT_CLASSES

GENESIS: Final = ""
# A row as the events table holds it: stream id in hex, version, topic, state.
TableRow = tuple[str, int, str, bytes]


def make_store_converter() -> cattrs.Converter:
    """The log's converter, composed once more with the store's own event classes."""
    conv = make_converter()
    configure_event_classes(conv, STORE_EVENT_CLASSES)
    return conv


STORE_CONVERTER: Final = make_store_converter()
_META: Final = ("recorded_at", "digest")


@frozen
class Recorded:
    """One stored event of a stream (eventsourcing's domain-event protocol, as attrs)."""

    originator_id: UUID
    originator_version: int
    event: Any
    digest: str
    recorded_at: str
    # The row's state (its JSON), when this envelope was sealed here (it is built together
    # with the digest, so an event is serialised once on its way to the database).
    row: bytes | None = field(default=None, eq=False, repr=False)

    @property
    def timestamp(self) -> datetime:
        return datetime.fromisoformat(self.recorded_at)


def stored_form(event: Any) -> dict[str, Any]:
    """The event as a stored row holds it, before the ``recorded_at``/``digest`` metadata:
    what the store converter's unstructuring gives (``type`` first, fields at their default
    left out, ``class_version`` added above 1), by straight-line code generated once per class
    (:func:`_form_of`; the converter's hooks with their dispatch took about 0.6 µs an event
    of a recorded log)."""
    form = _FORMS.get(type(event)) or stored_form_of(type(event))
    return form(event)


def stored_form_of(cls: type) -> Callable[[Any], dict[str, Any]]:
    """:func:`stored_form` for events of ``cls`` (for a loop over many: one lookup a class)."""
    form = _FORMS.get(cls)
    if form is None:
        form = _FORMS[cls] = _form_of(cls)
    return form


def converter_form(event: Any) -> dict[str, Any]:
    """:func:`stored_form` through the store converter itself: the reference the generated
    code is tested against, and what any class it does not generate code for takes."""
    cls = type(event)
    data: dict[str, Any] = STORE_CONVERTER.unstructure(event, cls)
    version = cls.class_version
    if version > 1:
        data["class_version"] = version
    return data


# The stored form of each event class, as it is first stored.
_FORMS: Final[dict[type, Callable[[Any], dict[str, Any]]]] = {}
_SCALARS: Final = (str, int, bool, type(None))


def _passes_through(t: Any) -> bool:
    """Whether the converter unstructures a ``t`` as the value itself (a JSON scalar)."""
    if t in _SCALARS:
        return True
    if isinstance(t, NewType):
        return _passes_through(t.__supertype__)
    origin, args = get_origin(t), get_args(t)
    if origin is Literal:
        return all(type(a) in _SCALARS for a in args)
    if origin in (Union, UnionType):
        return all(_passes_through(a) for a in args)
    return False


def _copy_of(t: Any) -> str | None:
    """How the converter copies a container of scalars (a tuple becomes a list, a dict a new
    dict), as an expression of ``v``; None for anything else. ``t`` may be optional."""
    args = get_args(t)
    if get_origin(t) in (Union, UnionType) and len(args) == 2 and args[1] is type(None):
        inner = _copy_of(args[0])
        return None if inner is None else f"None if v is None else {inner}"
    if get_origin(t) is tuple and len(args) == 2 and args[1] is Ellipsis:
        return "list(v)" if _passes_through(args[0]) else None
    if get_origin(t) is dict and args and args[0] is str and _passes_through(args[1]):
        return "dict(v)"
    return None


def _form_of(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The generated :func:`stored_form` of ``cls``, laid out as the converter's hook lays it
    out (``mjledger.log.codec``: ``type``, then the fields without a default in order, then
    each other field unless at its default, ``from_`` written ``from``, house rules in their
    JSON): scalars as they are, containers of scalars copied, anything else through the
    converter's hook for the field's type. A class it cannot lay out takes the converter."""
    tag = getattr(cls, "TYPE", None)
    if not attrs.has(cls) or type(tag) is not str:
        return converter_form
    hints = typing.get_type_hints(cls)
    scope: dict[str, Any] = {"rules_to_json": rules_to_json}
    literal = [f"'type': {tag!r}"]
    required: list[str] = []
    optional: list[str] = []
    for i, a in enumerate(attrs.fields(cls)):
        key = json_name(a)
        t = hints[a.name]
        if a.name == "rules":  # what the tagged hook writes, whatever the field's type
            value = "None if v is None else rules_to_json(v)"
        elif _passes_through(t):
            value = "v"
        elif (copy := _copy_of(t)) is not None:
            value = copy
        else:
            scope[f"hook{i}"] = STORE_CONVERTER.get_unstructure_hook(t)
            value = f"hook{i}(v)"
        default = a.default
        if default is attrs.NOTHING:
            if value == "v":
                literal.append(f"{key!r}: e.{a.name}")
            else:
                required.append(f"    v = e.{a.name}\n    r{i} = {value}")
                literal.append(f"{key!r}: r{i}")
            continue
        if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            if default.takes_self:
                return converter_form
            scope[f"default{i}"] = default.factory
            missing = f"default{i}()"
        else:
            scope[f"default{i}"] = default
            missing = f"default{i}"
        optional.append(f"    v = e.{a.name}\n    if v != {missing}:\n        d[{key!r}] = {value}")
    version = getattr(cls, "class_version", 1)
    if version > 1:
        optional.append(f"    d['class_version'] = {version!r}")
    body = [*required, "    d = {" + ", ".join(literal) + "}", *optional, "    return d"]
    source = "def form(e):\n" + "\n".join(body) + "\n"
    form: Callable[[Any], dict[str, Any]] = compile_function(
        "form", source, scope, what=f"stored form of {cls.__qualname__}"
    )
    return form


def chain(previous: str, stored: dict[str, Any]) -> str:
    """The next digest of a stream after ``previous``, for an event in its stored form."""
    return hashlib.sha256(previous.encode("utf-8") + canonical_bytes(stored)).hexdigest()


def seal(
    stream: UUID, version: int, event: Any, previous: str, recorded_at: str | None = None
) -> Recorded:
    """The envelope of ``event`` at ``version`` of ``stream``, chained onto ``previous``."""
    recorded_at = recorded_at or now()
    digest, row = sealed_row(
        previous.encode("utf-8"), canonical_bytes(stored_form(event)), recorded_at.encode("utf-8")
    )
    return Recorded(stream, version, event, digest.decode("ascii"), recorded_at, row)


def sealed_row(previous: bytes, text: bytes, recorded_at: bytes) -> tuple[bytes, bytes]:
    """The digest after ``previous`` and the row's state of an event whose stored form, in
    canonical JSON, is ``text``. In bytes (a digest is ASCII hex), so that recording a log
    chains its rows without encoding or decoding a string per row."""
    rows: list[TableRow] = []
    digest = sealed_rows(previous, "", 1, (("", text),), recorded_at, rows)
    return digest, rows[0][3]


def sealed_rows(
    previous: bytes,
    stream: str,
    version: int,
    events: Iterable[tuple[str, bytes]],
    recorded_at: bytes,
    out: list[TableRow],
) -> bytes:
    """:func:`sealed_row` of each of a stream's ``(topic, text)`` events in turn, from
    ``version`` on, in one loop: each row appended to ``out`` in the table's form; the
    digest after the last."""
    sha256, hexlify = hashlib.sha256, binascii.hexlify  # (the hex digest, as bytes)
    append = out.append
    for topic, text in events:
        previous = hexlify(sha256(previous + text).digest())
        # The stored object is never empty (it has a "type"): the metadata joins it as keys.
        state = b'%s,"recorded_at":"%s","digest":"%s"}' % (text[:-1], recorded_at, previous)
        append((stream, version, topic, state))
        version += 1
    return previous


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


# Stored rows name their event class by topic. These names are frozen: they were the module
# paths of mjledger 0.1 and stay the names wherever a class lives now, so a store written by any
# version resolves (and a store written now still opens under 0.1).
TOPICS: Final[dict[type, str]] = {
    **{cls: f"mjledger.events:{cls.__name__}" for cls in EVENT_CLASSES},
    **{cls: f"mjledger.store_events:{cls.__name__}" for cls in STORE_EVENT_CLASSES},
}
_CLASS_OF_TOPIC: Final = {topic: cls for cls, topic in TOPICS.items()}


def with_rules(started: MatchStarted) -> MatchStarted:
    """A stored ``match_started`` with every house rule (defaults where its row left them
    out), its ids kept as stored (a store written before ids were bounded keeps them)."""
    with ids_as_stored():
        return attrs.evolve(started, rules=started.rules or default_rules(started.ruleset))


def topic_of(cls: type) -> str:
    """The topic a stored row names ``cls`` by: its stable name, else its module path."""
    return TOPICS.get(cls) or get_topic(cls)


@cache
def _event_class(topic: str) -> Any:
    return _CLASS_OF_TOPIC.get(topic) or resolve_topic(topic)


_ROW_DECODERS: Final[dict[tuple[type, bool], ObjectDecoder | None]] = {}


def row_decoder(cls: type, *, trusted: bool = False) -> ObjectDecoder | None:
    """The fast reader of ``cls``'s rows (the event's fields and the row's ``recorded_at``
    and ``digest``), or None: a class above version 1 may have rows to upcast, which only
    the mapper's general path does. ``trusted``: the attrs validators are not run (bulk
    re-derivation of the ledger's own rows; reads through the mapper, and audits, check)."""
    key = (cls, trusted)
    if key not in _ROW_DECODERS:
        fast = getattr(cls, "class_version", 1) == 1 and cls in TOPICS
        meta = (("recorded_at", str), ("digest", str))
        _ROW_DECODERS[key] = ObjectDecoder(cls, meta, trusted=trusted) if fast else None
    return _ROW_DECODERS[key]


class RecordMapper(Mapper[UUID]):
    """Maps :class:`Recorded` envelopes to rows of plain JSON and back, upcasting old rows."""

    def __init__(self) -> None:
        super().__init__(transcoder=JSONTranscoder())

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        record: Recorded = domain_event
        row = record.row
        if row is None:
            data = stored_form(record.event)
            data["recorded_at"] = record.recorded_at
            data["digest"] = record.digest
            row = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return StoredEvent(
            originator_id=record.originator_id,
            originator_version=record.originator_version,
            topic=topic_of(type(record.event)),
            state=row,
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        cls = _event_class(stored_event.topic)
        fast = row_decoder(cls)
        decoded = None if fast is None else fast(stored_event.state)
        if decoded is not None:
            event, (recorded_at, digest) = decoded
            return self._recorded(stored_event, event, recorded_at, digest)
        return self.read_row(stored_event)

    def read_row(self, stored_event: StoredEvent) -> Any:
        """The general path: ``json``, upcasting, the strict converter (what the fast path
        must agree with, and falls back to)."""
        cls = _event_class(stored_event.topic)
        try:
            data = json.loads(stored_event.state)
            recorded_at = data.pop("recorded_at")
            digest = data.pop("digest")
            data.pop("signature", None)  # a signed hand_closed: metadata, like the digest
            data.pop("type", None)
            version = data.pop("class_version", 1)
            upcast(cls, data, version)
            with ids_as_stored():  # ids recorded before they were bounded are kept
                event = STORE_CONVERTER.structure(data, cls)
        except Exception as exc:
            raise StoreError(
                f"stored event {stored_event.originator_id} v{stored_event.originator_version} "
                f"({stored_event.topic}) cannot be read: {exc}",
                code="store_damaged",
            ) from exc
        return self._recorded(stored_event, event, recorded_at, digest)

    @staticmethod
    def _recorded(stored_event: StoredEvent, event: Any, recorded_at: str, digest: str) -> Any:
        originator_id = stored_event.originator_id
        return Recorded(
            originator_id=originator_id if isinstance(originator_id, UUID) else UUID(originator_id),
            originator_version=stored_event.originator_version,
            event=event,
            digest=digest,
            recorded_at=recorded_at,
        )
