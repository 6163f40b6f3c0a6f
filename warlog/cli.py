"""The `warlog` command: thin. It parses, calls the engine and the store, and prints.

Every error a user can cause (a bad scenario, a malformed replay, an illegal order, a game that
is not in the database) is a typed error whose message is printed as one line on stderr, with
exit code 1; never a traceback. The commands live in modules of their own (game_cmd,
manage_cmd, tabletop_cmd, review_cmd, ...); this module names them, groups them for `--help`,
and builds the application.
"""

from __future__ import annotations

import sys

import typer

from warlog.cli_common import OneLineErrors

# -- `warlog --help`: every command in the panel a player would look in --------------------
PLAY, REVIEW, SHARE, MANAGE = "Play and record", "Review and analyse", "Share", "Manage"

COMMANDS: list[tuple[str, str, str]] = [
    (PLAY, "new", "warlog.tabletop_cmd:new"),
    (PLAY, "orders", "warlog.tabletop_cmd:orders"),
    (PLAY, "order", "warlog.tabletop_cmd:order"),
    (PLAY, "takeback", "warlog.tabletop_cmd:takeback_cmd"),
    (PLAY, "record", "warlog.tabletop_cmd:record_cmd"),
    (PLAY, "note", "warlog.game_cmd:note"),
    (PLAY, "fork", "warlog.tabletop_cmd:fork_cmd"),
    (REVIEW, "show", "warlog.game_cmd:show"),
    (REVIEW, "log", "warlog.game_cmd:log_cmd"),
    (REVIEW, "review", "warlog.review_cmd:review"),
    (REVIEW, "luck", "warlog.game_cmd:luck_cmd"),
    (REVIEW, "odds", "warlog.odds_cmd:odds"),
    (REVIEW, "whatif", "warlog.whatif_cmd:whatif"),
    (REVIEW, "winprob", "warlog.whatif_cmd:winprob"),
    (REVIEW, "simulate", "warlog.study_cmd:simulate"),
    (REVIEW, "analyze", "warlog.study_cmd:analyze"),
    (REVIEW, "army", "warlog.manage_cmd:army"),
    (REVIEW, "rules", "warlog.manage_cmd:rules"),
    (SHARE, "export", "warlog.replay_cmd:export_cmd"),
    (SHARE, "import", "warlog.replay_cmd:import_cmd"),
    (SHARE, "verify", "warlog.replay_cmd:verify"),
    (SHARE, "report", "warlog.game_cmd:report"),
    (SHARE, "schema", "warlog.manage_cmd:schema_cmd"),
    (MANAGE, "games", "warlog.manage_cmd:games"),
    (MANAGE, "scenarios", "warlog.manage_cmd:scenarios"),
    (MANAGE, "dashboard", "warlog.manage_cmd:dashboard"),
    (MANAGE, "serve", "warlog.serve_cmd:serve"),
    (MANAGE, "version", "warlog.manage_cmd:version"),
]
"""Panel, name and function ("module:function") of every command, in the order `warlog --help`
lists them: a function is imported only when its command is built."""


def command_function(spec: str) -> object:
    """The function a "module:function" name points at (its module imported now)."""
    from importlib import import_module

    module, name = spec.split(":")
    return getattr(import_module(module), name)


def build(names: set[str] | None = None) -> typer.Typer:
    """The `warlog` application with the commands ``names`` (None: every command)."""
    built = typer.Typer(
        cls=OneLineErrors,
        help="Grid wargames as append-only event logs: simulate, show, verify, share and scrub "
             "them.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    chosen = [(panel, name, spec) for panel, name, spec in COMMANDS
              if names is None or name in names]
    for panel, name, spec in chosen:
        built.command(name, rich_help_panel=panel)(command_function(spec))
    if len(chosen) == 1:  # one command alone would become the program itself, not a subcommand
        built.callback()(_group)
    return built


def _group() -> None:
    """Grid wargames as append-only event logs: simulate, show, verify, share and scrub them."""


def main() -> None:
    """The console script. Why it builds only the command asked for: typer makes every command
    it holds (and Python imports every command's module) before it runs one, and a player at the
    table runs `warlog order GAME end` for every phase; so `warlog WORD ...` builds WORD alone,
    and `warlog`, `warlog --help` or a word that names no command build them all (the help
    lists every command; the error names the nearest). The same functions either way."""
    word = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    known = {name for _, name, _ in COMMANDS}
    build({word} if word in known else None)()


def __getattr__(name: str) -> object:
    """``warlog.cli.app``: the application with every command, built on first use."""
    if name == "app":
        globals()["app"] = built = build()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
