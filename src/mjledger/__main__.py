"""``python -m mjledger`` runs the command line."""

from mjledger.cli.main import main

main()
