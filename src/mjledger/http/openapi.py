"""``GET /v1/openapi.json``: the OpenAPI 3.1 document, built from the route table the
application registers (:data:`mjledger.http.api.ROUTES`, the desk's pages) and the log's own
JSON Schema, so it cannot describe a path the service does not have.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from litestar import Request, Response, get

from mjledger import __version__
from mjledger.errors import CODES
from mjledger.http import api
from mjledger.http.problems import PROBLEM_TYPE
from mjledger.http.service import json_bytes
from mjledger.log.schema import log_line_schema

_INT: Final = {"type": "integer"}
_STR: Final = {"type": "string"}
_NET: Final = {"type": "object", "additionalProperties": _INT}
_NULLABLE_STR: Final = {"type": ["string", "null"]}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
    }


_TRANSFER: Final = _object(
    {
        "from": _STR,
        "to": _STR,
        "amount": _INT,
        "reason": _STR,
        "line": {"type": ["integer", "null"]},
    }
)
_SETTLEMENT: Final = _object(
    {
        "number": _INT,
        "dealer": _STR,
        "dealer_streak": _INT,
        "round_wind": _STR,
        "outcome": {"enum": ["won", "void", "unfinished"]},
        "winners": {"type": "array", "items": _STR},
        "transfers": {"type": "array", "items": {"$ref": "#/components/schemas/Transfer"}},
        "net": _NET,
        "next_dealer": _NULLABLE_STR,
        "correction": {"type": ["integer", "null"]},
        "open_run": {"type": "boolean"},
    },
    {"balances": _NET},
)
_MATCH: Final = _object(
    {
        "ruleset": _STR,
        "match": _STR,
        "players": {"type": "array", "items": _STR},
        "rules": {"type": "object"},
        "hands": {"type": "array", "items": {"$ref": "#/components/schemas/Settlement"}},
        "totals": _NET,
    },
    {"stakes": _NET},
)
_EVENTS: Final = {"type": "array", "items": {"type": "object"}}
_CORRECTION: Final = _object(
    {
        "match": _STR,
        "number": _INT,
        "correction": _INT,
        "kind": {"enum": ["corrected", "voided"]},
        "when": _STR,
        "by": _STR,
        "reason": _STR,
        "original_net": _NET,
        "net": _NET,
    }
)
_PROBLEM: Final = _object(
    {
        "type": _STR,
        "title": _STR,
        "status": _INT,
        "detail": _STR,
        "instance": _STR,
        "code": {"type": "string"},
    },
    {
        "line": {"type": ["integer", "null"]},
        "event_type": _NULLABLE_STR,
        "position": _INT,
        "hands": _INT,
        "corrections": _INT,
        "parameter": _STR,
        "limit": _INT,
    },
)
_PAGE: Final = _object(
    {"items": {"type": "array", "items": {"type": "object"}}, "next": _NULLABLE_STR}
)

SCHEMAS: Final[dict[str, Any]] = {
    "object": {"type": "object"},
    "health": _object({"status": {"const": "ok"}}),
    "ready": _object({"status": {"const": "ready"}, "read_position": _INT}),
    "match": {"$ref": "#/components/schemas/Match"},
    "match_page": _PAGE,
    "page": _PAGE,
    "hand": _object(
        {
            "match": _STR,
            "number": _INT,
            "position": _INT,
            "ended": {"type": "boolean"},
            "events": _EVENTS,
            "settlement": {"$ref": "#/components/schemas/Settlement"},
        },
        {"corrections": {"type": "array", "items": {"type": "object"}}},
    ),
    "appended": _object(
        {
            "match": _STR,
            "number": _INT,
            "seq": _INT,
            "position": _INT,
            "replayed": {"type": "boolean"},
            "ended": {"type": "boolean"},
            "settlement": {"$ref": "#/components/schemas/Settlement"},
        }
    ),
    "event": {"type": "object", "required": ["type"]},
    "settlement": {"$ref": "#/components/schemas/Settlement"},
    "explanation": _object({"steps": {"type": "array"}, "lang": _STR}),
    "corrections": _object(
        {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Correction"}}}
    ),
    "correction": {"$ref": "#/components/schemas/Correction"},
    "recorded": _object(
        {
            "status": {"enum": ["recorded", "resumed", "unchanged"]},
            "match": _STR,
            "id_assigned": {"type": "boolean"},
            "hands": _INT,
            "events": _INT,
        }
    ),
    "replay": _object(
        {"ruleset": _STR, "players": {"type": "array"}, "hands": {"type": "array"}, "totals": _NET}
    ),
    "scores": _object({"players": {"type": "object"}}),
    "audit": {"type": "object"},
    "head": _object({"head": _STR, "rows": _INT, "agrees": {"type": "boolean"}}),
}

_PARAMETERS: Final = {
    "match": {"type": "string", "minLength": 1, "maxLength": 600},
    "number": {"type": "string", "pattern": "^[1-9][0-9]*$"},
    "seq": {"type": "string", "pattern": "^[1-9][0-9]*$"},
    "correction": {"type": "string", "pattern": "^[1-9][0-9]*$"},
}
_QUERIES: Final[dict[str, list[tuple[str, dict[str, Any]]]]] = {
    "/v1/matches": [("limit", _INT), ("cursor", _STR), ("prefix", _STR)],
    api.M + "/history": [("limit", _INT), ("cursor", _STR)],
    api.M + "/export": [("with_corrections", {"type": "boolean"})],
    api.H + "/explanation": [("lang", {"enum": ["en", "zh", "it", "pt", "es", "fr"]})],
    "/v1/audit": [("match", {"type": "array", "items": _STR})],
}
_CORRECTION_BODY: Final = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "action": {"const": "correct"},
                "number": {"type": "integer", "minimum": 1},
                "log": _STR,
                "reason": {"type": "string", "minLength": 1, "maxLength": 500},
                "keep_later_hands": {"type": "boolean"},
            },
            "required": ["action", "number", "log", "reason"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "action": {"const": "void"},
                "number": {"type": "integer", "minimum": 1},
                "reason": {"type": "string", "minLength": 1, "maxLength": 500},
            },
            "required": ["action", "number", "reason"],
            "additionalProperties": False,
        },
    ]
}


def _bodies() -> dict[str, Any]:
    line = {k: v for k, v in log_line_schema().items() if not k.startswith("$")}
    return {
        "event": {"application/json": {"schema": {"$ref": "#/components/schemas/LogLine"}}},
        "correction": {"application/json": {"schema": _CORRECTION_BODY}},
        "log": {
            media: {"schema": {"type": "string"}}
            for media in ("application/x-ndjson", "application/jsonl")
        },
        "_line": line,
    }


def _problem_responses(route: api.Route) -> dict[str, Any]:
    statuses = {401, 403, 404, 405, 500, 503} if route.role != "none" else {500, 503}
    if route.body is not None:
        statuses |= {400, 408, 409, 413, 415, 422}
    if route.exists is not None or "{" in route.path:
        statuses |= {400, 404}
    if route.method == "GET" and route.role != "none":
        statuses.add(400)
    return {
        str(s): {
            "description": ", ".join(c for c, st in CODES.items() if st == s),
            "content": {PROBLEM_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for s in sorted(statuses)
    }


def _operation(route: api.Route, bodies: dict[str, Any]) -> dict[str, Any]:
    names = re.findall(r"{(\w+)}", route.path)
    parameters: list[dict[str, Any]] = [
        {"name": n, "in": "path", "required": True, "schema": _PARAMETERS[n]} for n in names
    ]
    parameters += [
        {"name": n, "in": "query", "required": False, "schema": s}
        for n, s in _QUERIES.get(route.path, [])
    ]
    success = {"201", "200"} if route.method == "PUT" or route.path == "/v1/logs" else {"200"}
    media = "application/x-ndjson" if route.response == "log" else "application/json"
    schema = {"type": "string"} if route.response == "log" else SCHEMAS[route.response]
    responses = {
        s: {"description": "done", "content": {media: {"schema": schema}}} for s in success
    }
    operation: dict[str, Any] = {
        "operationId": f"{route.method.lower()}{re.sub(r'[^A-Za-z]+', '_', route.path)}",
        "summary": route.summary,
        "parameters": parameters,
        "responses": {**responses, **_problem_responses(route)},
        "security": [] if route.role == "none" else [{"bearer": []}],
    }
    if route.body is not None:
        operation["requestBody"] = {"required": True, "content": bodies[route.body]}
    return operation


def _desk_paths() -> dict[str, Any]:
    from mjledger.http.desk import PAGES

    paths: dict[str, Any] = {}
    for method, path, summary in PAGES:
        names = re.findall(r"{(\w+)}", path)
        media = {"css": "text/css", "svg": "image/svg+xml"}.get(
            path.rsplit(".", 1)[-1], "text/html"
        )
        paths.setdefault(path, {})[method.lower()] = {
            "operationId": f"desk_{method.lower()}{re.sub(r'[^A-Za-z]+', '_', path)}",
            "summary": summary,
            "parameters": [
                {"name": n, "in": "path", "required": True, "schema": _PARAMETERS[n]} for n in names
            ],
            "responses": {
                "200": {"description": "the page", "content": {media: {"schema": _STR}}},
                "303": {"description": "to the login form, or after a form post"},
                "403": {
                    "description": "csrf_failed, forbidden",
                    "content": {media: {"schema": _STR}},
                },
            },
            "security": [],
        }
    return paths


@functools.cache
def document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document."""
    bodies = _bodies()
    paths: dict[str, Any] = {}
    for route in api.ROUTES:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, bodies)
    paths["/v1/openapi.json"] = {
        "get": {
            "operationId": "get_openapi",
            "summary": "This document",
            "responses": {
                "200": {
                    "description": "OpenAPI 3.1",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
            "security": [],
        }
    }
    paths.update(_desk_paths())
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "mjledger",
            "version": __version__,
            "description": "The HTTP API of mjledger serve (http-api.md, v1).",
        },
        "paths": paths,
        "components": {
            "schemas": {
                "LogLine": bodies["_line"],
                "Transfer": _TRANSFER,
                "Settlement": _SETTLEMENT,
                "Match": _MATCH,
                "Correction": _CORRECTION,
                "Problem": _PROBLEM,
            },
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def handler() -> Any:
    @get("/v1/openapi.json", sync_to_thread=False)
    def openapi_document(request: Request[Any, Any, Any]) -> Response[bytes]:
        return Response(content=json_bytes(document()), media_type="application/json")

    return openapi_document
