"""Sealed answers, card keys and the license file; knows bytes and keys, not decks or tables.

Names are loaded from their submodule on first use (PEP 562): checking for a license or parsing
a card key must not pay for ``cryptography`` (about 10 ms), which only unlocking and opening a
sealed answer need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from infracards.seal.crypto import KdfParams, check_kdf_params, open_answer, seal_answer
    from infracards.seal.license import (
        forget_license,
        license_path,
        load_license,
        save_license,
        store_key,
    )
    from infracards.seal.license_key import (
        LicenseKey,
        format_license_key,
        kid_text,
        parse_license_key,
    )
    from infracards.seal.release import (
        PRODUCTION_KDF_PARAMS,
        TEST_KDF_PARAMS,
        CardLabels,
        IssuedKey,
        LockHeader,
        SealedRelease,
        check_labels,
        issue_license_keys,
        open_release,
        parse_keyslots,
        parse_lock_header,
        seal_release,
        verify_all_answers,
    )

_SUBMODULE = {
    "KdfParams": "crypto",
    "check_kdf_params": "crypto",
    "open_answer": "crypto",
    "seal_answer": "crypto",
    "forget_license": "license",
    "license_path": "license",
    "load_license": "license",
    "save_license": "license",
    "store_key": "license",
    "LicenseKey": "license_key",
    "format_license_key": "license_key",
    "kid_text": "license_key",
    "parse_license_key": "license_key",
    "PRODUCTION_KDF_PARAMS": "release",
    "TEST_KDF_PARAMS": "release",
    "CardLabels": "release",
    "check_labels": "release",
    "IssuedKey": "release",
    "LockHeader": "release",
    "SealedRelease": "release",
    "issue_license_keys": "release",
    "open_release": "release",
    "parse_keyslots": "release",
    "parse_lock_header": "release",
    "seal_release": "release",
    "verify_all_answers": "release",
}

__all__ = [
    "PRODUCTION_KDF_PARAMS",
    "TEST_KDF_PARAMS",
    "CardLabels",
    "IssuedKey",
    "KdfParams",
    "LicenseKey",
    "LockHeader",
    "SealedRelease",
    "check_kdf_params",
    "check_labels",
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
    "store_key",
    "verify_all_answers",
]


def __getattr__(name: str) -> object:
    try:
        submodule = _SUBMODULE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(f"{__name__}.{submodule}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_SUBMODULE})
