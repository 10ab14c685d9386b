"""``mjledger --help`` as the console script writes it without click (mjledger/_console.py)
is click's own page, byte for byte, at every terminal width; and the click group is declared
from the same table (mjledger/_command_table.py), so neither can drift from the other."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from mjledger import _command_table as table
from mjledger._console import terminal_width, top_help, write_top_help
from mjledger.cli import main

SCRIPT = Path(sys.executable).parent / "mjledger"


def clicks_page(prog: str = "mjledger") -> str:
    """The page click's ``--help`` prints (``click.echo(ctx.get_help())``), at the width the
    environment's COLUMNS gives (CliRunner would force 80)."""
    with click.Context(main, info_name=prog, **main.context_settings) as ctx:
        return ctx.get_help() + "\n"


@pytest.mark.parametrize("columns", range(50, 131))
def test_the_page_is_clicks_at_every_width(
    columns: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    expected = clicks_page()
    assert terminal_width() == click.formatting.HelpFormatter().width
    assert write_top_help(["--help"], "mjledger")
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("columns", [20, 49, 80])
def test_the_short_flag_and_narrow_terminals_too(
    columns: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    expected = clicks_page()
    assert write_top_help(["-h"], "mjledger")
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("prog", ["m", "a-much-longer-program-name-than-usual", "x" * 40])
def test_other_program_names_are_clicks_page_or_left_to_click(
    prog: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    page = top_help(prog, 78)
    assert page is None or page == clicks_page(prog)


@pytest.mark.parametrize(
    "args", [[], ["--help", "replay"], ["replay", "--help"], ["--version"], ["--debug"], ["hep"]]
)
def test_anything_else_is_left_to_click(args: list[str]) -> None:
    assert not write_top_help(args, "mjledger")


def test_the_group_is_declared_from_the_table() -> None:
    with click.Context(main, info_name="mjledger", **main.context_settings) as ctx:
        assert main.help == table.GROUP_HELP
        assert " ".join(main.collect_usage_pieces(ctx)) == table.GROUP_USAGE
        options = {
            opt: param.help
            for param in main.get_params(ctx)
            if isinstance(param, click.Option)
            for opt in param.opts
        }
        help_option = main.get_help_option(ctx)
    assert help_option is not None
    assert tuple(help_option.opts) == table.HELP_OPTION_NAMES
    assert help_option.help == table.HELP_OPTION_HELP
    assert {o: options[o] for o in table.OPTIONS} == dict(table.OPTIONS)
    assert set(options) == {*table.OPTIONS, *table.HELP_OPTION_NAMES}


def test_the_console_script_writes_it_without_click() -> None:
    """The installed script's page, its status, and that click was never imported."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith("
        "('click', 'mjledger'))), file=sys.stderr))\n"
        "sys.argv[0] = 'mjledger'\n"
        "from mjledger._console import run\n"
        "run()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "--help"],
        capture_output=True,
        text=True,
        env={"COLUMNS": "80", "PATH": ""},
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == clicks_page_in_a_process(["--help"], 80).stdout.decode()
    loaded = ast.literal_eval(out.stderr.strip())
    assert loaded == [
        "mjledger",
        "mjledger._command_table",
        "mjledger._console",
        "mjledger._streams",
    ]


def clicks_page_in_a_process(args: list[str], columns: int) -> subprocess.CompletedProcess[bytes]:
    """``mjledger ARGS`` through click alone (the group, not the console script)."""
    code = "import sys; sys.argv[0] = 'mjledger'; from mjledger.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        env={"COLUMNS": str(columns), "PATH": ""},
        check=False,
    )


@pytest.mark.parametrize("columns", [50, 67, 80, 130])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_the_installed_script_prints_clicks_page(flag: str, columns: int) -> None:
    env = {"COLUMNS": str(columns), "PATH": ""}
    script = subprocess.run([str(SCRIPT), flag], capture_output=True, env=env, check=False)
    clicks = clicks_page_in_a_process([flag], columns)
    assert (script.returncode, script.stdout, script.stderr) == (
        clicks.returncode,
        clicks.stdout,
        clicks.stderr,
    )
    assert script.returncode == 0


@pytest.mark.parametrize(
    ("args", "status"), [(["--help"], 0), (["-h"], 0), (["--version"], 0), (["nope"], 2), ([], 2)]
)
def test_the_script_and_python_m_agree(args: list[str], status: int) -> None:
    env = {"COLUMNS": "80", "PATH": ""}
    script = subprocess.run([str(SCRIPT), *args], capture_output=True, env=env, check=False)
    module = subprocess.run(
        [sys.executable, "-m", "mjledger", *args], capture_output=True, env=env, check=False
    )
    assert script.returncode == module.returncode == status
    name = b"python -m mjledger"
    assert script.stdout == module.stdout.replace(name, b"mjledger")
    assert script.stderr == module.stderr.replace(name, b"mjledger")


def _with_the_reader_gone(command: list[str]) -> tuple[int, bytes]:
    """``command``'s status and standard error when standard output's reader has gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            command, stdout=write, stderr=subprocess.PIPE, env={"PATH": ""}, check=False
        )
    finally:
        os.close(write)
    return done.returncode, done.stderr


def test_a_reader_gone_is_answered_as_click_answers_it() -> None:
    code = "import sys; sys.argv[0] = 'mjledger'; from mjledger.cli import main; main()"
    clicks = _with_the_reader_gone([sys.executable, "-c", code, "--help"])
    assert _with_the_reader_gone([str(SCRIPT), "--help"]) == clicks == (1, b"")


@pytest.mark.parametrize("columns", [50, 80])
def test_python_m_writes_clicks_page_under_its_name_without_click(columns: int) -> None:
    code = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print('click' in sys.modules, file=sys.stderr))\n"
        "runpy.run_module('mjledger', run_name='__main__', alter_sys=True)\n"
    )
    env = {"COLUMNS": str(columns), "PATH": ""}
    ours = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, env=env)
    module = subprocess.run(
        [sys.executable, "-m", "mjledger", "--help"], capture_output=True, env=env
    )
    assert ours.returncode == module.returncode == 0
    assert ours.stderr == b"False\n"
    assert ours.stdout == module.stdout
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", str(columns))
        assert module.stdout.decode() == clicks_page("python -m mjledger")


def _with_no_stdout(command: list[str]) -> tuple[int, bytes]:
    """``command``'s status and standard error when it is started with standard output closed."""
    shell = ["/bin/sh", "-c", '"$0" "$@" >&-', *command]
    done = subprocess.run(shell, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    return done.returncode, done.stderr


def test_no_standard_output_at_all_is_answered_as_click_answers_it() -> None:
    code = "import sys; sys.argv[0] = 'mjledger'; from mjledger.cli import main; main()"
    clicks = _with_no_stdout([sys.executable, "-c", code, "--help"])
    assert _with_no_stdout([str(SCRIPT), "--help"]) == clicks == (0, b"")
