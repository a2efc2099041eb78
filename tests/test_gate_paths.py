"""Every text-returning path passes the gate; policies fail closed; spans and overrides last."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from privault.caller import Caller
from privault.errors import AccessDenied, PolicyError
from privault.privacy.detector import FakeDetector
from privault.privacy.policy import PolicySet, shipped_policies_dir
from privault.spans import Span
from privault.vault import Vault
from tests.gate_support import placeholder_numbers
from tests.helpers import fake_vault

OWNER = Caller.owner()
AGENT = Caller.agent("claude")
STRICT_AGENT = Caller.agent("auditor")
CONFIG = {"agents": {"auditor": "strict"}}
SECRET_NAME = "Mrs Olga Petrova"
EMAIL = "olga.petrova@example.net"
NOTE = f"# Visit by {SECRET_NAME}\n## Contact\nWrite to {EMAIL} about the lease."


@pytest.fixture
def vault(tmp_path: Path):
    with fake_vault(tmp_path / "v.db", privacy=CONFIG) as opened:
        opened.note(NOTE, caller=OWNER)
        yield opened


def _texts(vault: Vault, caller: Caller) -> list[str]:
    """Every text a caller can get about the note, through every reading path."""
    found = vault.search("lease contact", caller=caller)
    texts = [t for hit in found.results for t in (hit.text, hit.title, *hit.breadcrumb)]
    pack = vault.context("lease contact", caller=caller, budget=300)
    texts.append(pack.text)
    texts += [t for s in pack.sections for t in (s.text, s.title, *s.breadcrumb)]
    doc_id = found.results[0].doc_id
    tree = vault.tree(doc_id, caller=caller)
    texts += [tree.title, *(node.heading for node in tree.nodes)]
    for node in tree.nodes:
        view = vault.read(node.node_id, caller=caller)
        texts += [view.text, view.title, *view.breadcrumb]
    listed = vault.docs(caller=caller).documents
    texts += [doc.title for doc in listed]
    return texts


@pytest.mark.parametrize("caller", [AGENT, STRICT_AGENT], ids=["redact", "refuse"])
def test_no_path_leaks_to_a_gated_caller(vault: Vault, caller: Caller) -> None:
    joined = "\n".join(_texts(vault, caller))
    assert "Petrova" not in joined and "Olga" not in joined
    assert EMAIL not in joined


def test_redact_uses_placeholders_and_refuse_uses_stubs(vault: Vault) -> None:
    redacted = vault.search("lease", caller=AGENT).results[0]
    assert "<EMAIL_ADDRESS_1>" in redacted.text and not redacted.withheld
    refused = vault.search("lease", caller=STRICT_AGENT)
    hit = refused.results[0]
    assert hit.withheld and "EMAIL_ADDRESS" in hit.text and "withheld" in hit.text
    assert refused.privacy.mode == "refuse" and refused.privacy.withheld_sections >= 1


def test_the_owner_sees_text_as_stored(vault: Vault) -> None:
    joined = "\n".join(_texts(vault, OWNER))
    assert SECRET_NAME in joined and EMAIL in joined


def test_placeholders_are_stable_within_one_response(vault: Vault) -> None:
    vault.note(f"Second letter to {EMAIL}, same lease.", caller=OWNER)
    pack = vault.context("lease", caller=AGENT, budget=400)
    assert pack.text.count("<EMAIL_ADDRESS_1>") >= 2
    assert "<EMAIL_ADDRESS_2>" not in pack.text


def test_a_caller_cannot_pass_a_policy(vault: Vault) -> None:
    with pytest.raises(TypeError):
        vault.search("lease", caller=AGENT, policy="open")  # type: ignore[call-arg]


def test_an_unknown_caller_is_refused(vault: Vault) -> None:
    stranger = Caller(kind="stranger", name="x")  # type: ignore[arg-type]
    with pytest.raises(AccessDenied):
        vault.search("lease", caller=stranger)


@pytest.mark.parametrize(
    "config",
    [{"agent_default": "no-such-policy"}, {"agents": {"claude": "missing"}}, {"unknown_field": 1}],
)
def test_a_bad_privacy_config_refuses(tmp_path: Path, config: dict) -> None:
    with fake_vault(tmp_path / "v.db", privacy=config) as vault:
        vault.note(NOTE, caller=OWNER)
        with pytest.raises(PolicyError):
            vault.search("lease", caller=AGENT)


def test_a_broken_policy_folder_refuses_everyone(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "open.yaml").write_text("name: open\nmode: off\n")
    (folder / "standard.yaml").write_text("name: standard\nmode: [redact\n")
    with fake_vault(tmp_path / "v.db", policies_dir=folder) as vault:
        with pytest.raises(PolicyError, match="not valid YAML"):
            vault.note(NOTE, caller=OWNER)
        with pytest.raises(PolicyError):
            vault.search("lease", caller=AGENT)


def test_a_policy_with_its_own_pattern_masks_what_it_matches(tmp_path: Path) -> None:
    """`patterns` in a policy file (a documented field) run at write time: the vault
    opens, and an agent under that policy sees the matched value masked."""
    folder = tmp_path / "policies"
    shutil.copytree(shipped_policies_dir(), folder)
    standard = folder / "standard.yaml"
    data = yaml.safe_load(standard.read_text())
    data["patterns"] = [{"name": "staff", "kind": "PERSON", "regex": r"EMP-\d{4}", "score": 0.9}]
    standard.write_text(yaml.safe_dump(data))
    with fake_vault(tmp_path / "v.db", policies_dir=folder) as vault:
        vault.note("Give the keys to EMP-1234 on Monday.", caller=OWNER, title="Keys")
        [hit] = vault.search("keys Monday", caller=AGENT).results
        assert "EMP-1234" not in hit.text and "<PERSON_1>" in hit.text
        [own] = vault.search("keys Monday", caller=OWNER).results
        assert "EMP-1234" in own.text


def test_a_window_opening_inside_a_name_masks_its_allowed_part_too(tmp_path: Path) -> None:
    """A value reaching outside an allowed one is masked whole (`Gate._outside_allowed`);
    a context window that opens inside it masks the part it holds as the whole text does,
    even when that part alone is the allowed value."""
    folder = tmp_path / "policies"
    shutil.copytree(shipped_policies_dir(), folder)
    for path in folder.glob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        path.write_text(yaml.safe_dump({**data, "allow": ["Becker"]}))
    lines = [f"Line {n} of the filler text about the oil tank and the boiler." for n in range(20)]
    lines[8] = "The long letter about the boiler repairs was signed by Dr Jonas"
    lines[9] = "Becker who also fixed the radiator in the back room last week."
    lines[11] = "The spare padlock for the garden shed is red and rusty."
    with fake_vault(tmp_path / "v.db", policies_dir=folder) as vault:
        vault.note("\n".join(lines), caller=OWNER)
        [whole] = vault.search("boiler repairs letter", caller=AGENT).results
        assert "signed by <PERSON_1> who also" in whole.text
        [window] = vault.context("spare padlock", caller=AGENT, budget=100).sections
        assert window.excerpt and window.text.startswith("<PERSON_1> who also fixed")
        # Nor is that part in clear in the index agents search: the window opening at
        # "Becker" is indexed as it is read, so asking for "Becker" finds nothing.
        assert vault.search("Becker", caller=AGENT).results == ()


def test_a_shelf_policy_this_device_does_not_know_gates_that_shelf_strictest(
    tmp_path: Path,
) -> None:
    """A shelf synced from a device with a policy this one lacks: its text is gated at least
    as tightly as every policy here (strict refuses), and other shelves read as before."""
    with fake_vault(tmp_path / "v.db") as vault:
        vault.shelves.add("health", policy="standard")
        vault.note("Lease for the flat: write to the landlord.", caller=OWNER, title="Lease")
        vault.note(NOTE, caller=OWNER, title="Visit", shelf="health")
        vault.conn.execute("UPDATE shelves SET policy = 'custom' WHERE name = 'health'")
        found = {hit.title: hit for hit in vault.search("lease", caller=AGENT).results}
        assert "landlord" in found["Lease"].text
        visit = found["Visit"]
        assert SECRET_NAME not in visit.text and EMAIL not in visit.text
        assert visit.withheld  # strict refuses: a stub, not the text
        assert vault.search("lease", caller=OWNER).results  # the owner reads as before


def test_a_loader_that_raises_refuses_instead_of_falling_open(tmp_path: Path, monkeypatch) -> None:
    def broken(path: Path):
        raise RuntimeError("disk on fire")

    original = PolicySet.load.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        PolicySet, "load", classmethod(lambda cls, folder=None: original(cls, folder, broken))
    )
    with fake_vault(tmp_path / "v.db") as vault:
        with pytest.raises(PolicyError, match="disk on fire"):
            vault.search("lease", caller=AGENT)
        with pytest.raises(PolicyError, match="disk on fire"):
            vault.search("lease", caller=OWNER)


class _NoDetection(FakeDetector):
    def detect(self, text: str):  # type: ignore[override]
        raise AssertionError("reads must use stored spans, not detect again")


def test_stored_spans_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with fake_vault(path) as vault:
        vault.note(f"Write to {EMAIL} today.", caller=OWNER)
    reopened = Vault.open(
        path, models_dir=tmp_path, embedder=vault.embedder, detector_factory=_NoDetection
    )
    with reopened:
        node = reopened.search("write today", caller=OWNER).results[0].node_id
        view = reopened.read(node, caller=AGENT)
    assert EMAIL not in view.text and "<EMAIL_ADDRESS_1>" in view.text


def test_an_owner_mark_survives_reingest(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / "minutes.md"
    path.write_text("# Minutes\nZorblax chaired the meeting.")
    doc_id = vault.add([path], caller=OWNER).added[0].doc_id
    vault.pii.mark(doc_id, "Zorblax", caller=OWNER)
    assert "Zorblax" not in vault.search("chaired", caller=AGENT).results[0].text
    path.write_text("# Minutes\nZorblax chaired the meeting again, longer this time.")
    assert vault.add([path], caller=OWNER).added[0].status == "updated"
    text = vault.search("chaired", caller=AGENT).results[0].text
    assert "Zorblax" not in text and "<PERSON_1>" in text


def test_unmark_lets_a_value_through_for_that_document(vault: Vault) -> None:
    added = vault.note("Ask Dr Rivers about the river walk.", caller=OWNER)
    assert "Rivers" not in vault.search("river walk", caller=AGENT).results[0].text
    vault.pii.unmark(added.doc_id, "Dr Rivers", caller=OWNER)
    assert "Dr Rivers" in vault.search("river walk", caller=AGENT).results[0].text


def test_pii_tools_are_owner_only(vault: Vault) -> None:
    with pytest.raises(AccessDenied):
        vault.pii.mark("d000", "x", caller=AGENT)
    with pytest.raises(AccessDenied):
        vault.pii.scan("text", caller=AGENT)


class _Spreading(FakeDetector):
    """Finds "Jonas Becker" whole and, as the real detector's name spreading does, each of
    its words again wherever it stands."""

    def detect(self, text: str) -> list[Span]:
        spans = super().detect(text)
        for match in re.finditer(r"Jonas Becker", text):
            spans.append(Span(match.start(), match.end(), "PERSON", 0.85, "ner"))
        for match in re.finditer(r"\b(?:Jonas|Becker)\b", text):
            spans.append(Span(match.start(), match.end(), "PERSON", 0.8, "propagated"))
        return spans


def test_a_multi_word_allowed_value_reaches_agents_unmasked(tmp_path: Path) -> None:
    """`allow: ["Jonas Becker"]` shows the name to agents under that policy on every read
    path, though the detector also found each of its words; a word of it standing alone
    is still masked, and so is the name under a policy that does not allow it."""
    folder = tmp_path / "policies"
    shutil.copytree(shipped_policies_dir(), folder)
    custom = yaml.safe_load((folder / "standard.yaml").read_text())
    custom.update(name="custom", allow=["Jonas Becker"])
    (folder / "custom.yaml").write_text(yaml.safe_dump(custom))
    config = {"agents": {"claude": "custom"}}
    with fake_vault(
        tmp_path / "v.db", privacy=config, policies_dir=folder, detector_factory=_Spreading
    ) as vault:
        vault.note("# Lease\nJonas Becker signed the lease. Becker paid the deposit.", caller=OWNER)
        [hit] = vault.search("lease deposit", caller=AGENT).results
        expected = "Jonas Becker signed the lease. <PERSON_1> paid the deposit."
        assert hit.text == expected
        assert vault.read(hit.node_id, caller=AGENT).text == expected
        assert expected in vault.context("lease deposit", caller=AGENT, budget=300).text
        other = vault.search("lease deposit", caller=Caller.agent("cursor")).results[0]
        assert "Jonas" not in other.text and "Becker" not in other.text


def test_a_trees_title_numbers_its_placeholders_as_the_listing_does(tmp_path: Path) -> None:
    # The tree measured every section (gated) before its title: names in the bodies took
    # the lower numbers, and the title read <PERSON_2> where the listing said <PERSON_1>.
    with fake_vault(tmp_path / "t.db") as vault:
        for name in ("Ka Bu", "Zorbu Lonmir"):
            vault.statements.add(f"{name} is a tenant", caller=OWNER, entities=[f"person:{name}"])
        body = "# Rent\n\nZorbu Lonmir paid.\n\n# Keys\n\nKa Bu has the keys.\n"
        vault.note(body, caller=OWNER, title="Ka Bu file")
        [listed] = vault.docs(caller=AGENT).documents
        assert listed.title == "<PERSON_1> file"
        assert vault.tree(listed.doc_id, caller=AGENT).title == listed.title


def test_a_value_in_the_clipped_part_of_a_title_takes_no_number(tmp_path: Path) -> None:
    """A title is gated whole and clipped after; an address in the part clipped off is
    neither numbered nor counted, so the next address shown is `_3`, not `_4` (which
    would tell the agent a masked address was in the title past the cut)."""
    title = (
        "Boiler invoice notes for ann@example.com and the quarterly filing with the "
        "accountants, and cy@example.com"
    )
    with fake_vault(tmp_path / "t.db") as vault:
        vault.note(f"# {title}\nThe boiler invoice goes to bob@example.com.", caller=OWNER)
        vault.note("# Boiler\nThe boiler invoice copy goes to dee@example.com.", caller=OWNER)
        query = "boiler invoice notes quarterly filing"
        found = vault.search(query, caller=AGENT)
        pack = vault.context(query, caller=AGENT, budget=300, fill=True)
    texts = [t for hit in found.results for t in (hit.title, hit.text, *hit.breadcrumb)]
    assert texts[0].endswith("…") and "ann" not in texts[0] and "cy@" not in texts[0]
    assert placeholder_numbers(*texts) == {"EMAIL_ADDRESS": {1, 2, 3}}
    assert found.privacy.held_back == {"EMAIL_ADDRESS": len(re.findall("<EMAIL", "".join(texts)))}
    sections = [t for s in pack.sections for t in (s.title, s.text, *s.breadcrumb)]
    assert placeholder_numbers(pack.text, *sections) == {"EMAIL_ADDRESS": {1, 2, 3}}
