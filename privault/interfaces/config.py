"""The composition root's view of the environment: paths, key, and the config file.

Only interfaces read environment variables; they pass plain values into the core.

    PRIVAULT_HOME    the home folder (default ~/.privault)
    PRIVAULT_VAULT   the vault file (default $PRIVAULT_HOME/vault.db)
    PRIVAULT_MODELS  installed models (default $PRIVAULT_HOME/models)
    PRIVAULT_KEY     the encryption key of an encrypted vault (else the OS keyring)
"""

from __future__ import annotations

import dataclasses
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from privault.errors import InputError, VaultError, utf8_text
from privault.vault.bounds import CHAT_UNLOAD_AFTER, MAX_NOTE_BYTES, over_most

KEYRING_SERVICE = "privault"


@dataclass(frozen=True)
class Config:
    """`$PRIVAULT_HOME/config.yaml`: optional settings; a broken file is an error, not ignored.

    Checked by hand rather than by a pydantic model: this is read by every command, and
    importing pydantic costs a quarter of a second of a `privault note` that must feel
    instant. Each field's `help` is what an error about it says.
    """

    privacy: dict[str, Any] = field(
        default_factory=dict, metadata={"help": "caller/shelf policies (a mapping)"}
    )
    policies_dir: Path | None = field(
        default=None, metadata={"help": "a folder of policy YAML files (a path)"}
    )
    max_note_bytes: int = field(default=MAX_NOTE_BYTES, metadata={"help": "a positive integer"})
    max_file_bytes: int = field(default=20 * 1024 * 1024, metadata={"help": "a positive integer"})
    chat_model: str | None = field(
        default=None, metadata={"help": "the local answerer for ask (a model name)"}
    )
    ask_timeout: int | None = field(
        default=None,
        metadata={
            "help": "the most seconds an answer may take before the local model is taken "
            "as hung and restarted (a positive integer, or null: sized to the question)"
        },
    )
    chat_unload_after: int | None = field(
        default=CHAT_UNLOAD_AFTER,
        metadata={
            "help": "the seconds without a question after which the local answerer is "
            "unloaded to give its memory back (a positive integer, or null: keep it loaded)"
        },
    )
    strong_model: str | None = field(
        default="embeddinggemma-300m",
        metadata={"help": "the strong relevance model for context and ask (a name, or null)"},
    )
    remote_chat: dict[str, Any] | None = field(
        default=None, metadata={"help": "an OpenAI-compatible backend (a mapping)"}
    )
    search_backend: str | None = field(
        default=None, metadata={"help": "a SearXNG-compatible JSON endpoint (a URL)"}
    )

    @classmethod
    def from_mapping(cls, data: Any) -> Config:
        """Settings from a parsed file; a ValueError names the first wrong field."""
        if not isinstance(data, dict):
            raise ValueError("the file must be a mapping of settings")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(str(key) for key in data if key not in fields)
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown setting (known: {', '.join(fields)})")
        values: dict[str, Any] = {}
        for name, value in data.items():
            values[name] = _checked(name, value, fields[name])
        return cls(**values)


def _checked(name: str, value: Any, spec: dataclasses.Field[Any]) -> Any:
    kinds = {
        "privacy": (dict,),
        "remote_chat": (dict, type(None)),
        "max_note_bytes": (int,),
        "max_file_bytes": (int,),
        "ask_timeout": (int, type(None)),
        "chat_unload_after": (int, type(None)),
    }.get(name, (str, type(None)))
    ok = isinstance(value, kinds) and not isinstance(value, bool)
    if ok and isinstance(value, int):
        ok = value > 0
    if not ok:
        raise ValueError(f"{name}: must be {spec.metadata['help']}, not {value!r}")
    if isinstance(value, int) and (wrong := over_most(name, value)):
        raise ValueError(f"{name}: {wrong}")
    if name == "policies_dir" and value is not None:
        return Path(value).expanduser()
    return value


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
    from privault import yamltext

    try:
        data = yamltext.safe_load(path.read_text(encoding="utf-8")) or {}
        return Config.from_mapping(data)
    except yamltext.YAMLError as exc:
        raise InputError(f"{path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    except ValueError as exc:
        raise InputError(f"{path}: {exc}") from None


def _keyring_get(path: Path) -> str | None:
    try:
        import keyring

        found = keyring.get_password(KEYRING_SERVICE, str(path.resolve()))
    except Exception:  # no usable keyring backend on this machine: behave as if no key
        return None
    return None if found is None else utf8_text(found, "the key in the OS keyring")


def _env_key() -> str | None:
    """PRIVAULT_KEY, if set. SQLCipher takes the key as UTF-8: one set from other bytes is
    refused here, in one line that does not show it."""
    explicit = os.environ.get("PRIVAULT_KEY")
    return utf8_text(explicit, "PRIVAULT_KEY") if explicit else None


SQLITE_HEADER = b"SQLite format 3\x00"  # how every unencrypted SQLite file begins


def vault_key(path: Path) -> str | None:
    """The key for an encrypted vault: PRIVAULT_KEY, else the OS keyring, else None.

    A vault file that is plain SQLite, or no file yet (a new vault is encrypted only by
    `init --encrypt` or PRIVAULT_KEY), needs no key: the keyring (slow to load, and a
    desktop prompt on some systems) is only asked about a file that may be encrypted.
    """
    explicit = _env_key()
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
    explicit = _env_key()
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
