"""Privacy: policies (YAML, fail-closed), detection (presidio + spaCy + own recognizers), the gate.

How the facade uses it:

* write time — `Detector(DetectorConfig.build(policy_set, known_entities)).detect(text)`
  for each section's text and heading, then `store.pii.save_spans(...)` with
  `detector.version`;
* read time — `policy_for(caller, shelf_policy, access, policy_set)` gives the policy; one
  `Gate(policy)` per response; for each text: stored spans → `apply_overrides` → `gate.apply`;
  `gate.held_back()` goes in the response and the audit log. A search query is never cut:
  gated callers search the masked index, where no form of a masked value is present.
"""

from privault.privacy.access import AccessConfig, policy_for
from privault.privacy.detector import Detector, DetectorConfig, FakeDetector
from privault.privacy.gate import Gate, GatedText, HeldBack
from privault.privacy.overrides import apply_overrides
from privault.privacy.policy import Policy, PolicySet, load_policy, shipped_policies_dir
from privault.spans import KINDS, Override, Span, merge_spans, normalise_kind

__all__ = [
    "KINDS",
    "AccessConfig",
    "Detector",
    "DetectorConfig",
    "FakeDetector",
    "Gate",
    "GatedText",
    "HeldBack",
    "Override",
    "Policy",
    "PolicySet",
    "Span",
    "apply_overrides",
    "load_policy",
    "merge_spans",
    "normalise_kind",
    "policy_for",
    "shipped_policies_dir",
]
