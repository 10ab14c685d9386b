"""The disputed-hands commands end to end (issue 13): explain in six languages, correct and
void with history, export and scores following, and the wheel's compiled catalogs."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjledger import replay
from mjledger.cli import main
from mjledger.explain.i18n import LANGUAGES
from tests.conftest import EXAMPLES, ROOT
from tests.store.test_corrections import FIXED, ONE_WINNER, SC, SC_ID


@pytest.mark.slow
def test_the_wheel_carries_compiled_catalogs(tmp_path: Path) -> None:
    """The build hook compiles every .po into the wheel; the installed wheel finds them."""
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = tmp_path.glob("mjledger-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for lang in LANGUAGES:
        assert f"mjledger/locale/{lang}/LC_MESSAGES/mjledger.mo" in names
    target = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(target)
    code = (
        "from mjledger.explain.i18n import message, catalog_paths; "
        "po, mo = catalog_paths('zh'); assert mo.exists() and not po.exists(), (po, mo); "
        "print(message('zh', 'outcome.void'))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(target), "PATH": ""},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "流局：无人胡牌。"


def test_explain_command_in_six_languages() -> None:
    log = str(EXAMPLES / "disputed-hand.jsonl")
    outputs = set()
    for lang in LANGUAGES:
        result = CliRunner().invoke(main, ["explain", log, "--lang", lang])
        assert result.exit_code == 0, result.output
        outputs.add(result.output)
    assert len(outputs) == len(LANGUAGES)


def test_the_commands(tmp_path: Path) -> None:
    store = str(tmp_path / "c.sqlite")
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_text(FIXED, encoding="utf-8")
    one = tmp_path / "one.jsonl"
    one.write_text(ONE_WINNER, encoding="utf-8")
    run = CliRunner().invoke
    assert run(main, ["record", str(SC), "--store", store]).exit_code == 0
    refused = run(
        main,
        ["correct", SC_ID, "3", "--with", str(one), "--reason", "r", "--by", "s", "--store", store],
    )
    assert refused.exit_code == 2
    assert refused.output.count("\n") == 1
    assert "next dealer" in refused.output
    done = run(
        main,
        [
            "correct",
            SC_ID,
            "3",
            "--with",
            str(fixed),
            "--reason",
            "fan miscounted",
            "--by",
            "staff7",
            "--store",
            store,
        ],
    )
    assert done.exit_code == 0, done.output
    assert "wei -8" in done.output
    voided = run(
        main, ["void", SC_ID, "5", "--reason", "wrong table", "--by", "staff8", "--store", store]
    )
    assert voided.exit_code == 0, voided.output
    history = json.loads(run(main, ["history", SC_ID, "--store", store, "--json"]).output)
    (c3,) = history[2]["corrections"]
    assert c3["reason"] == "fan miscounted"
    assert c3["by"] == "staff7"
    assert c3["original_net"]["wei"] == -10
    assert c3["net"]["wei"] == -8
    assert c3["when"]
    assert history[4]["corrections"][0]["kind"] == "voided"
    assert "corrections" not in history[0]
    explained = json.loads(
        run(main, ["explain", "--store", store, SC_ID, "3", "--json", "--lang", "zh"]).output
    )
    assert explained["corrections"][0]["by"] == "staff7"
    assert "更正" in explained["summary_text"]
    exported = run(main, ["export", SC_ID, "--store", store]).output
    scores = json.loads(run(main, ["scores", "--store", store, "--json"]).output)["matches"][SC_ID]
    assert replay(exported).totals() == scores
    assert (
        "hand_corrected"
        in run(main, ["export", SC_ID, "--store", store, "--with-corrections"]).output
    )


def test_a_plugin_rule_set_is_explained_by_what_its_hooks_settled() -> None:
    """A rule set mjledger has no arithmetic for (the toy "every win pays 1"): each step shows
    the money its hooks settled, in every language, and it still ties to the net."""
    from mjledger.explain import explain_log, money_by_player
    from mjledger.explain.i18n import render_text
    from mjledger.rules import registered
    from tests.cli.test_registry import EXPECTED_TOTALS, TOY_LOG
    from tests.toy_ruleset import FLAT

    with registered(FLAT):
        hands = explain_log(TOY_LOG)
        totals = dict.fromkeys(EXPECTED_TOTALS, 0)
        for hand in hands:
            assert money_by_player(hand) == hand.net
            for p, a in hand.net.items():
                totals[p] += a
            for lang in LANGUAGES:
                assert render_text([hand], lang)
        assert totals == EXPECTED_TOTALS
        assert any(s.sentences[0].id == "other_ruleset" for h in hands for s in h.steps)
