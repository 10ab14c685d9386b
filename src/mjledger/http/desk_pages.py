"""The desk's pages as a browser gets them: the page's language (asked, remembered, or the
browser's), its wording, the Jinja templates rendered with the headers every desk answer
carries (a strict content security policy, no caching), redirects, and the desk's cookies.

Kept apart from :mod:`mjledger.http.desk`, which holds the routes (login, the match and hand
pages, the forms) and imports these, so that how a page is rendered and in which language is
read without the handlers around it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

import jinja2
from litestar import Request, Response
from litestar.response import Redirect

from mjledger.explain.i18n import LANGUAGES, translations
from mjledger.http.ids import encode_id
from mjledger.http.problems import Problem
from mjledger.http.service import Service

LANG_COOKIE: Final = "mjledger_lang"
HERE: Final = Path(__file__).parent
CSP: Final = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
LANGUAGE_NAMES: Final = {
    "en": "English",
    "zh": "中文",
    "it": "Italiano",
    "pt": "Português",
    "es": "Español",
    "fr": "Français",
}


@functools.cache
def _templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["encode_id"] = encode_id
    return env


def _headers() -> dict[str, str]:
    return {
        "content-security-policy": CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "same-origin",
        "cache-control": "no-store",
        "x-frame-options": "DENY",
    }


def language(request: Request[Any, Any, Any]) -> str:
    """The page's language: ``?lang=`` (then remembered, see :func:`page`), else the one
    remembered, else the browser's first choice among the six, else English."""
    asked = request.query_params.get("lang")
    if asked is not None:
        if asked not in LANGUAGES:
            raise Problem(
                "bad_parameter", f"?lang is one of {', '.join(LANGUAGES)}", parameter="lang"
            )
        return str(asked)
    kept = request.cookies.get(LANG_COOKIE)
    if kept in LANGUAGES:
        return str(kept)
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGUAGES:
            return tag
    return "en"


def _translator(lang: str) -> Any:
    """The desk's wording in ``lang`` (its own catalog, ``desk.po``): ``t(id, **params)``."""
    catalog = translations(lang, "desk")

    def t(message_id: str, **params: Any) -> str:
        return catalog.gettext(message_id).format(**params)

    return t


def _language_links(request: Request[Any, Any, Any]) -> list[tuple[str, str, str]]:
    """Each language's name and the address of this page in it."""
    query = {k: v for k, v in request.query_params.items() if k != "lang"}
    return [
        (code, LANGUAGE_NAMES[code], f"{request.url.path}?{urlencode({**query, 'lang': code})}")
        for code in LANGUAGES
    ]


def page(
    request: Request[Any, Any, Any],
    name: str,
    status: int = 200,
    lang: str | None = None,
    **context: Any,
) -> Response[bytes]:
    """A page in the request's language (``title`` a message id, ``title_args`` its
    values); a language asked for with ``?lang=`` is remembered for the next pages."""
    lang = lang or language(request)
    context.setdefault("who", None)
    context.setdefault("problem", None)
    context.setdefault("csrf", "")
    context.setdefault("title_args", {})
    html = (
        _templates()
        .get_template(name)
        .render(lang=lang, t=_translator(lang), languages=_language_links(request), **context)
    )
    answer = Response(
        content=html.encode(),
        status_code=status,
        media_type="text/html",
        headers=_headers(),
    )
    if request.query_params.get("lang") == lang:
        _cookie(answer, request, LANG_COOKIE, lang)
    return answer


def _see(location: str) -> Response[Any]:
    answer: Response[Any] = Redirect(location, status_code=303)
    answer.headers.update(_headers())
    return answer


def _service(request: Request[Any, Any, Any]) -> Service:
    service: Service = request.scope["mjledger.service"]  # type: ignore[typeddict-item]
    return service


def _secure(request: Request[Any, Any, Any], service: Service) -> bool:
    if request.scope.get("scheme") == "https" or service.options.public_url.startswith("https:"):
        return True
    forwarded = request.headers.get("x-forwarded-proto", "")
    client = request.scope.get("client") or ("", 0)
    return service.options.proxy_headers and client[0] == "127.0.0.1" and forwarded == "https"


def _cookie(
    response: Response[Any],
    request: Request[Any, Any, Any],
    name: str,
    value: str,
    *,
    clear: bool = False,
) -> None:
    response.set_cookie(
        name,
        value,
        path="/desk",
        httponly=True,
        samesite="strict",
        secure=_secure(request, _service(request)),
        max_age=0 if clear else None,
    )
