"""Every simulated log survives record → export → replay unchanged (issue 14)."""

from __future__ import annotations

from hypothesis import given

from mjledger import replay
from mjledger.ledger import Ledger
from tests.unit.test_simulate_properties import simulated_logs


@given(simulated_logs())
def test_a_simulated_log_survives_record_export_replay(text: str) -> None:
    expected = replay(text).to_json()
    ledger = Ledger(persistence="memory")
    try:
        result = ledger.record_log(text)
        assert result.status == "recorded"
        exported = ledger.export(result.match)
        assert ledger.replay_all()[result.match].to_json() == expected
    finally:
        ledger.close()
    assert replay(exported).to_json() == expected
    assert exported.splitlines()[1:] == text.splitlines()[1:]
