"""Privacy policies: YAML files validated by pydantic, loaded fail-closed.

A policy says what a caller may see: its `mode` (`off`, `redact`, `refuse`), which kinds
count as identifying, how confident a span must be, values never or always masked, extra
pattern recognizers, and whether NER spans count. The files live in the shipped `policies/`
folder (or a folder the vault config names).

Every way a policy can be wrong — a missing or unreadable file, bad YAML, an unknown field or
mode, an unknown policy name, a loader that blows up — raises `PolicyError`. There is no
default to fall back to: a read that cannot find its policy does not happen.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from privault import yamltext
from privault.errors import PolicyError
from privault.spans import Span, normalise_kind, normalise_value

Mode = Literal["off", "redact", "refuse"]
MODE_RANK: dict[str, int] = {"off": 0, "redact": 1, "refuse": 2}
_NAME = r"^[a-z0-9][a-z0-9_.+-]{0,63}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PatternSpec(_Strict):
    """A custom pattern recognizer carried by a policy."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="Recognizer name.")
    kind: str = Field(min_length=1, description="Entity kind reported for a match.")
    regex: str = Field(min_length=1, description="Python regular expression to match.")
    score: float = Field(0.6, ge=0.0, le=1.0, description="Score of a match without context.")
    context: tuple[str, ...] = Field(
        (), description="Words that, just before a match, raise its score by 0.35."
    )

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        return normalise_kind(value)

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"regex does not compile: {exc}") from None
        if compiled.match(""):
            raise ValueError("regex matches the empty string")
        return value


class DenyEntry(_Strict):
    """A value that is always masked under this policy, whatever the detector said."""

    value: str = Field(min_length=1, description="The value, matched case-insensitively.")
    kind: str = Field("PERSON", description="Kind used for its placeholder.")

    @field_validator("value")
    @classmethod
    def _value(cls, value: str) -> str:
        if not re.search(r"[^\s_\-\u2010-\u2015./]", value):
            raise ValueError("a deny value needs a letter, digit or sign, not only separators")
        return value

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        return normalise_kind(value)


class Policy(_Strict):
    """One named policy. Build with `load_policy` or `Policy.model_validate`."""

    name: str = Field(pattern=_NAME, description="Policy name; must match the file name.")
    description: str = Field("", description="What the policy is for, in one paragraph.")
    mode: Mode = Field(description="off: text as stored; redact: placeholders; refuse: stubs.")
    identifying: tuple[str, ...] = Field(
        (), description="Entity kinds that count as PII under this policy."
    )
    threshold: float = Field(
        0.5, ge=0.0, le=1.0, description="Minimum span score to act on, for every kind."
    )
    thresholds: dict[str, float] = Field(
        default_factory=dict, description="Per-kind minimum scores overriding `threshold`."
    )
    allow: tuple[str, ...] = Field((), description="Values never masked (case-insensitive).")
    deny: tuple[DenyEntry, ...] = Field((), description="Values always masked, with a kind.")
    patterns: tuple[PatternSpec, ...] = Field(
        (), description="Extra pattern recognizers run at write time."
    )
    ner: bool = Field(True, description="Whether spans found by spaCy NER count.")

    @field_validator("mode", mode="before")
    @classmethod
    def _yaml_off(cls, value: object) -> object:
        # YAML 1.1 reads a bare `off` as false; that is what the author meant.
        return "off" if value is False else value

    @field_validator("identifying")
    @classmethod
    def _kinds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(normalise_kind(kind) for kind in value))

    @field_validator("thresholds")
    @classmethod
    def _per_kind(cls, value: dict[str, float]) -> dict[str, float]:
        for kind, score in value.items():
            if not 0.0 <= score <= 1.0:
                raise ValueError(f"threshold for {kind} must be between 0 and 1")
        return {normalise_kind(kind): score for kind, score in value.items()}

    def warnings(self) -> list[str]:
        """What in a valid policy does nothing, said plainly: a pattern whose kind this
        policy does not count as identifying masks nothing under it (another policy may
        count it: the patterns of every policy run at write time). Deny entries mask
        whatever their kind."""
        return [
            f"pattern {p.name!r} reports {p.kind}, which `identifying` does not list:"
            " it masks nothing under this policy"
            for p in self.patterns
            if p.kind not in self.identifying
        ]

    def threshold_for(self, kind: str) -> float:
        """The minimum score at which a span of `kind` is acted on."""
        return self.thresholds.get(kind, self.threshold)

    def counts(self, span: Span) -> bool:
        """True when this policy treats `span` as identifying PII."""
        if span.kind not in self.identifying:
            return False
        if span.source == "ner" and not self.ner:
            return False
        return span.score >= self.threshold_for(span.kind)

    def is_allowed(self, value: str) -> bool:
        """True when `value` is on the allow-list (never masked)."""
        return bool(self.allow) and normalise_value(value) in _normalised(self.allow)

    def stricter(self, other: Policy) -> Policy:
        """A policy at least as strict as both: the higher mode, every kind either counts,
        the lower thresholds, both deny-lists, only values both allow, NER if either uses it.
        """
        if self == other:
            return self
        kinds = set(self.thresholds) | set(other.thresholds)
        both_allow = {normalise_value(v) for v in other.allow}
        return Policy(
            name=f"{self.name}+{other.name}",
            description=f"stricter of {self.name} and {other.name}",
            mode=max(self.mode, other.mode, key=MODE_RANK.__getitem__),
            identifying=tuple(dict.fromkeys(self.identifying + other.identifying)),
            threshold=min(self.threshold, other.threshold),
            thresholds={k: min(self.threshold_for(k), other.threshold_for(k)) for k in kinds},
            allow=tuple(v for v in self.allow if normalise_value(v) in both_allow),
            deny=tuple(dict.fromkeys(self.deny + other.deny)),
            patterns=tuple(dict.fromkeys(self.patterns + other.patterns)),
            ner=self.ner or other.ner,
        )


