"""Gated callers never fall back to plain index entries: missing masked entries are built
before a process's first gated search.

A window holding a masked value is found by gated callers through its masked entry only.
Were that entry missing, the window would be matched through its plain entry, value and
all: a presence oracle. These tests take the entries away (as a vault indexed before they
existed, or one that lost them) or change what the policies mask, and check that a gated
search answers exactly as it does on a vault whose entries were always there.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from privault import Caller, Vault
from privault.privacy import gate
from privault.privacy.masking import IndexMasker
from privault.privacy.policy import shipped_policies_dir
from privault.privacy.recognizers import known_entities_pattern
from privault.spans import Span, clip_spans
from privault.store import masked_index, sections
from privault.vault import gated_index
from tests.gate_support import normal_form
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
EMAIL = "ottoline.quade@harrowfield-post.com"
NOTES = [
    f"Landlord details: write to {EMAIL} about the boiler. Rent is due on the first.",
    "The garden shed needs a new padlock before winter.",
    "Boiler service booked for March; the engineer brings the parts.",
]


def build(path: Path, **settings: object) -> None:
    with fake_vault(path, **settings) as vault:  # type: ignore[arg-type]
        for text in NOTES:
            vault.note(text, caller=OWNER)


def drop_masked_entries(path: Path, *, stale: bool = False) -> None:
    with fake_vault(path) as vault:
        conn = vault.conn
        # Without masked entries, gated callers' keyword rows are the plain text.
        conn.execute("DELETE FROM gated_fts")
        conn.execute("INSERT INTO gated_fts (rowid, text) SELECT rowid, text FROM chunks_fts")
        conn.execute("DELETE FROM masked_chunks")
        if stale:  # what migration m009 leaves on a vault indexed before masked entries
            conn.execute("INSERT INTO meta (key, value) VALUES ('stale_masking', '1')")


def probe(vault: Vault) -> list[object]:
    return [
        normal_form(vault.search(query, caller=AGENT).to_dict())
        for query in (EMAIL, "ottoline quade", "harrowfield", "boiler landlord")
    ]


def masked_rows(vault: Vault) -> int:
    return int(vault.conn.execute("SELECT count(*) FROM masked_chunks").fetchone()[0])


@pytest.mark.parametrize("stale", [False, True], ids=["entries-lost", "indexed-before-entries"])
def test_missing_masked_entries_are_built_before_the_first_gated_search(
    tmp_path: Path, stale: bool
) -> None:
    intact, damaged = tmp_path / "intact.db", tmp_path / "damaged.db"
    build(intact)
    build(damaged)
    with fake_vault(intact) as vault:
        expected, rows = probe(vault), masked_rows(vault)
    assert rows > 0
    drop_masked_entries(damaged, stale=stale)
    with fake_vault(damaged) as vault:
        assert masked_rows(vault) == 0
        assert vault.status().index.stale_masking is stale
        assert probe(vault) == expected  # the plain entry never answered a gated search
        assert masked_rows(vault) == rows
        assert vault.status().index.stale_masking is False


def test_the_owner_search_builds_nothing_and_a_healthy_vault_rebuilds_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v.db"
    build(path)
    with fake_vault(path) as vault:
        vault.search(EMAIL, caller=OWNER)
        assert vault.privacy.ensure_masked_index(vault.embedder) == 0  # first check: all there
    drop_masked_entries(path)
    with fake_vault(path) as vault:
        vault.search(EMAIL, caller=OWNER)  # the owner searches the plain entries
        assert masked_rows(vault) == 0
        vault.search(EMAIL, caller=AGENT)
        assert masked_rows(vault) > 0
        assert vault.privacy.ensure_masked_index(vault.embedder, force=True) == 0


def test_a_policy_that_masks_more_rebuilds_the_masked_entries(tmp_path: Path) -> None:
    lenient = tmp_path / "policies"
    lenient.mkdir()
    for source in shipped_policies_dir().glob("*.yaml"):
        data = yaml.safe_load(source.read_text())  # every policy, without email addresses
        data["identifying"] = [k for k in data.get("identifying", []) if k != "EMAIL_ADDRESS"]
        (lenient / source.name).write_text(yaml.safe_dump(data))
    before, reference = tmp_path / "before.db", tmp_path / "reference.db"
    build(before, policies_dir=lenient)
    build(reference)
    with fake_vault(before, policies_dir=lenient) as vault:
        assert masked_rows(vault) == 0  # nothing the lenient policy masks
        recorded = masked_index.built_by(vault.conn)
    with fake_vault(reference) as vault:
        expected = probe(vault)
    with fake_vault(before) as vault:  # the shipped policies: emails are masked now
        assert probe(vault) == expected
        assert masked_rows(vault) > 0
        assert masked_index.built_by(vault.conn) not in (None, recorded)


def test_a_value_added_to_a_deny_list_is_not_found_by_asking_for_it(tmp_path: Path) -> None:
    """A deny-list masks its values when text is read; no stored span marks them. Added
    to a policy after the notes were written, it must still reach the masked entries, or
    a gated search for the value finds the notes holding it (shown masked): a presence
    oracle on what the owner wrote and what the list holds."""
    policies = tmp_path / "policies"
    policies.mkdir()
    for source in shipped_policies_dir().glob("*.yaml"):
        (policies / source.name).write_text(source.read_text())
    denied, reference = tmp_path / "denied.db", tmp_path / "reference.db"
    build(denied, policies_dir=policies)  # written while "padlock" is nobody's secret
    for policy in policies.glob("*.yaml"):
        data = yaml.safe_load(policy.read_text())
        data["deny"] = [{"value": "Padlock", "kind": "ORGANIZATION"}]
        policy.write_text(yaml.safe_dump(data))
    build(reference, policies_dir=policies)  # written under the deny-list
    for path in (reference, denied):
        with fake_vault(path, policies_dir=policies) as vault:
            assert vault.search("padlock", caller=AGENT).results == ()
            [shed] = [
                h for h in vault.search("garden shed", caller=AGENT).results if "shed" in h.text
            ]
            assert "padlock" not in shed.text.lower()  # masked where it is shown
            assert vault.privacy.ensure_masked_index(vault.embedder, force=True) == 0


def _spaces_only(values: Iterable[str]) -> re.Pattern[str]:
    """How an older privault matched a denied value: its words with spaces between them
    (in the gate's form, each match as group 1)."""
    words = known_entities_pattern(values).pattern.removeprefix("(?i)")
    return re.compile(f"(?i)(?=({words}))")


def test_entries_made_before_denied_words_matched_joined_are_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older privault matched a denied value of several words only with spaces between
    them: its masked entries kept `garden-shed` where "Garden Shed" is denied. A vault it
    indexed has those entries rebuilt (its masker's fingerprint differs), so a gated
    search for the value finds nothing."""
    policies = tmp_path / "policies"
    policies.mkdir()
    for source in shipped_policies_dir().glob("*.yaml"):
        data = yaml.safe_load(source.read_text())
        data["deny"] = [{"value": "Garden Shed", "kind": "LOCATION"}]
        (policies / source.name).write_text(yaml.safe_dump(data))
    path = tmp_path / "v.db"
    with monkeypatch.context() as older:
        older.setattr(gate, "denied_pattern", _spaces_only)
        older.setattr(gated_index, "fingerprint", _policy_only)
        with fake_vault(path, policies_dir=policies) as vault:
            vault.note(f"The garden-shed key is with {EMAIL}.", caller=OWNER)
            assert vault.search("shed", caller=AGENT).results  # what the older one found
    with fake_vault(path, policies_dir=policies) as vault:
        assert vault.search("shed", caller=AGENT).results == ()
        [hit] = vault.search("key", caller=AGENT).results
        assert "shed" not in hit.text and EMAIL not in hit.text


def test_entries_made_when_each_window_was_judged_alone_are_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older privault masked each window on its own: with "Becker" allowed, the window
    opening at "Becker" of "Dr Jonas / Becker" was indexed with it in clear, and found.
    A vault it indexed has its entries rebuilt once (the fingerprint says how windows
    are masked), so a gated search for "Becker" finds nothing."""
    policies = tmp_path / "policies"
    policies.mkdir()
    for source in shipped_policies_dir().glob("*.yaml"):
        data = yaml.safe_load(source.read_text())
        (policies / source.name).write_text(yaml.safe_dump({**data, "allow": ["Becker"]}))
    lines = [f"Line {n} of the filler text about the oil tank and the boiler." for n in range(20)]
    lines[8] = "The long letter about the boiler repairs was signed by Dr Jonas"
    lines[9] = "Becker who also fixed the radiator in the back room last week."
    path = tmp_path / "v.db"

    def each_window_alone(masker, breadcrumb, text, chunks, spans, labels, *, owner_text):  # type: ignore[no-untyped-def]
        out = []
        for position, (start, end, _tokens) in enumerate(chunks):
            window = text[start:end]
            masked = masker.mask(window, clip_spans(spans, start, end), owner_text=owner_text)
            if masked != window:
                out.append((position, masked))
        return out

    with monkeypatch.context() as older:
        older.setattr(gated_index, "masked_windows", each_window_alone)
        older.setattr(gated_index, "fingerprint", _policy_only)
        with fake_vault(path, policies_dir=policies) as vault:
            vault.note("\n".join(lines), caller=OWNER)
            assert vault.search("Becker", caller=AGENT).results  # what the older one found
    with fake_vault(path, policies_dir=policies) as vault:
        assert vault.search("Becker", caller=AGENT).results == ()


def _deny_policies(folder: Path, value: str, kind: str = "ORGANIZATION") -> Path:
    """The shipped policies, each denying `value` as a `kind`, in `folder`."""
    folder.mkdir()
    for source in shipped_policies_dir().glob("*.yaml"):
        data = yaml.safe_load(source.read_text())
        data["deny"] = [{"value": value, "kind": kind}]
        (folder / source.name).write_text(yaml.safe_dump(data))
    return folder


def test_a_denied_value_wrapped_across_lines_is_masked_in_every_window(tmp_path: Path) -> None:
    """A window is a line and the two before it: "Blue" ending one line and "Falcon"
    starting the next leave "Falcon" alone at the head of a later window. The deny-list is
    matched over the whole text, so no window's entry keeps it."""
    policies = _deny_policies(tmp_path / "policies", "Blue Falcon")
    lines = [
        "Hi all, following up on yesterday's call with the supplier about the",
        "schedule: the board signed off on the budget for Blue",
        "Falcon next quarter, and the contract goes out this week to legal for",
        "review; please keep the dates to yourselves until the announcement is made",
        "by the communications team at the end of the month, thanks everyone.",
    ]
    text = "\n".join(lines)
    with fake_vault(tmp_path / "v.db", policies_dir=policies) as vault:
        vault.note(text, caller=OWNER, title="Board")
        assert vault.search("falcon", caller=AGENT).results == ()
        assert vault.search("falcon", caller=OWNER).results
        # A window of it that starts at the second line (an excerpt, a piece of a pack).
        [row] = sections.sections_by_ids(vault.conn, [1]).values()
        start = text.index("Falcon")
        shown = vault.shared.privacy.reading(AGENT).section(row, start, start + 200).text
        assert shown.startswith("<ORGANIZATION_1> next quarter")


def test_a_window_of_an_agents_own_text_is_not_matched_against_the_deny_list(
    tmp_path: Path,
) -> None:
    """An agent's own words are never judged by the deny-list, in a window of them as in
    the whole: were a guess masked in an excerpt or a pack's piece only, an agent could
    write guesses and read which the list holds. (A kind the policy masks when found: a
    hit kept as any other span of that kind would be masked in an agent's text too.)"""
    policies = _deny_policies(tmp_path / "policies", "Padlock", kind="PERSON")
    filler = "The weather was mild and the meeting ran long as usual. " * 40
    text = "Guess one: Padlock. Guess two: Hammock. " + filler
    with fake_vault(tmp_path / "v.db", policies_dir=policies) as vault:
        vault.note(text, caller=AGENT)
        [row] = sections.sections_by_ids(vault.conn, [1]).values()
        reading = vault.shared.privacy.reading(AGENT)
        assert reading.section(row).text == row.text
        assert reading.section(row, 0, 60).text == row.text[:60]
        assert "Padlock" in str(vault.context("hammock guess", caller=AGENT).to_dict())


def test_deny_only_sections_that_lost_their_entries_get_them_again(tmp_path: Path) -> None:
    """A section masked by the deny-list alone (no stored span) whose masked entries are
    gone is found, and rebuilt, before the first gated search; an agent's own notes, which
    the deny-list never masks, are not looked at again at every start."""
    policies = _deny_policies(tmp_path / "policies", "Padlock")
    path = tmp_path / "v.db"
    with fake_vault(path, policies_dir=policies) as vault:
        vault.note("The garden shed needs a new padlock.", caller=OWNER)
        vault.note("Remember the padlock code.", caller=AGENT)
        owners = masked_index.sections_mentioning(vault.conn, ["Padlock"])
        assert len(owners) == 1  # the agent's note is not among them
    drop_masked_entries(path)
    with fake_vault(path, policies_dir=policies) as vault:
        assert masked_index.sections_mentioning(vault.conn, ["Padlock"], unmasked=True) == owners
        hits = vault.search("padlock", caller=AGENT).results
        assert [hit.text for hit in hits] == ["Remember the padlock code."]  # its own words
        assert masked_index.sections_mentioning(vault.conn, ["Padlock"], unmasked=True) == []


def test_a_denied_value_is_swept_in_every_casing_the_regex_masks(tmp_path: Path) -> None:
    """The keyword index folds case with older Unicode data than the deny-list's pattern:
    Georgian capitals (Mtavruli) are not folded there. A note written in them before the
    value was denied still gets its masked entries."""
    path = tmp_path / "v.db"
    build(path)
    with fake_vault(path) as vault:
        vault.note("ᲐᲚᲘ ᲡᲐᲮᲚᲨᲘᲐ: meeting notes about the roof repair.", caller=OWNER)
    policies = _deny_policies(tmp_path / "policies", "ალი")
    with fake_vault(path, policies_dir=policies) as vault:
        assert masked_index.sections_mentioning(vault.conn, ["ალი"]) != []
        assert vault.search("ᲐᲚᲘ", caller=AGENT).results == ()
        assert vault.search("ᲐᲚᲘ", caller=OWNER).results


def _policy_only(masker: IndexMasker) -> str:
    """The fingerprint an older privault recorded: its policy alone."""
    policy = "" if masker.policy is None else masker.policy.model_dump_json()
    return hashlib.sha256(policy.encode("utf-8")).hexdigest()[:16]


def _span(start: int, length: int) -> Span:
    return Span(start, start + length, "EMAIL_ADDRESS", 0.9, "pattern")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.builds(_span, st.integers(0, 60), st.integers(1, 30)), max_size=15),
    st.lists(st.tuples(st.integers(0, 70), st.integers(1, 20)), max_size=8),
)
def test_a_window_gets_the_spans_reaching_into_it_in_their_order(
    spans: list[Span], windows: list[tuple[int, int]]
) -> None:
    # a long section's windows look up the spans near them, not every span of the section
    near = gated_index._SpansNear(spans)
    for start, length in windows:
        end = start + length
        assert clip_spans(near(start, end), start, end) == clip_spans(spans, start, end)
