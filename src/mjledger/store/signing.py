"""Ed25519 keys and signatures for signed checkpoints (the ``cryptography`` package).

A digest chain only shows clumsy edits: whoever can write the database can recompute it. A
signature over each hand's closing digest and over the store head, made with a private key that
never enters the database, makes a rewrite of history a forgery. Signatures are stored as hex.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from mjledger.errors import MjledgerError

SIGNING_KEY_ENV: Final = "MJLEDGER_SIGNING_KEY"


class SigningKeyError(MjledgerError):
    """A key file that cannot be read, or is not an Ed25519 key of the right kind."""


class Signer:
    """Signs messages with one Ed25519 private key."""

    __slots__ = ("_key",)

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key

    def sign(self, message: bytes) -> str:
        return self._key.sign(message).hex()

    @property
    def public_key(self) -> Ed25519PublicKey:
        return self._key.public_key()


class Verifier:
    """Checks signatures made by the private half of one Ed25519 public key."""

    __slots__ = ("_key",)

    def __init__(self, key: Ed25519PublicKey) -> None:
        self._key = key

    def verify(self, signature: str, message: bytes) -> bool:
        try:
            self._key.verify(bytes.fromhex(signature), message)
        except (InvalidSignature, ValueError, TypeError):
            return False
        return True


def _read(path: str | os.PathLike[str], what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None


def load_signer(path: str | os.PathLike[str]) -> Signer:
    """The signer of a PEM private key file (as ``mjledger keygen`` writes it)."""
    data = _read(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(
            f"{path} is not a PEM private key without a password: {exc}"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} is not an Ed25519 private key")
    return Signer(key)


def load_verifier(path: str | os.PathLike[str]) -> Verifier:
    """The verifier of a PEM public key file (``PATH.pub`` from ``mjledger keygen PATH``)."""
    data = _read(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path} is not a PEM public key: {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError(f"{path} is not an Ed25519 public key")
    return Verifier(key)


def signer_from_env(path: str | os.PathLike[str] | None = None) -> Signer | None:
    """The signer of ``path``, else of ``$MJLEDGER_SIGNING_KEY`` if set, else none."""
    chosen = path if path is not None else os.environ.get(SIGNING_KEY_ENV) or None
    return load_signer(chosen) if chosen is not None else None


def keygen(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a new private key to ``path`` (PEM, readable by its owner only) and its public
    key to ``path.pub``; refuses to overwrite either."""
    private = Path(path)
    public = private.with_name(private.name + ".pub")
    for target in (private, public):
        if target.exists():
            raise SigningKeyError(f"{target} exists already; not overwriting a key")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    pub = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
        public.write_bytes(pub)
    except OSError as exc:
        raise SigningKeyError(f"cannot write the key {path}: {exc.strerror or exc}") from None
    return private, public
