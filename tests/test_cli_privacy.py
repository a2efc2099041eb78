"""`privault policy` and `privault pii` through the CLI (fake detector, real policies)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privault.errors import PolicyError
from privault.interfaces.cli import app
from tests.helpers import FakeEngineRunner

runner = FakeEngineRunner()
FIXTURES = Path(__file__).parent / "fixtures" / "policies"
SHIPPED = Path(__file__).parents[1] / "policies"


def as_json(*args: str, input: str | None = None) -> dict:
    result = runner.invoke(app, [*args, "--json"], input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", ["open", "standard", "strict"])
def test_shipped_policies_check(name: str) -> None:
    data = as_json("policy", "check", str(SHIPPED / f"{name}.yaml"))
    assert data["policy"]["name"] == name


def test_a_pattern_whose_kind_the_policy_does_not_count_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "staff.yaml"
    path.write_text(
        "name: staff\nmode: redact\nidentifying: [PERSON]\n"
        "patterns:\n  - {name: badge, kind: EMPLOYEE_ID, regex: 'EMP-\\d{4}', score: 0.9}\n"
        "  - {name: people, kind: PERSON, regex: 'PPL-\\d{4}', score: 0.9}\n"
    )
    [warning] = as_json("policy", "check", str(path))["warnings"]
    assert "'badge' reports EMPLOYEE_ID" in warning and "masks nothing" in warning
    said = runner.invoke(app, ["policy", "check", str(path)])
    assert said.exit_code == 0 and "warning: pattern 'badge'" in said.output
    for name in ("open", "standard", "strict"):  # the shipped ones have nothing to warn of
        assert as_json("policy", "check", str(SHIPPED / f"{name}.yaml"))["warnings"] == []


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.yaml")), ids=lambda p: p.stem)
def test_broken_policy_files_are_refused(path: Path) -> None:
    result = runner.invoke(app, ["policy", "check", str(path)])
    assert result.exit_code != 0
    assert isinstance(result.exception, PolicyError)


def test_scan_and_redact_from_stdin() -> None:
    text = "Mail Dr Ada Byron at ada@example.org"
    spans = as_json("pii", "scan", "-", input=text)["spans"]
    assert {"EMAIL_ADDRESS", "PERSON"} <= {span["kind"] for span in spans}
    redacted = as_json("pii", "redact", "-", input=text)
    assert redacted["text"] == "Mail <PERSON_1> at <EMAIL_ADDRESS_1>"
    strict = as_json("pii", "redact", text, "--policy", "strict")
    assert strict["withheld"] is True and "ada@" not in strict["text"]


def test_mark_unmark_overrides_and_rescan() -> None:
    added = as_json("note", "Quillon signed the lease")
    as_json("pii", "mark", added["doc_id"], "Quillon", "--kind", "PERSON")
    listed = as_json("pii", "overrides")["overrides"]
    assert [(o["value"], o["action"]) for o in listed] == [("Quillon", "mark")]
    done = as_json("pii", "rescan")
    assert done["sections"] >= 1
    as_json("pii", "unmark", added["doc_id"], "Quillon")
    assert len(as_json("pii", "overrides")["overrides"]) == 1


def test_policy_show_for_the_owner() -> None:
    data = as_json("policy", "show")
    assert data["policy"]["name"] == "open" and data["policy"]["mode"] == "off"
