"""Build hook: compile the gettext catalogs (``.po`` → ``.mo``, with Babel) into the wheel,
and build the wait tables into it (``mjledger/tiles/wait_tables.bin``, docs/performance.md).

Everything else about the package is in pyproject.toml. An editable install skips this step:
there ``mjledger.i18n`` compiles a ``.po`` in memory when its ``.mo`` is missing or older, and
the wait tables are built on first use and kept in the user's cache (``tiles/prebuilt.py``).
"""

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

LOCALE = Path("src/mjledger/locale")


class BuildPyWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
            target = Path(self.build_lib, "mjledger", po.relative_to("src/mjledger"))
            target = target.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as source:
                catalog = read_po(source)
            with target.open("wb") as out:
                write_mo(out, catalog, use_fuzzy=False)
        self.build_wait_tables()

    def build_wait_tables(self) -> None:
        """The tables the package's own builder makes, from the source being packaged."""
        sys.path.insert(0, "src")
        try:
            from mjledger.tiles import prebuilt, tables
        finally:
            sys.path.remove("src")
        target = Path(self.build_lib, "mjledger", "tiles", os.path.basename(prebuilt.PACKAGED))
        if not prebuilt.save(tables.plain_tables(*tables.built()), target):
            raise OSError(f"cannot write {target}")


setup(cmdclass={"build_py": BuildPyWithCatalogs})
