"""YAML read the safe way, through libyaml's parser when PyYAML was built with it.

Every command reads some YAML (model manifests, policies, front matter); libyaml's safe
loader parses it about 8x faster than the pure-Python one and accepts the same documents.
"""

from __future__ import annotations

from typing import Any

import yaml

YAMLError = yaml.YAMLError
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """The document in `text`, as `yaml.safe_load` reads it."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
