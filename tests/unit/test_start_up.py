"""What start-up skips (issue 25) gives what the general way gives: one built-in rule set
loaded by name lists the same rule sets in the same order, the fast decoder's hints are
``typing.get_type_hints``' own, and a log loads only the rule set it names."""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
from pathlib import Path

import attrs
import pytest

from mjledger.log.events import EVENT_CLASSES
from mjledger.log.hints import type_hints as _hints

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _classes_reached() -> list[type]:
    """The event classes and every attrs class their fields' types name."""
    seen: list[type] = []

    def walk(tp: object) -> None:
        for arg in typing.get_args(tp):
            walk(arg)
        if isinstance(tp, type) and attrs.has(tp) and tp not in seen:
            seen.append(tp)
            for hint in typing.get_type_hints(tp).values():
                walk(hint)

    for cls in EVENT_CLASSES:
        walk(cls)
    return seen


@pytest.mark.parametrize("cls", _classes_reached(), ids=lambda c: c.__qualname__)
def test_the_decoders_hints_are_typings(cls: type) -> None:
    assert _hints(cls) == typing.get_type_hints(cls)


def _in_a_process(code: str) -> object:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return ast.literal_eval(out.stdout.strip())


@pytest.mark.parametrize("first", ["sichuan", "hongkong", None])
def test_the_rule_sets_are_listed_built_in_first_whichever_was_loaded_first(
    first: str | None,
) -> None:
    ask = f"find_ruleset({first!r}); " if first else ""
    code = (
        "from mjledger.rules.registry import find_ruleset, ruleset_names, rulesets\n"
        f"{ask}print([ruleset_names(), [r.name for r in rulesets()]])"
    )
    names, listed = _in_a_process(code)  # type: ignore[misc]
    assert names[:2] == ("hongkong", "sichuan")
    assert listed == list(names)


@pytest.mark.parametrize(("name", "other"), [("sichuan", "hongkong"), ("hongkong", "sichuan")])
def test_a_rule_set_asked_for_by_name_loads_no_other(name: str, other: str) -> None:
    code = (
        "import sys\n"
        "from mjledger.rules.registry import find_ruleset\n"
        f"assert find_ruleset({name!r}).name == {name!r}\n"
        f"print(sorted(m for m in sys.modules if m.startswith('mjledger.rules.{other}')))"
    )
    assert _in_a_process(code) == []


@pytest.mark.parametrize(
    ("example", "other"),
    [("sichuan-match.jsonl", "hongkong"), ("hongkong-match.jsonl", "sichuan")],
)
def test_replaying_a_log_loads_only_its_rule_set(example: str, other: str) -> None:
    code = (
        "import atexit, io, sys\n"
        f"sys.argv = ['mjledger', 'replay', '--json', {str(EXAMPLES / example)!r}]\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules "
        f"if m.startswith('mjledger.rules.{other}')), file=sys.stderr))\n"
        "from mjledger._console import run\n"
        "run()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert ast.literal_eval(out.stderr.strip()) == []


def test_the_built_in_listing_is_each_rule_set_and_its_rules_class() -> None:
    from mjledger.rules import builtin
    from mjledger.rules.registry import find_ruleset

    assert [r.name for r in builtin.BUILT_IN] == ["hongkong", "sichuan"]
    assert builtin.HongKongRules is find_ruleset("hongkong").rules_class
    assert builtin.SichuanRules is find_ruleset("sichuan").rules_class
