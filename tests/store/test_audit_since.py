"""``audit --since HEAD_FILE`` (issue 22): a rollback that passes a signed audit is caught.

A signed store catches forged, re-signed and replayed rows, but a store rolled back to an
earlier copy, or one whose newest match was deleted and its old signed head row put back, is a
store mjledger could have written: the plain audit passes it. A head saved earlier (what
``audit --head --json`` printed) is a commitment to the rows it covered; ``--since`` proves
today's store holds the same rows in the same order, then more, and reports anything else.
Every case runs on SQLite and PostgreSQL, signed and unsigned.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mjledger.cli import main
from mjledger.ledger import Ledger
from mjledger.store.audit import audit
from mjledger.store.backends import Backend, SqliteBackend
from mjledger.store.signing import keygen, load_verifier
from mjledger.store.since import read_saved_head, since
from tests.backends import PERSISTING, new_store
from tests.conftest import EXAMPLES
from tests.store.test_audit import Raw
from tests.store_logs import sichuan_match

HEAD_ROW = "SELECT rows, notification, digest, signature FROM ledger_head WHERE id = 1"


@pytest.fixture(params=PERSISTING, ids=lambda backend: backend.name)
def backend(request: pytest.FixtureRequest) -> type[Backend]:
    """Each backend object that keeps rows (SQLite, PostgreSQL)."""
    backend: type[Backend] = request.param
    return backend


@pytest.fixture(params=[False, True], ids=["unsigned", "signed"])
def key(request: pytest.FixtureRequest, tmp_path: Path) -> Path | None:
    if not request.param:
        return None
    private, _public = keygen(tmp_path / "signing.pem")
    return private


def _record(store: str, key: Path | None, log: str) -> None:
    with Ledger(store, signing_key=key) as ledger:
        ledger.record_log(log)


def _hong_kong() -> str:
    return (EXAMPLES / "hongkong-match.jsonl").read_text(encoding="utf-8")


def _save_head(store: str, where: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["audit", "--head", "--json", "--store", store])
    assert result.exit_code == 0, result.output
    where.write_text(result.stdout, encoding="utf-8")
    head: dict[str, Any] = json.loads(result.stdout)
    return head


def _audit_since(store: str, head: Path, key: Path | None) -> tuple[int, dict[str, Any]]:
    args = ["audit", "--store", store, "--since", str(head), "--json"]
    if key is not None:
        args += ["--public-key", f"{key}.pub"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return result.exit_code, document


def _plain_audit_is_clean(store: str, key: Path | None) -> None:
    """What the attack gets past: the audit of the store alone (signatures verified)."""
    verifier = None if key is None else load_verifier(Path(f"{key}.pub"))
    report = audit(store, public_key=verifier)
    assert report.clean, [str(f) for f in report.findings]


def _codes(document: dict[str, Any]) -> list[str]:
    return [f["code"] for f in document["findings"]]


@pytest.fixture
def grown(
    backend: type[Backend], key: Path | None, request: pytest.FixtureRequest, tmp_path: Path
) -> Any:
    """A store with one match, its head saved, then a second match recorded."""
    store = new_store(backend, request, "store")
    _record(store, key, _hong_kong())
    before = _save_head(store, tmp_path / "before.json")
    first = Raw(store)
    with first:
        old_head = first.execute(HEAD_ROW).fetchone()
    if backend is SqliteBackend:
        shutil.copy(store, tmp_path / "copy.sqlite")
    _record(store, key, sichuan_match(4, seed=5, match_id="later"))
    after = _save_head(store, tmp_path / "after.json")
    assert after["rows"] > before["rows"]
    return store, before, after, old_head


def test_a_store_that_grew_extends_the_saved_head(
    grown: Any, key: Path | None, tmp_path: Path
) -> None:
    store, before, after, _ = grown
    status, document = _audit_since(store, tmp_path / "before.json", key)
    assert status == 0
    assert _codes(document) == []
    assert document["since"] == {
        "rows": before["rows"],
        "head": before["head"],
        "rows_now": after["rows"],
        "added": after["rows"] - before["rows"],
        "consistent": True,
    }
    # the head just taken is extended by nothing
    assert since(store, read_saved_head(tmp_path / "after.json")).consistent
    saved = str(tmp_path / "before.json")
    text = CliRunner().invoke(main, ["audit", "--store", store, "--since", saved])
    assert text.exit_code == 0, text.output
    assert f"extended by {after['rows'] - before['rows']} rows" in text.stdout


def _delete_after(store: str, old_head: tuple[Any, ...]) -> None:
    """The newest match's rows deleted and the head row as it was before it (its signature
    too): a store mjledger could have written, as it was before that match."""
    with Raw(store) as raw:
        raw.execute("DELETE FROM stored_events WHERE rowid > ?", (old_head[1],))
        raw.execute(
            "UPDATE ledger_head SET rows = ?, notification = ?, digest = ?, signature = ? "
            "WHERE id = 1",
            old_head,
        )


def test_a_store_that_lost_its_newest_match_with_the_old_head_restored(
    grown: Any, key: Path | None, tmp_path: Path
) -> None:
    store, before, after, old_head = grown
    _delete_after(store, old_head)
    _plain_audit_is_clean(store, key)
    status, document = _audit_since(store, tmp_path / "after.json", key)
    assert status == 1
    assert _codes(document) == ["head_rolled_back"]
    finding = document["findings"][0]
    assert (finding["expected"], finding["found"]) == (after["rows"], before["rows"])
    assert document["since"]["consistent"] is False


def test_a_store_rolled_back_to_an_earlier_copy(
    grown: Any, backend: type[Backend], key: Path | None, tmp_path: Path
) -> None:
    store, before, _after, old_head = grown
    if backend is SqliteBackend:
        shutil.copy(tmp_path / "copy.sqlite", store)  # the file as it was, put back
    else:
        _delete_after(store, old_head)  # a dump of then restored: the same rows
    _plain_audit_is_clean(store, key)
    status, document = _audit_since(store, tmp_path / "after.json", key)
    assert status == 1
    assert _codes(document) == ["head_rolled_back"]
    # against the head saved before the later match, the copy is consistent
    status, document = _audit_since(store, tmp_path / "before.json", key)
    assert status == 0
    assert document["since"]["rows_now"] == before["rows"]


def test_a_store_with_another_history_is_rewritten(
    grown: Any,
    backend: type[Backend],
    key: Path | None,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    _store, _before, _after, _ = grown
    other = new_store(backend, request, "other")
    _record(other, key, sichuan_match(4, seed=5, match_id="later"))
    _record(other, key, _hong_kong())
    _plain_audit_is_clean(other, key)
    status, document = _audit_since(other, tmp_path / "before.json", key)
    assert status == 1
    assert _codes(document) == ["head_rewritten"]


def test_a_saved_head_with_a_forged_signature_is_a_finding(
    grown: Any, key: Path | None, tmp_path: Path
) -> None:
    store, _before, after, _ = grown
    if key is None:
        assert after["signature"] is None
        return
    forged = dict(after, signature=after["signature"][::-1])
    (tmp_path / "forged.json").write_text(json.dumps(forged), encoding="utf-8")
    status, document = _audit_since(store, tmp_path / "forged.json", key)
    assert status == 1
    assert _codes(document) == ["signature_invalid"]


@pytest.mark.parametrize(
    "content",
    [None, "", "not json", "[]", '{"rows": 3}', '{"rows": -1, "head": "' + "a" * 64 + '"}'],
)
def test_an_unreadable_head_file_is_status_2_in_one_line(
    tmp_path: Path, content: str | None
) -> None:
    store = str(tmp_path / "store.sqlite")
    _record(store, None, _hong_kong())
    head = tmp_path / "head.json"
    if content is not None:
        head.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["audit", "--store", store, "--since", str(head)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("mjledger: ")
    assert "saved head" in result.stderr
