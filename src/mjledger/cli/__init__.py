"""The command line: ``mjledger replay``, ``schema``, ``evaluate`` and the store commands.
A thin shell over the library; ``main`` is the console script."""

from mjledger.cli.audit import audit_command, keygen_command
from mjledger.cli.main import main
from mjledger.cli.serve import serve_command, token_group

# The audit's commands use main's helpers, so they join the group here, once both exist.
main.add_command(audit_command)
main.add_command(keygen_command)
main.add_command(serve_command)
main.add_command(token_group)

__all__ = ["main"]