def shipped_policies_dir() -> Path:
    """The `policies/` folder shipped with privault (checkout first, then wheel data)."""
    package = Path(__file__).resolve().parents[1]  # the privault package folder
    for candidate in (package.parent / "policies", package / "_data" / "policies"):
        if candidate.is_dir():
            return candidate
    raise PolicyError(f"the shipped policies folder is missing (looked beside {package})")


def _one_line(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "policy"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"


def load_policy(path: str | Path) -> Policy:
    """Read and validate one policy file; raise `PolicyError` with one line if it is wrong."""
    file = Path(path)
    try:
        raw = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PolicyError(f"policy file {file} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"cannot read policy file {file}: {exc}") from None
    try:
        data = yamltext.safe_load(raw)
    except yamltext.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise PolicyError(f"policy file {file} is not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise PolicyError(f"policy file {file} must hold a mapping of policy fields")
    try:
        policy = Policy.model_validate(data)
    except ValidationError as exc:
        raise PolicyError(f"policy file {file} is invalid: {_one_line(exc)}") from None
    if policy.name != file.stem:
        raise PolicyError(f"policy file {file} names itself {policy.name!r}; rename one")
    return policy


class PolicySet:
    """All policies of one folder, loaded and validated up front.

    A broken file anywhere in the folder refuses the whole set: a policy that is silently
    skipped would turn into an "unknown policy" later, far from its cause.
    """

    def __init__(self, policies: dict[str, Policy], folder: Path | None = None) -> None:
        self._policies = dict(policies)
        self.folder = folder

    @classmethod
    def load(
        cls, folder: str | Path | None = None, loader: Callable[[Path], Policy] = load_policy
    ) -> PolicySet:
        """Load every `*.yaml` in `folder` (default: the shipped folder) through `loader`."""
        where = Path(folder) if folder is not None else shipped_policies_dir()
        if not where.is_dir():
            raise PolicyError(f"policies folder {where} does not exist")
        files = sorted([*where.glob("*.yaml"), *where.glob("*.yml")])
        if not files:
            raise PolicyError(f"policies folder {where} holds no *.yaml policy")
        policies: dict[str, Policy] = {}
        for file in files:
            try:
                policy = loader(file)
            except PolicyError:
                raise
            except Exception as exc:  # a loader bug must refuse, not fall back
                raise PolicyError(f"loading policy {file} failed: {exc!r}") from None
            if not isinstance(policy, Policy):
                raise PolicyError(f"loading policy {file} returned {type(policy).__name__}")
            if policy.name in policies:
                raise PolicyError(f"policy {policy.name!r} is defined twice in {where}")
            policies[policy.name] = policy
        return cls(policies, where)

    def resolve(self, name: str) -> Policy:
        """The policy called `name`; `PolicyError` naming the known ones if there is none."""
        try:
            return self._policies[name]
        except KeyError:
            known = ", ".join(sorted(self._policies)) or "none"
            raise PolicyError(f"unknown policy {name!r} (known: {known})") from None

    def for_shelf(self, name: str) -> Policy:
        """The policy a shelf names; one this device does not know (a shelf synced from a
        device that has it) reads as every known policy at once, each the strictest way
        (`Policy.stricter`): that shelf is gated at least as tightly as any policy here
        would, and the other shelves read as before."""
        if name in self._policies:
            return self._policies[name]
        if not self._policies:
            return self.resolve(name)  # nothing to be strict with: refuse as before
        return functools.reduce(Policy.stricter, self)

    def names(self) -> list[str]:
        """Policy names, sorted."""
        return sorted(self._policies)

    def __iter__(self) -> Iterator[Policy]:
        return iter(self._policies[name] for name in self.names())

    def __len__(self) -> int:
        return len(self._policies)


@functools.lru_cache(maxsize=64)
def _normalised(values: tuple[str, ...]) -> frozenset[str]:
    """An allow-list's values as `Policy.is_allowed` compares them, made once a list: a
    long section asks for each of its thousands of spans."""
    return frozenset(normalise_value(item) for item in values)
