"""Writes tests/data/store-v0.1/ with mjledger 0.1 (commit 37c7c6a): a store and its outputs."""
import json, sys
from pathlib import Path
from mjledger.ledger import Ledger
from mjledger import KongDeclared, WonOnDiscard, Discarded

out = Path(sys.argv[1])
db = out / "store.sqlite"
db.unlink(missing_ok=True)
ledger = Ledger(db)
for name in ("hongkong-match.jsonl", "sichuan-match.jsonl"):
    ledger.record_log(Path("examples", name).read_text(encoding="utf-8"))
ledger.open_table("t7", "sichuan", ["ana", "bo", "cy", "di"], {"base": 2})
ledger.change_rules("t7", {"base": 3, "fan_cap": 5})
m = ledger.start_match(table="t7", match_id="t7-first")
n = ledger.start_hand(m)
ledger.record(m, n, KongDeclared(player="bo", kind="concealed"))
ledger.record(m, n, Discarded(player="bo"))
ledger.record(m, n, WonOnDiscard(player="di", from_="bo", fan=1))
expected = {}
for match_id in ledger.matches():
    (out / f"{match_id}.export.jsonl").write_text(ledger.export(match_id), encoding="utf-8")
replays = {k: v.to_json() for k, v in ledger.replay_all().items()}
(out / "replay_all.json").write_text(json.dumps(replays, indent=1, sort_keys=True) + "\n", encoding="utf-8")
views = ledger.views
views.catch_up()
(out / "views.json").write_text(json.dumps({
  "scores_by_match": views.scores_by_match(),
  "scores_by_player": {p: {k: list(v) for k, v in d.items()} for p, d in views.scores_by_player().items()},
  "longest_streaks": views.longest_streaks(),
  "history": {m: [h.to_json() for h in views.history(m)] for m in ledger.matches()},
}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
ledger.close()
