"""Asking private memory: a local llama.cpp model answers, and nothing private is released.

`pipeline.ask()` is the entry point the `Vault` facade calls with an `AskRequest` (the
question and its gated sections) and the `AskEngines` that answer it;
the local model comes from `privault.models` (run in a supervised worker),
`remote.RemoteChat` is the optional
OpenAI-compatible backend for non-private context, `followup.FollowupTokens` the signed
single-use follow-up tokens, and `fakes` the deterministic stand-ins used by tests.
"""

from privault.ask.briefing import AskSection
from privault.ask.fakes import FakeChat, LeakyStubChat
from privault.ask.followup import FollowupTokens
from privault.ask.pipeline import AskEngines, AskReply, AskRequest, Citation, ask
from privault.ask.remote import RemoteChat
from privault.models.chat import ChatModel, ChatResult, Message

__all__ = [
    "AskEngines",
    "AskReply",
    "AskRequest",
    "AskSection",
    "ChatModel",
    "ChatResult",
    "Citation",
    "FakeChat",
    "FollowupTokens",
    "LeakyStubChat",
    "Message",
    "RemoteChat",
    "ask",
]
