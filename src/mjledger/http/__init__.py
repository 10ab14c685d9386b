"""``mjledger serve``: the HTTP service for game backends and the web desk for support staff
(http-api.md). Imported only by ``serve`` and ``token``: no other command loads a web
framework. ``create_app(store, **options)`` is the ASGI application for any ASGI server."""

from __future__ import annotations

from typing import Any


def create_app(store: Any = None, **options: Any) -> Any:
    """The service as an ASGI application over ``store`` (see :mod:`mjledger.http.app`)."""
    from mjledger.http.app import create_app as create

    return create(store, **options)


__all__ = ["create_app"]
