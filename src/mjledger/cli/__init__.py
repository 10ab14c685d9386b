"""The command line: ``mjledger replay``, ``schema``, ``evaluate`` and the store commands.
A thin shell over the library; ``main`` is the console script."""

from mjledger.cli.main import main

__all__ = ["main"]
