"""What every capability facade of one open vault shares, and nothing more.

`Vault` builds one `VaultContext` and hands it to each facade (documents, statements,
watches, pii, ask, shelves, agents) instead of itself: a facade reaches the file, the
settings, the privacy runtime, the embedder and shelf visibility through it, and never
another facade through the `Vault`. The context is frozen; only the heavy engines inside
`Engines` are loaded lazily, on first use.

`Engines` is the part several handles on one file may share (a server opens one `Vault`
per pooled connection, all on one `Engines`): the embedder, the in-memory vector mirrors,
the detectors and the local chat model are loaded once per process, not once per
connection. What was found about each when they became shared:

* embedder: onnxruntime's `InferenceSession.run` is safe to call from several threads and
  the tokenizers' `encode` does not mutate the tokenizer; its token-count cache has a lock.
  Loading is guarded here so two first calls do not load it twice.
* vector mirrors (`VectorIndex`): refreshes and snapshot reads happen under its own lock,
  and it keeps each connection's change token apart.
* detectors: spaCy makes no promise for concurrent calls on one pipeline (its vocabulary
  grows as it reads) and the detector's cache of recent short texts is an unlocked
  `OrderedDict`, so every detection in the process runs under one lock (`SerialDetector`).
  spaCy holds the GIL for nearly all of its work, so the lock costs little parallelism.
* strong embedder and chat model: each runs in its own supervised worker process
  (`models.supervisor`), which answers one call at a time; the handle serialises calls with
  its own lock, never a database lock. Each is started once per name, here, and a crash in
  one costs a call an error, never this process.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privault.caller import Caller
from privault.errors import AccessDenied, InputError, ModelError, NotFound
from privault.filters import Filters
from privault.models import catalog
from privault.models.handles import local_embedder
from privault.models.health import HealthBoard
from privault.models.supervisor import Health
from privault.privacy.detector import Detector, DetectorConfig
from privault.privacy.recognizers import denied_pattern, find_known_entities
from privault.retrieval.embedder import Embedder
from privault.retrieval.strong import DEFAULT_STRONG_MODEL, StrongEmbedder
from privault.retrieval.strong_vectors import StrongIndex
from privault.retrieval.vectors import VectorIndex
from privault.spans import Span
from privault.store import shelves
from privault.store.connection import Connection
from privault.store.index_reads import Filters as IndexFilters
from privault.vault.bounds import ASK_BUDGETS as ASK_BUDGETS  # re-exported: defined in bounds
from privault.vault.bounds import CHAT_UNLOAD_AFTER, SETTING_MOST, over_most
from privault.vault.bounds import DEFAULT_ASK_BUDGET as DEFAULT_ASK_BUDGET
from privault.vault.detection import DetectorFactory, SpanDetector
from privault.vault.embedding import default_embedder
from privault.vault.ingest import DEFAULT_MAX_NOTE_BYTES, check_shelf
from privault.vault.privacy import PrivacyRuntime

if TYPE_CHECKING:
    from privault.models.chat import ChatModel

DEFAULT_SHELF = "default"  # exists without a row or a document naming it
_DETECTION_LOCK = threading.RLock()  # one spaCy pipeline per process: one detection at a time
_KEPT_DETECTORS = 8  # detector versions kept (a new known entity makes a new version)


@dataclass(frozen=True)
class VaultSettings:
    """What the composition root decides for a vault: paths, limits, privacy config."""

    models_dir: Path
    max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES
    max_file_bytes: int = 20 * 1024 * 1024
    policies_dir: Path | None = None  # None: the shipped policies/ folder
    privacy: dict[str, Any] = field(default_factory=dict)  # caller/shelf → policy config
    chat_model: str | None = None  # the local answerer (None: the default)
    ask_timeout: float | None = None  # seconds before its worker counts as hung (None: sized)
    # Seconds without a question before the answerer's worker is stopped to give its
    # memory back (None: kept loaded); the next question loads it again.
    chat_unload_after: float | None = CHAT_UNLOAD_AFTER
    remote_chat: dict[str, Any] | None = None  # {url, model, api_key}: non-private asks only
    strong_model: str | None = DEFAULT_STRONG_MODEL  # None: no strong leg even if installed

    def __post_init__(self) -> None:
        for name in SETTING_MOST:  # as `config.yaml` is checked, for programs too
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                raise InputError(f"{name} must be a positive number, not {value!r}")
            if wrong := over_most(name, value):
                raise InputError(f"{name} {wrong}")


class SerialDetector:
    """A detector whose calls run one at a time in this process (see the module docstring).

    Everything else (`version`, `config`, `load`, ...) is the wrapped detector's."""

    def __init__(self, detector: SpanDetector) -> None:
        self.wrapped = detector
        self.version = detector.version

    def detect(self, text: str) -> list[Span]:
        """The wrapped detector's spans in one text."""
        with _DETECTION_LOCK:
            return self.wrapped.detect(text)

    def detect_many(self, texts: Sequence[str]) -> list[list[Span]]:
        """The wrapped detector's spans in each of many texts."""
        with _DETECTION_LOCK:
            return self.wrapped.detect_many(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


class Engines:
    """The heavy engines of a vault file, shared by every handle on it in this process: the
    embedders (given, or loaded and hash-checked on first use), the vector mirrors, the
    detectors (one per configuration) and the local chat model (one per name).

    The strong embedder is the one given; else, when the fast embedder was not given
    either, the strong model if it is installed (an altered install is refused on load);
    else none, and `context` and `ask` rank as they did before it existed.
    """

    def __init__(
        self,
        models_dir: Path,
        embedder: Embedder | None = None,
        detector_factory: DetectorFactory = Detector,
        *,
        strong: StrongEmbedder | None = None,
        strong_model: str | None = DEFAULT_STRONG_MODEL,
        board: HealthBoard | None = None,
    ) -> None:
        self._models_dir = models_dir
        self.board = board  # where model workers' states are shown to other processes
        self._embedder = embedder
        self._detector_factory = detector_factory
        self._vectors: dict[str, VectorIndex] = {}
        self._detectors: OrderedDict[str, SerialDetector] = OrderedDict()
        self._chats: dict[str, ChatModel] = {}
        self._lock = threading.Lock()  # lazy loads of the embedder, mirrors and detectors
        self._chat_lock = threading.Lock()  # loading a chat model takes seconds: apart
        self._strong = strong
        self._strong_model = strong_model if strong is None and embedder is None else None
        if self._strong_model is not None:
            _check_strong_model(models_dir, self._strong_model)
        self._strong_vectors: dict[str, StrongIndex] = {}
        self._strong_lock = threading.Lock()  # loading the strong model takes seconds too
        self.strong_problem: str | None = None  # why its files failed their check, if so

    @property
    def strong(self) -> StrongEmbedder | None:
        """The strong embedder, loaded on first use; None when there is none, or while its
        files fail their check (it only ranks: context and ask rank without it, and
        `status` names the fault; a repaired file is taken on a later call)."""
        with self._strong_lock:
            if self._strong is None and self._strong_model is not None:
                if catalog.is_installed(self._models_dir, self._strong_model):
                    try:
                        self._strong = local_embedder(
                            self._models_dir, self._strong_model, on_change=self.on_health
                        )
                        self.strong_problem = None
                    except ModelError as exc:
                        self.strong_problem = str(exc)
                else:
                    self._strong_model = None  # not installed: decided once per process
            return self._strong

    @property
    def strong_model_name(self) -> str | None:
        """The strong model's name, without loading it (None: there is none)."""
        if self._strong is not None:
            return self._strong.name
        if self._strong_model and catalog.is_installed(self._models_dir, self._strong_model):
            return self._strong_model
        return None

    def strong_vectors_for(self, view: str) -> StrongIndex | None:
        """The in-memory strong index of one view (None without a strong embedder)."""
        engine = self.strong
        if engine is None:
            return None
        with self._lock:
            return self._strong_vectors.setdefault(view, StrongIndex(engine.dim, view))

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded on first use (see `vault.embedding`)."""
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    self._embedder = default_embedder(self._models_dir)
        return self._embedder

    @property
    def vectors(self) -> VectorIndex:
        """The in-memory vector index of the plain view, built on first search."""
        return self.vectors_for("plain")

    def vectors_for(self, view: str) -> VectorIndex:
        """The in-memory vector index of one view (`plain`, or `masked` for gated callers)."""
        found = self._vectors.get(view)
        if found is None:
            dim = self.embedder.dim
            with self._lock:
                found = self._vectors.setdefault(view, VectorIndex(dim, view))
        return found

    def detector(self, config: DetectorConfig) -> SpanDetector:
        """The detector for `config`, built once and shared (a `DetectorFactory`)."""
        version = config.version
        with self._lock:
            found = self._detectors.get(version)
            if found is None:
                found = SerialDetector(self._detector_factory(config))
                self._detectors[version] = found
                while len(self._detectors) > _KEPT_DETECTORS:
                    self._detectors.popitem(last=False)
            else:
                self._detectors.move_to_end(version)
            return found

    @property
    def on_health(self) -> Callable[[Health], None] | None:
        """What a model worker started for this file calls when its state changes."""
        return self.board.record if self.board is not None else None

    def chat(self, name: str, load: Callable[[], ChatModel]) -> ChatModel:
        """The chat model called `name`, loaded by `load()` the first time and then kept."""
        with self._chat_lock:
            found = self._chats.get(name)
            if found is None:
                found = self._chats[name] = load()
            return found


@dataclass(frozen=True)
class VaultContext:
    """The open file, its settings, privacy runtime, engines, and who may see which shelf."""

    conn: Connection
    path: Path
    settings: VaultSettings
    privacy: PrivacyRuntime
    engines: Engines

    @property
    def embedder(self) -> Embedder:
        """The vault's embedder."""
        return self.engines.embedder

    def hidden_shelves(self, caller: Caller) -> tuple[str, ...]:
        """Restricted shelves this caller may not see (none for the owner)."""
        if caller.is_owner:
            return ()
        return tuple(sorted(set(shelves.restricted_names(self.conn)) - caller.shelves))

    def check_shelf_name(self, caller: Caller, shelf: str) -> str:
        """May this caller name this shelf? The one check every path that takes a shelf
        name from a caller uses (writing a note or statement, adding a watch, and any
        future tool).

        The owner may name any well-formed shelf (naming a new one creates it). An agent
        may only name a shelf it can see in `list_shelves`: one that exists and is not
        hidden from it. Unknown and hidden get the same NotFound, word for word, so no
        answer tells an agent that a hidden shelf exists; and an agent cannot create a
        shelf by writing to a new name."""
        shelf = check_shelf(shelf)
        if caller.is_owner:
            return shelf
        known = shelf == DEFAULT_SHELF or shelf in shelves.named_shelves(self.conn)
        if not known or shelf in self.hidden_shelves(caller):
            raise NotFound(f"no shelf {shelf!r}")
        return shelf

    def check_write(self, caller: Caller, shelf: str) -> None:
        """Refuse a read-only caller, and a shelf the caller may not name (as if absent)."""
        if caller.read_only:
            raise AccessDenied(f"agent {caller.name} is read-only")
        self.check_shelf_name(caller, shelf)

    def filters(self, caller: Caller, chosen: Filters) -> IndexFilters:
        """The index filters for what `caller` chose (its hidden shelves always excluded)."""
        return IndexFilters(
            shelves=(chosen.shelf,) if chosen.shelf else None,
            hidden=self.hidden_shelves(caller),
            kind=chosen.kind,
            tag=chosen.tag,
            since=chosen.since,
            until=chosen.until,
            masked_kinds=self.masked_kinds(caller),
            tag_denied=self.tag_denied(caller, chosen.tag),
        )

    def tag_denied(self, caller: Caller, tag: str | None) -> bool:
        """Whether a gated caller's tag filter holds a value masked by what it is in the
        owner's text alone: a value some policy here denies, or a known entity (a statement
        entity, a value the owner marked). Every reply masks it in the owner's text whatever
        the stored spans say (and an agent's words are never judged by them, `Gate.apply`,
        `known_for`), so the filter finds only documents agents wrote: the owner's are not
        found by asking for the value, and an agent learns nothing of the list from its own
        notes. The requested tag is matched as the gate would read it."""
        if caller.is_owner or not tag:
            return False
        denied = tuple(entry.value for policy in self.privacy.policies for entry in policy.deny)
        if denied and _denied_values(denied).search(tag) is not None:
            return True
        return bool(find_known_entities(tag, self.privacy.known_entities()))

    def masked_kinds(self, caller: Caller) -> tuple[str, ...] | None:
        """The kinds a gated caller's tag filter may not match in a tag (None: the owner,
        who sees tags as written): every kind a policy here counts as identifying."""
        if caller.is_owner:
            return None
        kinds = (kind for policy in self.privacy.policies for kind in policy.identifying)
        return tuple(sorted(set(kinds)))


@lru_cache(maxsize=8)
def _denied_values(values: tuple[str, ...]) -> re.Pattern[str]:
    return denied_pattern(values)


def _check_strong_model(models_dir: Path, name: str) -> None:
    """A `strong_model` setting must name an embedding model the catalog knows (installed
    or not: one not installed leaves the strong leg off until it is); a typo or a chat
    model is a `ModelError` naming the setting, not a strong leg quietly missing."""
    try:
        role = catalog.manifest(models_dir, name).role
    except ModelError as exc:
        raise ModelError(f"strong_model: {exc}") from None
    if role != "embed":
        raise ModelError(f"strong_model: {name!r} is a {role} model, not an embedding model")
