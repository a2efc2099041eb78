"""Watches: standing jobs that re-read pages, run searches, file reminders, index folders.

Public entry points (the facade and the interfaces call these):

* `manage`: `add_watch`, `get_watch`, `list_watches`, `watch_runs`, `cancel_watch`,
  `pause_watch`, `resume_watch`
* `poll`: `poll(conn, filer, fetcher, now_ms=...) -> PollReport`, `run_now`
* `reminders`: `list_reminders`, `ack_reminder`
* `actions`: the `Filer` protocol the facade implements, `Filed`, `SearchBackend`
* `fetcher`: `Fetcher`, the one safe HTTP client
"""
