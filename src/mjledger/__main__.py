"""``python -m mjledger`` runs the command line (as the console script does, click's help
page included: ``python -m mjledger`` is the program name click shows)."""

from mjledger._gc import command_imported, one_command_process

one_command_process()
from mjledger.cli.main import main  # noqa: E402 - imported with the collector off

command_imported()
main()
