"""The command line's parser as tlint builds it: argparse's help, as wide as argparse makes it (the width found
without shutil), and only the subcommand named built, unless the help that lists them all may be asked for."""

from __future__ import annotations

import argparse

import pytest

from lint.cli import COMMANDS, build_parser, main


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return dict(action.choices)


def with_argparses_formatter(parser: argparse.ArgumentParser) -> str:
    """The help ``parser`` gives with argparse's own formatter, whose width shutil.get_terminal_size() says."""
    parser.formatter_class = argparse.HelpFormatter
    return parser.format_help()


@pytest.mark.parametrize("columns", ["40", "72", "160", "wide", "-3", None])
@pytest.mark.parametrize("argv", [["--help"], ["check", "--help"], ["diff", "--help"]])
def test_the_help_is_as_wide_as_argparse_makes_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], columns: str | None, argv: list[str]
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)  # then the width of the terminal standard output is, else 80
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert main(argv) == 0
    shown = capsys.readouterr().out
    parser = build_parser(argv)
    assert shown == with_argparses_formatter(subcommands(parser)[argv[0]] if argv[0] in COMMANDS else parser)


def test_a_narrow_terminal_wraps_the_help(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    main(["--help"])
    narrow = capsys.readouterr().out
    monkeypatch.setenv("COLUMNS", "200")
    main(["--help"])
    assert len(narrow.splitlines()) > len(capsys.readouterr().out.splitlines())
    assert max(map(len, narrow.splitlines())) <= 48


@pytest.mark.parametrize(
    ("argv", "built"),
    [
        (["check", "x.txt"], {"check"}),
        (["-V", "diff", "a", "b"], {"diff"}),
        (["-h", "check"], set(COMMANDS)),  # the top-level help, which lists every subcommand
        (["--he", "check"], set(COMMANDS)),  # an abbreviation of --help
        (["chek"], set(COMMANDS)),  # a mistyped one: the error lists them, and suggests one
        ([], set(COMMANDS)),
    ],
)
def test_only_the_subcommand_named_is_built(argv: list[str], built: set[str]) -> None:
    assert set(subcommands(build_parser(argv))) == built


def test_the_top_level_help_before_a_command_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-h", "check"]) == 0
    listed = capsys.readouterr().out
    assert all(f"    {name} " in listed for name in COMMANDS)
