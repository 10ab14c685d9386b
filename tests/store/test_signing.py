"""Signature verification (mjledger.store.signing.Verifier, by libsodium) against the
``cryptography`` package's own Ed25519 verification, which it replaced: the same answer for
every signature the ledger's signer makes and every tampering with one, and a refusal where
OpenSSL would take a forgery."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given
from hypothesis import strategies as st

from mjledger.store.integrity import hand_message, head_message
from mjledger.store.signing import Signer, Verifier, keygen, load_signer, load_verifier

pytestmark = pytest.mark.unit

_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
_OTHER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
# The order of the group Ed25519 signs in (RFC 8032): S must be below it.
_L = 2**252 + 27742317777372353535851937790883648493


def _openssl(key: Ed25519PublicKey, signature: str, message: bytes) -> bool:
    try:
        key.verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def test_a_signature_of_the_signer_verifies_and_nothing_else_does() -> None:
    signer, verifier = Signer(_KEY), Verifier(_KEY.public_key())
    message = hand_message("ab" * 32)
    signature = signer.sign(message)
    assert verifier.verify(signature, message)
    assert verifier.verify(signature.upper(), message)  # hex in either case, as before
    assert not verifier.verify(signature, hand_message("ac" * 32))
    assert not verifier.verify(signature, head_message(1, "ab" * 32))
    assert not Verifier(_OTHER.public_key()).verify(signature, message)
    assert not verifier.verify(signature[:-2], message)  # 63 bytes
    assert not verifier.verify(signature + "00", message)  # 65 bytes
    assert not verifier.verify("zz" + signature[2:], message)  # not hex
    assert not verifier.verify("", message)


def test_a_signature_whose_s_is_not_reduced_is_refused() -> None:
    """S + L verifies the same equation; RFC 8032 (and both libraries) refuse it."""
    message = hand_message("cd" * 32)
    raw = _KEY.sign(message)
    s = int.from_bytes(raw[32:], "little") + _L
    assert s < 2**256
    malleated = (raw[:32] + s.to_bytes(32, "little")).hex()
    assert not _openssl(_KEY.public_key(), malleated, message)
    assert not Verifier(_KEY.public_key()).verify(malleated, message)


def test_a_public_key_of_small_order_verifies_no_forgery() -> None:
    """The identity point as a public key: OpenSSL takes (R = identity, S = 0) as a signature
    of any message; libsodium refuses keys of small order."""
    identity = b"\x01" + bytes(31)
    key = Ed25519PublicKey.from_public_bytes(identity)
    forged = (identity + bytes(32)).hex()
    assert _openssl(key, forged, b"anything")  # what the old verifier would have accepted
    assert not Verifier(key).verify(forged, b"anything")


@given(
    digest=st.text("0123456789abcdef", min_size=64, max_size=64),
    flip=st.integers(0, 64 * 8 - 1),
    where=st.sampled_from(["signature", "message", "none"]),
)
def test_tampering_fails_both_verifiers_alike(digest: str, flip: int, where: str) -> None:
    message = hand_message(digest)
    signature = bytearray(_KEY.sign(message))
    if where == "signature":
        signature[flip // 8] ^= 1 << (flip % 8)
    elif where == "message":
        changed = bytearray(message)
        changed[flip % len(changed)] ^= 1 << (flip % 8)
        message = bytes(changed)
    text = bytes(signature).hex()
    expected = _openssl(_KEY.public_key(), text, message)
    assert Verifier(_KEY.public_key()).verify(text, message) == expected
    assert expected == (where == "none")


def test_keys_written_by_keygen_sign_and_verify(tmp_path: Path) -> None:
    private, public = keygen(tmp_path / "k.pem")
    message = head_message(3, "ef" * 32)
    assert load_verifier(public).verify(load_signer(private).sign(message), message)
