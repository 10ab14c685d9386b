"""The command line: ``mjledger replay``, ``schema``, ``evaluate`` and the store commands.
A thin shell over the library; ``main`` is the console script (each command's module is
imported when the command is asked for: :mod:`mjledger.cli.commands`)."""

from mjledger.cli.main import main

__all__ = ["main"]
