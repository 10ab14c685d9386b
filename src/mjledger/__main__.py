"""``python -m mjledger`` runs the command line."""

from mjledger.cli import main

main()
