"""``mjledger report``: a match at a glance, as one self-contained HTML page.

The page holds everything it shows — styles inline, the running-score chart as inline SVG
(one ``<polyline>`` per player, in the SVG's own coordinates, a zero start then one point per
hand), each hand's dealer, outcome and transfers, corrections marked, the totals — and
fetches nothing: no script, font, image or style sheet from anywhere, so it opens the same
offline, in a mail attachment or years later.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Final

from attrs import field, frozen

from mjledger import __version__
from mjledger._text import escaped
from mjledger.explain.i18n import message, number, render, signed
from mjledger.explain.steps import CORRECTIONS, N_, OUTCOMES, CorrectionNote, Moment, Net, Sentence
from mjledger.fold.hand import HandState, Transfer
from mjledger.fold.replay import Replay
from mjledger.rules.registry import find_ruleset


def escape(text: str) -> str:
    """Text for the page: HTML-escaped, its control characters written as escapes (an id
    from a store may hold a bidirectional override or a terminal escape)."""
    return html.escape(escaped(text))


REASON_NAMES: Final = {
    "won_on_discard": N_("reason.won_on_discard"),
    "self_drawn": N_("reason.self_drawn"),
    "kong_exposed": N_("reason.kong_exposed"),
    "kong_added": N_("reason.kong_added"),
    "kong_concealed": N_("reason.kong_concealed"),
    "kong_money_passed": N_("reason.kong_money_passed"),
    "flower_pig": N_("reason.flower_pig"),
    "not_ready": N_("reason.not_ready"),
    "kong_refund": N_("reason.kong_refund"),
    "liability": N_("reason.liability"),
    "false_win": N_("reason.false_win"),
}
MARKS: Final = {"corrected": N_("report.corrected"), "voided": N_("report.voided")}
COLUMNS: Final = (
    N_("col.line"),
    N_("col.from"),
    N_("col.to"),
    N_("col.amount"),
    N_("col.reason"),
)
CHART: Final = N_("report.chart")
HANDS: Final = N_("report.hands")
TOTALS: Final = N_("report.totals")
PLAYER: Final = N_("report.player")
NO_TRANSFERS: Final = N_("report.no_transfers")
# Colour-blind-safe (Okabe–Ito) line colours, one per seat.
COLOURS: Final = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")

WIDTH: Final = 720
HEIGHT: Final = 320
PAD: Final = 40


@frozen
class ReportData:
    """What the page shows: the table and its hands as settled (corrections applied)."""

    ruleset: str
    match: str | None
    players: tuple[str, ...]
    hands: tuple[HandState, ...]
    corrections: Mapping[int, Sequence[CorrectionNote]] = field(factory=dict)


def running_scores(
    players: Sequence[str], nets: Iterable[Mapping[str, int]]
) -> dict[str, list[int]]:
    """Each player's running total: 0 at the start, then after each hand (``nets``: each
    hand's net, in order)."""
    totals = dict.fromkeys(players, 0)
    series = {p: [0] for p in players}
    for net in nets:
        for p, amount in net.items():
            totals[p] += amount
        for p in players:
            series[p].append(totals[p])
    return series


