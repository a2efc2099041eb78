"""Policies load fail-closed; the caller decides the policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from privault.caller import Caller
from privault.errors import AccessDenied, PolicyError
from privault.privacy import AccessConfig, PolicySet, load_policy, policy_for, shipped_policies_dir

FIXTURES = Path(__file__).parent / "fixtures" / "policies"


def test_shipped_policies_load() -> None:
    policies = PolicySet.load()
    assert policies.names() == ["open", "standard", "strict"]
    assert policies.resolve("open").mode == "off"
    assert policies.resolve("standard").mode == "redact"
    assert policies.resolve("strict").mode == "refuse"
    assert shipped_policies_dir().name == "policies"


@pytest.mark.parametrize(
    ("file", "message"),
    [
        ("missing.yaml", "does not exist"),
        ("bad_yaml.yaml", "not valid YAML"),
        ("odd_value.yaml", "not valid YAML"),  # a value YAML's constructors fail on
        ("unknown_mode.yaml", "mode"),
        ("unknown_field.yaml", "threshhold"),
        ("bad_regex.yaml", "does not compile"),
        ("not_a_mapping.yaml", "mapping"),
        ("wrong_name.yaml", "names itself"),
        ("bad_threshold.yaml", "threshold"),
        ("separator_deny.yaml", "not only separators"),  # it would match between any words
    ],
)
def test_broken_policy_files_are_refused(file: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message) as info:
        load_policy(FIXTURES / file)
    assert "\n" not in str(info.value)


def test_a_folder_with_one_broken_file_refuses(tmp_path: Path) -> None:
    (tmp_path / "standard.yaml").write_text((shipped_policies_dir() / "standard.yaml").read_text())
    (tmp_path / "unknown_mode.yaml").write_text((FIXTURES / "unknown_mode.yaml").read_text())
    with pytest.raises(PolicyError):
        PolicySet.load(tmp_path)


def test_missing_or_empty_folder_refuses(tmp_path: Path) -> None:
    with pytest.raises(PolicyError):
        PolicySet.load(tmp_path / "nowhere")
    with pytest.raises(PolicyError):
        PolicySet.load(tmp_path)


def test_unknown_policy_name_refuses() -> None:
    with pytest.raises(PolicyError, match="unknown policy 'lax'"):
        PolicySet.load().resolve("lax")


def test_a_loader_that_raises_refuses_not_off() -> None:
    def exploding(path: Path) -> object:
        raise RuntimeError("disk on fire")

    with pytest.raises(PolicyError, match="disk on fire"):
        PolicySet.load(loader=exploding)  # type: ignore[arg-type]


def test_bare_yaml_off_means_off(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("name: p\nmode: off\n")
    assert load_policy(tmp_path / "p.yaml").mode == "off"


POLICIES = PolicySet.load()


@pytest.mark.parametrize(
    ("caller", "shelf", "config", "expected_mode", "expected_name"),
    [
        (Caller.owner(), None, AccessConfig(), "off", "open"),
        (Caller.owner(), "strict", AccessConfig(), "off", "open"),
        (Caller.agent("claude"), None, AccessConfig(), "redact", "standard"),
        (Caller.agent("claude"), "strict", AccessConfig(), "refuse", "standard+strict"),
        (Caller.agent("claude"), "open", AccessConfig(), "redact", "standard+open"),
        (Caller.agent("cursor"), None, AccessConfig(agents={"cursor": "strict"}), "refuse", None),
        (Caller.owner(), None, AccessConfig(owner="standard"), "redact", "standard"),
    ],
)
def test_policy_for(
    caller: Caller, shelf: str | None, config: AccessConfig, expected_mode: str, expected_name: str
) -> None:
    policy = policy_for(caller, shelf, config, POLICIES)
    assert policy.mode == expected_mode
    if expected_name:
        assert policy.name == expected_name


def test_a_lax_shelf_never_loosens() -> None:
    policy = policy_for(Caller.agent("a"), "open", AccessConfig(), POLICIES)
    assert set(POLICIES.resolve("standard").identifying) <= set(policy.identifying)


def test_unknown_callers_are_refused() -> None:
    with pytest.raises(AccessDenied):
        policy_for(Caller(kind="agent", name=""), None, AccessConfig(), POLICIES)
    strict_config = AccessConfig(unlisted_agents=False)
    with pytest.raises(AccessDenied):
        policy_for(Caller.agent("stranger"), None, strict_config, POLICIES)
    with pytest.raises(PolicyError):
        policy_for(Caller.agent("a"), None, AccessConfig(agent_default="nope"), POLICIES)
