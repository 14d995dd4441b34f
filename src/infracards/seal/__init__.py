"""Sealed answers, card keys and the license file; knows bytes and keys, not decks or tables."""

from infracards.seal.crypto import KdfParams, check_kdf_params, open_answer, seal_answer
from infracards.seal.license import forget_license, license_path, load_license, save_license
from infracards.seal.license_key import LicenseKey, format_license_key, kid_text, parse_license_key
from infracards.seal.release import (
    PRODUCTION_KDF_PARAMS,
    TEST_KDF_PARAMS,
    IssuedKey,
    LockHeader,
    SealedRelease,
    issue_license_keys,
    open_release,
    parse_keyslots,
    parse_lock_header,
    seal_release,
    verify_all_answers,
)

__all__ = [
    "PRODUCTION_KDF_PARAMS",
    "TEST_KDF_PARAMS",
    "IssuedKey",
    "KdfParams",
    "LicenseKey",
    "LockHeader",
    "SealedRelease",
    "check_kdf_params",
    "forget_license",
    "format_license_key",
    "issue_license_keys",
    "kid_text",
    "license_path",
    "load_license",
    "open_answer",
    "open_release",
    "parse_keyslots",
    "parse_license_key",
    "parse_lock_header",
    "save_license",
    "seal_answer",
    "seal_release",
    "verify_all_answers",
]
