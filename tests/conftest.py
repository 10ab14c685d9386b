"""Shared test set-up: Hypothesis profiles (quick locally, thorough in CI) and paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile(
    "ci",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

TIERS = ("unit", "store", "cli")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests are tiered by folder (``-m unit`` runs the pure core in seconds); ``slow`` marks
    the ones that start processes (``-m "not slow"`` is the quick local run)."""
    for item in items:
        tier = item.path.parent.name
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))


ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# The project's own contract examples: logs with their exact expected `replay --json` output,
# worked by hand (tests/data/README.md). The repository stands alone: nothing here reads
# the folder beside the clone (CI checks the shared examples separately, where they exist).
DATA = ROOT / "tests" / "data"
CONTRACT = DATA / "contract"
EXPECTED_EXAMPLES = DATA / "examples"
