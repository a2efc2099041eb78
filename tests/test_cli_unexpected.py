"""What the command line says when something privault did not expect goes wrong: one line
naming it and exit code 70, or "interrupted" and 130 for Ctrl-C; the traceback only when
PRIVAULT_DEBUG asks for it."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from privault.interfaces import cli


def _failing(error: BaseException) -> Any:
    """A `build_app` whose one command raises `error` inside typer, as a real one would."""

    def build(command: str | None = None) -> typer.Typer:
        app = typer.Typer()

        @app.command()
        def status() -> None:
            raise error

        @app.command()
        def other() -> None:  # two commands: the first word names which one runs
            """Never run."""

        return app

    return build


def _main(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> int:
    monkeypatch.setattr(cli, "build_app", _failing(error))
    monkeypatch.setattr("sys.argv", ["privault", "status"])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    return int(exited.value.code or 0)


def test_an_unexpected_error_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(cli.DEBUG_VARIABLE, "0")  # as if unset
    error = OSError(28, "No space left on device")
    assert _main(monkeypatch, error) == cli.EXIT_INTERNAL
    said = capsys.readouterr().err
    assert "internal error: OSError: [Errno 28] No space left on device" in said
    assert "PRIVAULT_DEBUG=1" in said and "Traceback" not in said


@pytest.mark.parametrize("debug", ["1", "yes"])
def test_the_traceback_is_shown_when_asked_for(monkeypatch: pytest.MonkeyPatch, debug: str) -> None:
    monkeypatch.setenv(cli.DEBUG_VARIABLE, debug)
    monkeypatch.setattr(cli, "build_app", _failing(RuntimeError("boom")))
    monkeypatch.setattr("sys.argv", ["privault", "status"])
    with pytest.raises(RuntimeError, match="boom"):
        cli.main()


def test_ctrl_c_is_interrupted_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(monkeypatch, KeyboardInterrupt()) == cli.EXIT_INTERRUPTED
    assert capsys.readouterr().err.strip() == "interrupted"
