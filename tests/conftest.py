"""Shared test set-up: Hypothesis profiles (quick locally, thorough in CI) and paths."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import pg
from tests.backends import PERSISTING, new_store

settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile(
    "ci",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

TIERS = ("unit", "store", "cli", "hostile", "http")


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


# --- PostgreSQL: one throwaway server per test session (tests/pg.py) ---------------------------


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pg.Cluster]:
    """A PostgreSQL server on loopback for this session, removed afterwards.

    Without PostgreSQL installed the tests that need it are skipped, saying why, so README's
    test command passes on any machine; under ``CI=true`` they fail instead, since there a
    skip would hide a missing install step in ``.ci/run``.
    """
    try:
        pg.bindir()
    except pg.NoPostgresError as missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing}; CI=true needs a real server (.ci/run installs it)")
        pytest.skip(f"{missing}: the PostgreSQL tests are skipped")
    with pg.Cluster() as cluster:
        yield cluster


@pytest.fixture
def pg_database(pg_cluster: pg.Cluster) -> str:
    """A fresh, empty database owned by the tests' login role."""
    return pg_cluster.create_database()


@pytest.fixture
def pg_url(pg_cluster: pg.Cluster, pg_database: str) -> str:
    """The store URL of a fresh database (password-authenticated over TCP, as a backend)."""
    return pg_cluster.url(pg_database)


@pytest.fixture(params=PERSISTING, ids=lambda backend: backend.name)
def any_store(request: pytest.FixtureRequest) -> str:
    """A new, empty store of each backend object that keeps rows (SQLite, PostgreSQL): the
    contract suite runs once per backend."""
    return new_store(request.param, request)
