"""A warm audit's instructions, for callgrind (repeatable on a loaded machine).

Plain script, run from the repository root. ``--build DIR`` writes the stores once (500
Sichuan hands of seed 1, unsigned and signed, as ``bench_audit.py`` builds them, with the
read models caught up); then run it twice under callgrind, auditing one store once and
twice: the difference of the two totals is one warm audit (start-up, imports and the first
audit's one-time costs cancel)::

    .venv/bin/python benchmarks/callgrind_audit.py --build /dev/shm/a500
    for n in 1 2; do
        PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n \\
            .venv/bin/python benchmarks/callgrind_audit.py /dev/shm/a500/signed.sqlite --audits $n
    done   # (Collected at 2) - (Collected at 1)

A store named ``signed*`` is audited with the public key beside it (``k.pem.pub``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit import build
from mjledger.store.audit import audit
from mjledger.store.signing import keygen, load_verifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store", nargs="?", type=Path)
    parser.add_argument("--audits", type=int, default=1)
    parser.add_argument("--build", type=Path, help="write the two stores into this directory")
    parser.add_argument("--hands", type=int, default=500)
    args = parser.parse_args()
    if args.build is not None:
        args.build.mkdir(parents=True, exist_ok=True)
        key, _ = keygen(args.build / "k.pem")
        build(args.build / "plain.sqlite", args.hands, 1, key=None, views=True)
        build(args.build / "signed.sqlite", args.hands, 1, key=key, views=True)
        return
    if args.store is None:
        parser.error("a store to audit, or --build DIR")
    signed = args.store.name.startswith("signed")
    verifier = load_verifier(args.store.parent / "k.pem.pub") if signed else None
    for _ in range(args.audits):
        result = audit(args.store, public_key=verifier)
        assert result.findings == (), result.findings[:3]


if __name__ == "__main__":
    main()
