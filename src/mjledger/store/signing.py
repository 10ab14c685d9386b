"""Ed25519 keys and signatures for signed checkpoints.

A digest chain only shows clumsy edits: whoever can write the database can recompute it. A
signature over each hand's closing digest and over the store head, made with a private key that
never enters the database, makes a rewrite of history a forgery. Signatures are stored as hex.

Keys (PEM files) and signing are the ``cryptography`` package's. Signatures are verified by
libsodium, through PyNaCl (the same maintainers): an audit verifies one signature a hand, and
libsodium verifies an Ed25519 signature in about half the CPU time of the OpenSSL that
``cryptography`` ships (58-67 against 108-121 µs here). Both verify RFC 8032 signatures
without the cofactor; libsodium is the stricter of the two, refusing besides a public key or a
signature's ``R`` of small order (a key only a forger would make: no key ``keygen`` writes is
one; OpenSSL takes any signature at all under the identity point as a public key), so a
signature the ledger's own signer made verifies under both, and tampering with it fails both
(``tests/store/test_signing.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Final

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from mjledger.errors import MjledgerError

SIGNING_KEY_ENV: Final = "MJLEDGER_SIGNING_KEY"
SIGNATURE_BYTES: Final = 64  # an Ed25519 signature: R (32 bytes) and S (32 bytes)


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
    """Checks signatures made by the private half of one Ed25519 public key (by libsodium:
    see the module's docstring)."""

    __slots__ = ("_key", "_open", "_raw", "_refused")

    def __init__(self, key: Ed25519PublicKey) -> None:
        # Imported only where signatures are checked (not at every command's start).
        from nacl.bindings import crypto_sign_open
        from nacl.exceptions import BadSignatureError

        self._key = key
        self._raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self._open: Callable[[bytes, bytes], bytes] = crypto_sign_open
        self._refused = (BadSignatureError, ValueError, TypeError)

    def verify(self, signature: str, message: bytes) -> bool:
        """Whether ``signature`` (hex) is this key's over ``message``."""
        try:
            signed = bytes.fromhex(signature)
        except (ValueError, TypeError):
            return False
        if len(signed) != SIGNATURE_BYTES:  # else libsodium would read the message's start as S
            return False
        try:
            self._open(signed + message, self._raw)  # a "signed message": the signature first
        except self._refused:
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
