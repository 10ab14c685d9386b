"""``mjledger report``: one self-contained HTML page per match (issue 13).

The page is checked as text (every hand, the totals, nothing fetched from anywhere) and, where
the distribution's Chromium is installed, opened in headless Chromium: the chart's polylines
must be drawn with one point per hand (after a zero start) for every player, and the page must
log nothing to the console. Without Chromium the browser test is skipped with a reason —
except under ``CI=true``, where a missing browser fails.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger import replay
from mjledger.cli import main
from mjledger.explain.i18n import LANGUAGES
from mjledger.explain.report import render_report, report_from_replay
from tests.conftest import EXAMPLES

LOGS = ["hongkong-match", "sichuan-match", "disputed-hand"]


class _Page(HTMLParser):
    """The polylines, hand articles, and every attribute that could fetch something."""

    def __init__(self) -> None:
        super().__init__()
        self.polylines: dict[str, list[tuple[float, float]]] = {}
        self.hands: list[str] = []
        self.fetching: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.add(tag)
        if tag == "polyline":
            pairs = [p.split(",") for p in a["points"].split()]
            self.polylines[a["data-player"]] = [(float(x), float(y)) for x, y in pairs]
        if tag == "article":
            self.hands.append(a["id"])
        for name in ("src", "href", "xlink:href", "action", "srcset"):
            if name in a:
                self.fetching.append((tag, name, a[name]))


def parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    return parser


@pytest.mark.parametrize("name", LOGS)
def test_page_holds_chart_hands_and_totals(name: str) -> None:
    result = replay((EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8"))
    page = render_report(report_from_replay(result), "en")
    found = parse(page)
    assert set(found.polylines) == set(result.players)
    for points in found.polylines.values():
        assert len(points) == len(result.hands) + 1  # a zero start, then one point per hand
        xs = [x for x, _ in points]
        assert xs == sorted(xs)
        assert len(set(xs)) == len(xs)
    # the y coordinates follow the running totals: the ordering at the end is the totals'
    totals = result.totals()
    last_y = {p: pts[-1][1] for p, pts in found.polylines.items()}
    ranked = sorted(result.players, key=lambda p: (-totals[p], p))
    for higher, lower in itertools.pairwise(ranked):
        assert last_y[higher] <= last_y[lower]
    assert found.hands == [f"hand-{h.number}" for h in result.hands]
    assert not found.fetching
    assert not found.tags & {"script", "link", "img", "iframe", "object", "embed"}
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page


def test_every_language_renders_its_own_page() -> None:
    data = report_from_replay(replay((EXAMPLES / "sichuan-match.jsonl").read_text("utf-8")))
    pages = {lang: render_report(data, lang) for lang in LANGUAGES}
    assert len(set(pages.values())) == len(LANGUAGES)
    assert "Punteggio progressivo" in pages["it"]
    assert "累计分数" in pages["zh"]
    assert '<html lang="zh-Hans">' in pages["zh"]


def test_report_command_from_a_log(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = CliRunner().invoke(
        main,
        ["report", str(EXAMPLES / "hongkong-match.jsonl"), "--html", str(out), "--lang", "fr"],
    )
    assert result.exit_code == 0, result.output
    assert "16" in result.output
    assert "Score cumulé" in out.read_text(encoding="utf-8")


def test_report_command_refuses_an_unknown_match(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    CliRunner().invoke(
        main, ["record", str(EXAMPLES / "sichuan-match.jsonl"), "--store", str(store)]
    )
    result = CliRunner().invoke(
        main, ["report", "nope", "--store", str(store), "--html", str(tmp_path / "x.html")]
    )
    assert result.exit_code == 2
    assert "no match 'nope'" in result.output
    assert not (tmp_path / "x.html").exists()


# --- in a real browser ------------------------------------------------------------------------

HARNESS = """<!DOCTYPE html><html><body>
<iframe id="f" src="report.html" width="1000" height="800"></iframe><pre id="result">pending</pre>
<script>
document.getElementById("f").addEventListener("load", function () {
  var out = [];
  this.contentDocument.querySelectorAll("svg polyline").forEach(function (p) {
    var box = p.getBBox();
    out.push({player: p.getAttribute("data-player"), points: p.points.numberOfItems,
              length: p.getTotalLength(), width: box.width});
  });
  document.getElementById("result").textContent = JSON.stringify(out);
});
</script></body></html>
"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def open_in_chromium(page: Path, profile: Path) -> tuple[str, list[str]]:
    """The DOM after loading ``page`` and every console message the browser logged."""
    browser = chromium()
    if browser is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but Chromium is not installed (apt-get install chromium)")
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium chromium-driver)")
    run = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    return run.stdout, console


def drawn_polylines(dom: str) -> list[dict[str, object]]:
    match = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    assert match is not None, dom[:500]
    return json.loads(match.group(1))  # type: ignore[no-any-return]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chromium_draws_the_chart_without_console_errors(tmp_path: Path, lang: str) -> None:
    result = replay((EXAMPLES / "sichuan-match.jsonl").read_text(encoding="utf-8"))
    (tmp_path / "report.html").write_text(
        render_report(report_from_replay(result), lang), encoding="utf-8"
    )
    (tmp_path / "harness.html").write_text(HARNESS, encoding="utf-8")
    dom, console = open_in_chromium(tmp_path / "harness.html", tmp_path / "profile")
    assert console == []
    drawn = drawn_polylines(dom)
    assert sorted(d["player"] for d in drawn) == sorted(result.players)
    for line in drawn:
        assert line["points"] == len(result.hands) + 1
        assert isinstance(line["length"], float | int)
        assert line["length"] > 0
        assert line["width"] > 0


def test_the_browser_check_sees_console_errors(tmp_path: Path) -> None:
    """The console check can fail: a page with a broken script is caught."""
    (tmp_path / "bad.html").write_text(
        "<!DOCTYPE html><html><body><script>nosuch();</script></body></html>", encoding="utf-8"
    )
    _, console = open_in_chromium(tmp_path / "bad.html", tmp_path / "profile")
    assert any("nosuch" in line for line in console)
