"""The languages an explanation is written in (catalogs under ``mjledger/locale``), named
apart from :mod:`.i18n` so that the command line's ``--lang`` choices cost no import."""

from typing import Final

LANGUAGES: Final = ("it", "pt", "es", "fr", "en", "zh")
DEFAULT_LANGUAGE: Final = "en"