def chart(players: Sequence[str], series: Mapping[str, Sequence[int]], lang: str) -> str:
    """The inline SVG: one polyline per player, x = hands played, y = running total."""
    values = [v for s in series.values() for v in s]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1
    steps = max(len(series[players[0]]) - 1, 1)

    def x(i: int) -> float:
        return round(PAD + (WIDTH - 2 * PAD) * i / steps, 2)

    def y(v: int) -> float:
        return round(PAD + (HEIGHT - 2 * PAD) * (high - v) / (high - low), 2)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(message(lang, CHART))}">',
        f'<line class="axis" x1="{PAD}" y1="{y(0)}" x2="{WIDTH - PAD}" y2="{y(0)}"/>',
        f'<text class="tick" x="{PAD - 6}" y="{y(high) + 4}" text-anchor="end">'
        f"{escape(number(high, lang))}</text>",
        f'<text class="tick" x="{PAD - 6}" y="{y(low) + 4}" text-anchor="end">'
        f"{escape(number(low, lang))}</text>",
    ]
    for seat, player in enumerate(players):
        points = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(series[player]))
        parts.append(
            f'<polyline class="player" data-player="{escape(player)}" fill="none" '
            f'stroke="{COLOURS[seat]}" stroke-width="2" points="{points}">'
            f"<title>{escape(player)}</title></polyline>"
        )
    for seat, player in enumerate(players):
        ly = PAD + 16 * seat
        parts.append(
            f'<text class="legend" x="{WIDTH - PAD + 4}" y="{ly}" fill="{COLOURS[seat]}">'
            f"{escape(player)}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts)


def _transfers_table(transfers: Sequence[Transfer], lang: str) -> str:
    if not transfers:
        return f'<p class="none">{escape(message(lang, NO_TRANSFERS))}</p>'
    head = "".join(f"<th>{escape(message(lang, c))}</th>" for c in COLUMNS)
    rows = "".join(
        "<tr>"
        f"<td>{escape(number(t.line, lang)) if t.line is not None else ''}</td>"
        f"<td>{escape(t.payer)}</td><td>{escape(t.payee)}</td>"
        f'<td class="num">{escape(number(t.amount, lang))}</td>'
        f"<td>{escape(message(lang, REASON_NAMES[t.reason]))}</td>"
        "</tr>"
        for t in transfers
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _hand(page: Page, hand: HandState, lang: str) -> str:
    notes = page.corrections.get(hand.number, ())
    kinds = sorted({n.kind for n in notes})
    classes = " ".join(["hand", *kinds])
    title = render(Sentence(N_("report.hand"), {"number": hand.number}), lang)
    dealer = render(
        Sentence(N_("report.dealer"), {"dealer": hand.dealer, "streak": hand.dealer_streak}),
        lang,
    )
    outcome = render(Sentence(OUTCOMES[hand.outcome], {"winners": hand.winners}), lang)
    marks = "".join(
        f' <span class="mark {k}">{escape(message(lang, MARKS[k]))}</span>' for k in kinds
    )
    parts = [
        f'<article class="{classes}" id="hand-{hand.number}">',
        f"<h3>{escape(title)}{marks}</h3>",
        f"<p>{escape(dealer)} · {escape(outcome)}</p>",
    ]
    for note in notes:
        text = render(
            Sentence(
                CORRECTIONS[note.kind],
                {
                    "when": Moment(note.when),
                    "by": note.by,
                    "reason": note.reason,
                    "original": Net.of(page.players, note.original_net),
                    "net": Net.of(page.players, note.net),
                },
            ),
            lang,
        )
        parts.append(f'<p class="correction">{escape(text)}</p>')
    parts.append(_transfers_table(hand.transfers, lang))
    net = render(
        Sentence(
            N_("summary.net"), {"number": hand.number, "net": Net.of(page.players, hand.net())}
        ),
        lang,
    )
    parts.append(f'<p class="net">{escape(net)}</p>')
    parts.append("</article>")
    return "\n".join(parts)


STYLE: Final = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { margin-bottom: 0.2em; } .subtitle { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
article.hand { border-top: 1px solid #ddd; padding-top: 0.5em; }
article.corrected, article.voided { background: #fff8e1; }
.mark { font-size: 0.7em; padding: 0.1em 0.4em; border-radius: 0.3em; background: #f0a202;
  color: #fff; vertical-align: middle; }
.correction { font-style: italic; }
svg .axis { stroke: #999; stroke-dasharray: 4 3; } svg text { font-size: 12px; }
"""


def ruleset_title(name: str, lang: str) -> str:
    """The rule set's title in ``lang``: translated where its catalogs have it, else as the
    rule set gives it (a plugin's)."""
    ruleset = find_ruleset(name)
    if ruleset.title_message is None:
        return ruleset.title
    return message(lang, ruleset.title_message)


def render_report(data: ReportData, lang: str) -> str:
    """The whole page, in ``lang``."""
    page = Page(data.ruleset, data.match, data.players, data.corrections)
    return "".join(page.chunks(lang, [h.net() for h in data.hands], data.hands))


@frozen
class Page:
    """The page of a match, written in two passes so that no more than one hand need be held:
    the chart and the totals from each hand's net first, then each hand as it comes."""

    ruleset: str
    match: str | None
    players: tuple[str, ...]
    corrections: Mapping[int, Sequence[CorrectionNote]] = field(factory=dict)

    def chunks(
        self, lang: str, nets: Iterable[Mapping[str, int]], hands: Iterable[HandState]
    ) -> Iterator[str]:
        """The page in ``lang``, piece by piece: ``nets`` is read whole before the first piece,
        ``hands`` (the same hands, in order) one at a time after it."""
        series = running_scores(self.players, nets)
        title = render(Sentence(N_("report.title"), {"match": self.match or "—"}), lang)
        yield _head(title, lang)
        yield "\n".join(self._top(title, series, lang))
        for hand in hands:
            yield "\n" + _hand(self, hand, lang)
        footer = render(Sentence(N_("report.footer"), {"version": __version__}), lang)
        yield f"\n</section>\n<footer><p>{escape(footer)}</p></footer>\n</body>\n</html>\n"

    def _top(self, title: str, series: Mapping[str, Sequence[int]], lang: str) -> list[str]:
        """The title, the chart and the totals: what comes before the first hand."""
        subtitle = render(
            Sentence(
                N_("report.subtitle"),
                {"ruleset": ruleset_title(self.ruleset, lang), "players": self.players},
            ),
            lang,
        )
        totals_head = (
            f"<tr><th>{escape(message(lang, PLAYER))}</th>"
            f"<th>{escape(message(lang, TOTALS))}</th></tr>"
        )
        totals_rows = "".join(
            f'<tr><td>{escape(p)}</td><td class="num">{escape(signed(series[p][-1], lang))}'
            "</td></tr>"
            for p in self.players
        )
        return [
            f"<h1>{escape(title)}</h1>",
            f'<p class="subtitle">{escape(subtitle)}</p>',
            f"<section><h2>{escape(message(lang, CHART))}</h2>",
            chart(self.players, series, lang),
            "</section>",
            f"<section><h2>{escape(message(lang, TOTALS))}</h2>"
            f'<table id="totals">{totals_head}{totals_rows}</table></section>',
            f"<section><h2>{escape(message(lang, HANDS))}</h2>",
        ]


def _head(title: str, lang: str) -> str:
    """The document up to ``<body>``: the language, no fetching allowed, the styles."""
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-Hans" if lang == "zh" else lang}">\n<head>\n'
        '<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    )


def report_from_replay(result: Replay) -> ReportData:
    """The page's data from a replayed log."""
    return ReportData(result.ruleset, result.match, result.players, result.hands)
