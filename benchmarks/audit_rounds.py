"""The audit against raw reading, on stores built once, for interleaving two trees.

``bench_audit.py`` builds its stores anew on every run (half a minute for 10,000 hands);
this script builds them once (``--build DIR``: 10,000 Sichuan hands of seed 1, unsigned and
signed, as ``bench_audit.build`` writes them, in matches of 100 hands or ``--per-match``)
and then times, ``--rounds`` times in one process, raw ``sqlite3`` reading + ``json.loads``
of every row, the audit, and the signed audit with its public key, in CPU time, so that two
trees can be run alternately on the very same stores::

    .venv/bin/python benchmarks/audit_rounds.py --build /dev/shm/aud
    PYTHONPATH=<tree>/src .venv/bin/python benchmarks/audit_rounds.py /dev/shm/aud --rounds 2
    .venv/bin/python benchmarks/audit_rounds.py --build /dev/shm/aud10 --per-match 10
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit import PER_MATCH, build, raw_read
from mjledger.store.audit import audit
from mjledger.store.signing import keygen, load_verifier


def cpu(func: object) -> float:
    start = time.process_time()
    func()  # type: ignore[operator]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--build", action="store_true", help="write the two stores there")
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--per-match", type=int, default=PER_MATCH, help="hands a match in the stores built"
    )
    args = parser.parse_args()
    plain, signed = args.directory / "plain.sqlite", args.directory / "signed.sqlite"
    if args.build:
        args.directory.mkdir(parents=True, exist_ok=True)
        key, _ = keygen(args.directory / "k.pem")
        build(plain, args.hands, 1, key=None, views=True, per_match=args.per_match)
        build(signed, args.hands, 1, key=key, views=True, per_match=args.per_match)
        return
    verifier = load_verifier(args.directory / "k.pem.pub")

    def audited(store: Path, key: object = None) -> None:
        result = audit(store, public_key=key)  # type: ignore[arg-type]
        assert result.findings == (), result.findings[:3]

    for _ in range(args.rounds):
        raw = cpu(lambda: raw_read(plain))
        unsigned = cpu(lambda: audited(plain))
        with_key = cpu(lambda: audited(signed, verifier))
        print(
            f"raw {raw:.3f} s  audit {unsigned:.3f} s ({raw / unsigned:.0%})  "
            f"signed {with_key:.3f} s ({raw / with_key:.0%})",
            flush=True,
        )


if __name__ == "__main__":
    main()
