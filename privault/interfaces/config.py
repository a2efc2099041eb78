"""The composition root's view of the environment: paths, key, and the config file.

Only interfaces read environment variables; they pass plain values into the core.

    PRIVAULT_HOME    the home folder (default ~/.privault)
    PRIVAULT_VAULT   the vault file (default $PRIVAULT_HOME/vault.db)
    PRIVAULT_MODELS  installed models (default $PRIVAULT_HOME/models)
    PRIVAULT_KEY     the encryption key of an encrypted vault (else the OS keyring)
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from privault.errors import InputError, VaultError

KEYRING_SERVICE = "privault"


class Config(BaseModel):
    """`$PRIVAULT_HOME/config.yaml`: optional settings; a broken file is an error, not ignored."""

    model_config = ConfigDict(extra="forbid")
    privacy: dict[str, Any] = Field(default_factory=dict, description="caller/shelf policies")
    policies_dir: Path | None = Field(None, description="a folder of policy YAML files")
    max_note_bytes: int = Field(1024 * 1024, gt=0)
    max_file_bytes: int = Field(20 * 1024 * 1024, gt=0)
    chat_model: str | None = Field(None, description="the local answerer for ask")
    strong_model: str | None = Field(
        "embeddinggemma-300m",
        description="the strong relevance model for context and ask (null: none, if installed)",
    )
    remote_chat: dict[str, Any] | None = Field(None, description="OpenAI-compatible backend")
    search_backend: str | None = Field(None, description="SearXNG-compatible JSON endpoint")


def home() -> Path:
    """The privault home folder."""
    return Path(os.environ.get("PRIVAULT_HOME") or Path.home() / ".privault").expanduser()


def vault_path() -> Path:
    """The vault file."""
    explicit = os.environ.get("PRIVAULT_VAULT")
    return Path(explicit).expanduser() if explicit else home() / "vault.db"


def models_dir() -> Path:
    """Where models are installed."""
    explicit = os.environ.get("PRIVAULT_MODELS")
    return Path(explicit).expanduser() if explicit else home() / "models"


def load_config() -> Config:
    """The config file, validated; defaults when there is no file."""
    path = home() / "config.yaml"
    if not path.exists():
        return Config()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return Config.model_validate(data)
    except yaml.YAMLError as exc:
        raise InputError(f"{path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InputError(f"{path}: {where}: {first['msg']}") from None


def _keyring_get(path: Path) -> str | None:
    try:
        import keyring

        return keyring.get_password(KEYRING_SERVICE, str(path.resolve()))
    except Exception:  # no usable keyring backend on this machine: behave as if no key
        return None


SQLITE_HEADER = b"SQLite format 3\x00"  # how every unencrypted SQLite file begins


def vault_key(path: Path) -> str | None:
    """The key for an encrypted vault: PRIVAULT_KEY, else the OS keyring, else None.

    A vault file that is plain SQLite, or no file yet (a new vault is encrypted only by
    `init --encrypt` or PRIVAULT_KEY), needs no key: the keyring (slow to load, and a
    desktop prompt on some systems) is only asked about a file that may be encrypted.
    """
    explicit = os.environ.get("PRIVAULT_KEY")
    if explicit:
        return explicit
    try:
        with open(path, "rb") as file:
            if file.read(len(SQLITE_HEADER)) == SQLITE_HEADER:
                return None
    except FileNotFoundError:
        return None
    except OSError:
        pass  # unreadable: let the keyring and the open say what is wrong
    return _keyring_get(path)


def new_key(path: Path) -> tuple[str, str]:
    """A key for a new encrypted vault and where it came from (`env` or `keyring`).

    The key is never written to disk by privault: it is PRIVAULT_KEY, or a random key put
    into the OS keyring.
    """
    explicit = os.environ.get("PRIVAULT_KEY")
    if explicit:
        return explicit, "env"
    key = secrets.token_hex(32)
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, str(path.resolve()), key)
    except Exception as exc:
        raise VaultError(
            f"no OS keyring to keep the key in ({type(exc).__name__}); "
            "set PRIVAULT_KEY to a passphrase and run init --encrypt again"
        ) from None
    return key, "keyring"
