"""The local models: where they come from, how they are checked, and where they run.

* `catalog`: manifests, installation from pinned PyPI packages, sha256 verification.
* `convert`: the install-time conversion of EmbeddingGemma into a GGUF file.
* `chat`: the narrow interface every chat backend speaks (messages in, one answer out).
* `llama`: the llama.cpp engines (a chat model, an embedding model); imported only inside
  the worker process, never by a process that serves callers.
* `worker` / `supervisor`: the child process a model runs in, and the parent's handle on
  it. A native crash, an out-of-memory kill or a hang in a model costs one call a clear
  error, never the process that serves everyone else.
* `doctor`: runs each installed model once in a child process and says whether it works.

This package sits on the floor below the capabilities: `ask/` and `retrieval/` ask it for a
chat or embedding handle and never import llama.cpp themselves.
"""
