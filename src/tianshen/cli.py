"""`tianshen`: demo, rehearse, replay, run, admin."""

from __future__ import annotations

import inspect
import json
import logging
import os
import secrets
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tianshen.cliwords import gm_notes, thread_name, winner_name
from tianshen.core import overrides
from tianshen.core.clock import zone_info
from tianshen.core.model import GameState
from tianshen.core.overrides import Arg, Override
from tianshen.specs import available_variants, load_spec

# rich_markup_mode=None: help texts are printed as written (`[game]` is a table, not markup)
app = typer.Typer(help="tianshen (天神): an automatic game master for forum Mafia games.", no_args_is_help=True,
                  rich_markup_mode=None)
admin = typer.Typer(help="The human GM's controls.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(admin, name="admin")
forum_app = typer.Typer(help="Checks against the configured forum; a local Spirit forum for a trial.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(forum_app, name="forum")
# soft_wrap: a long line is never broken at the console's width (80 columns when the output
# is piped to a file or another program); a terminal wraps it itself (issue 31 item 8)
console = Console(soft_wrap=True)


@app.callback()
def _fit_console() -> None:
    """Before every command: output piped or redirected (`| less`, a file, a log) has no width
    limit and no wrapping — tables whole, sentences unbroken (issue 32 item 9); a terminal,
    or $COLUMNS, keeps its width."""
    wide = not console.is_terminal and not os.environ.get("COLUMNS")
    console.width = 100_000 if wide else None  # type: ignore[assignment]  # None: measured again
    console.soft_wrap = wide


def _rule(title: str) -> None:
    """A heading line: across a terminal, or a short one in piped output."""
    if console.is_terminal:
        console.rule(title)
    else:
        console.print(f"──── {title} ────", markup=False, highlight=False)

def _db_option(value: str | None) -> str | None:
    """--db: a SQLAlchemy URL, or a file path taken as SQLite (issue 32 item 8); else one line."""
    from tianshen.config import database_url

    if value is None:
        return None
    try:
        return database_url(value)
    except ValueError as exc:
        _fail(f"--db {exc}")
        raise  # not reached: _fail exits


SIM_DB = Annotated[str, typer.Option("--db", envvar="TIANSHEN_DATABASE_URL", callback=_db_option,
                                     help="SQLAlchemy database URL, or a SQLite file's path")]
DB = Annotated[str | None, typer.Option(
    "--db", callback=_db_option,
    help="SQLAlchemy database URL or a SQLite file's path (default: the --config file's [database] url, else "
         "$TIANSHEN_DATABASE_URL, else that of ./config.toml when there is one, else sqlite:///tianshen.db)")]
CONFIG = Annotated[str | None, typer.Option("--config", help="config.toml whose [database] the game is in")]
DEFAULT_DB = "sqlite:///tianshen.db"


def _fail(message: str) -> None:
    """One line (per error) on the console, exit 2; the message is printed as written."""
    for line in message.splitlines() or [""]:
        console.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


@app.command()
def demo(db: SIM_DB = DEFAULT_DB, seed: int = 2026, quiet: bool = False) -> None:
    """A whole classic_10 game on the built-in board with simulated players."""
    rehearse(ruleset="classic_10", seed=seed, db=db, quiet=quiet)


@app.command()
def rehearse(ruleset: Annotated[str, typer.Option(help="variant id (e.g. classic_13) or a variant .toml file")
                                ] = "classic_10",
             seed: int = 7, db: SIM_DB = DEFAULT_DB, quiet: bool = False,
             players: Annotated[int | None, typer.Option(help="number of players (n_lives: 5, 6 or 7)")] = None,
             ) -> None:
    """A whole game on the built-in board with simulated players and a virtual clock."""
    from sqlalchemy.exc import SQLAlchemyError

    from tianshen.service.heap import freeze_startup
    from tianshen.sim.rehearsal import rehearse as run_rehearsal

    freeze_startup()  # what the imports made is not walked by each collection (issue 37)
    try:
        result = run_rehearsal(ruleset, seed, db, printer=None if quiet else lambda s: print(s, flush=True),
                               players=players)
    except ValueError as exc:
        _fail(str(exc))
        return
    except SQLAlchemyError as exc:
        _fail(_db_error(db, exc))
        return
    winner = result.state.winner
    label = winner_name(ruleset, {}, winner) if winner else "none"
    console.print(f"[bold]winner: {label} ({winner})[/bold] — game #{result.game_id} in {db}, "
                  f"{len(result.transcript)} posts and PMs")


@app.command()
def replay(script: str, as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False) -> None:
    """Play a scripted game (docs/replay.md) and print or dump everything."""
    from tianshen.replay import ScriptError, load_script
    from tianshen.replay import replay as run_replay

    try:
        result = run_replay(load_script(script))
    except (ScriptError, ValueError) as exc:
        _fail(str(exc))
        return
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
        return
    for phase in result["phases"]:
        _rule(phase["phase"])
        for body in phase["public"]:
            print(f"[公开帖子]\n{body}\n")
        for pm in phase["private"]:
            print(f"[短消息 → {pm['to']}]\n{pm['text']}\n")
        for r in phase["refusals"]:
            print(f"[拒绝] {r['from']}: {r['text']!r} — {r['reason']}\n")
    last = result["phases"][-1]["phase"] if result["phases"] else "setup"
    print(f"winner: {result['winner']}" if result["winner"]
          else f"no winner: the script ends in {last}" if last != "over" else "no winner")  # not "winner: None"


@app.command()
def run(config: Annotated[str, typer.Option("--config", help="config.toml")] = "config.toml",
        quiet: Annotated[bool, typer.Option(help="warnings only")] = False,
        verbose: Annotated[bool, typer.Option(help="also the forum adapters' requests and the scheduler's jobs")
                           ] = False) -> None:
    """The daemon: moderate every game of the configured board in real time."""
    from sqlalchemy.exc import SQLAlchemyError

    from tianshen.config import load_config
    from tianshen.forum.base import ForumError
    from tianshen.service.daemon import Daemon
    from tianshen.service.holders import refuse_if_held

    setup_logging(quiet, verbose)
    cfg = None
    try:
        cfg = load_config(config)
        _check_before_run(config, cfg)
        daemon = Daemon(cfg, players=_simulated(cfg))
        refuse_if_held(daemon)
        daemon.run()
    except ValueError as exc:
        _fail(str(exc))
        return
    except SQLAlchemyError as exc:  # a database that cannot be opened (issue 32 item 8): one line
        _fail(_db_error(cfg.database.url if cfg else config, exc))
        return
    except ForumError as exc:
        _forum_stop(exc)
        return
    for line in _stopped_lines(daemon.store.list_games(daemon.board_key)):
        console.print(line, markup=False, highlight=False)


def _stopped_lines(records: list) -> list[str]:  # [GameRecord] -> a line each, when `run` stops
    lines = []
    for record in records:
        if record.status == "new":
            lines.append(f"game {record.name}: not started yet (start {_show(record.deadline_at, _zone_of(record))})")
        elif record.status == "over":
            lines.append(f"game {record.name}: over, {_winner_words(record)}")
        else:  # stopped (Ctrl-C, SIGTERM) with the game going on (issue 32 item 9: not "winner None")
            lines.append(f"game {record.name}: {record.phase_label}, not over (`tianshen run` carries on with it)")
    return lines


def _winner_words(record) -> str:  # a GameRecord of a game over
    """`winner 平民方 (civilians)`, or `no winner` (ended by the GM without one)."""
    if not record.winner:
        return "no winner"
    return f"winner {winner_name(record.ruleset, record.config, record.winner)} ({record.winner})"


def _simulated(cfg):  # Config -> the simulated players `[run] simulate` asks for, or None
    from tianshen.sim import DaemonPlayers

    return DaemonPlayers() if cfg.run.simulate else None


def setup_logging(quiet: bool = False, verbose: bool = False) -> None:
    """INFO to stdout, one line per event of tianshen's; the libraries' chatter (APScheduler's
    every job run, Alembic's migration context, httpx's requests) only with --verbose."""
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO, stream=sys.stdout,
                        format="%(asctime)s level=%(levelname)s logger=%(name)s %(message)s")
    for name in ("apscheduler", "alembic", "httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.INFO if verbose and not quiet else logging.WARNING)
    if not verbose:  # a poll skipped while the previous one still runs is no news: it runs next time
        logging.getLogger("apscheduler.scheduler").addFilter(
            lambda record: "maximum number of running instances" not in record.getMessage())


def _check_before_run(path: str, cfg) -> None:  # cfg: Config
    """What would fail after the database is made fails first: the forum's password, and a
    config without a game on a database that does not exist yet; the games' rulesets and roles."""
    from tianshen.config import check_games

    check_games(path, cfg)
    if cfg.forum.kind != "memory":
        cfg.forum.secret()  # ValueError naming password_env when it is not set
    if not cfg.games() and _missing_file(cfg.database.url) is not None:
        raise ValueError(f"no game: {path} has no [game] table and {cfg.database.url} does not exist yet; "
                         f"add a [game] table, or sign one up with `tianshen admin new-game --config FILE`")


@app.command()
def web(config: Annotated[str, typer.Option("--config", help="config.toml (its [database] and [web])")] = "config.toml",
        host: Annotated[str | None, typer.Option(help="default: [web] host, 127.0.0.1")] = None,
        port: Annotated[int | None, typer.Option(help="default: [web] port, 8040")] = None) -> None:
    """Read-only web pages beside the daemon: a public page per game, and the GM's (token)."""
    import uvicorn

    from tianshen.config import load_config
    from tianshen.store import Store
    from tianshen.web.app import WebSettings, create_app
    from tianshen.web.views import link_templates

    try:
        cfg = load_config(config)
    except ValueError as exc:
        _fail(str(exc))
        return
    if _missing_file(cfg.database.url) is not None:
        _fail(f"no game in {cfg.database.url}: there is no such database file yet; `tianshen run` "
              f"or `tianshen admin new-game --config {config}` makes it")
    try:
        token = cfg.web.secret()
    except ValueError as exc:
        _fail(str(exc))
        return
    if not token:
        console.print("no [web] token (or token_env unset): the GM pages stay closed", style="yellow",
                      markup=False)
    post_url, thread_url = link_templates(cfg.forum.kind, cfg.forum.base_url)
    settings = WebSettings(token=token, post_url=cfg.web.post_url or post_url,
                           thread_url=cfg.web.thread_url or thread_url, session_secret=cfg.web.session_key(),
                           session_hours=cfg.web.session_hours, secure_cookie=cfg.web.secure_cookie,
                           cache_s=cfg.web.cache_seconds)
    app_ = create_app(Store(cfg.database.url), settings)
    # X-Forwarded-For only from a configured proxy: any local process could rotate it past the
    # login throttle otherwise (uvicorn believes 127.0.0.1 by default; issue 38 item 8)
    proxies = cfg.web.trusted_proxies
    uvicorn.run(app_, host=host or cfg.web.host, port=port or cfg.web.port, log_level="warning",
                server_header=False, proxy_headers=bool(proxies), forwarded_allow_ips=",".join(proxies) or None)


def _forum_stop(exc: Exception) -> None:
    """One line, no traceback.  Exit 3 when the forum refused the login (systemd must not
    restart: every try counts towards the board's IP lockout), 4 for any other forum failure."""
    from tianshen.forum.base import LoginRefused

    if isinstance(exc, LoginRefused):
        console.print(f"error: 论坛拒绝了 GM 账号登录，改好配置后再启动 / the forum refused the GM's login: {exc}",
                      markup=False, highlight=False)
        raise typer.Exit(3)
    console.print(f"error: 论坛出错，稍后会再试 / the forum failed: {exc}", markup=False, highlight=False)
    raise typer.Exit(4)


@app.command()
def simulate(
    ruleset: Annotated[str, typer.Option(help="variant id or variant file, e.g. classic_10")] = "classic_10",
    games: Annotated[int, typer.Option(help="number of games")] = 1000,
    players: Annotated[int | None, typer.Option(help="number of players (n_lives: 5, 6 or 7)")] = None,
    workers: Annotated[int, typer.Option(help="worker processes (default: the CPUs)")] = 0,
    out: Annotated[str, typer.Option(help="report directory")] = "simulation",
    policy: Annotated[str, typer.Option(help="how the simulated players play: default, smart")] = "default",
    seed: Annotated[int, typer.Option(help="the first game's seed (games use seed, seed+1, …)")] = 1,
    compare: Annotated[str | None, typer.Option(help="a second variant (id or file), played with the same seeds")] = None,
) -> None:
    """Monte Carlo: many pure-core games with simulated players; a report with plots in --out."""
    import os
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from tianshen.sim import montecarlo, policies, report

    if policy not in policies():
        _fail(f"unknown policy '{policy}'; policies: {', '.join(policies())}")
    variants = [ruleset] + ([compare] if compare else [])
    for variant in variants:
        try:
            spec = load_spec(variant)
        except ValueError as exc:
            _fail(str(exc))
            return
        if players is not None and not spec.allows(players):
            _fail(f"{spec.id} is not played by {players} players")
    workers = workers or os.cpu_count() or 1
    summaries = []
    t0, cpu0 = time.perf_counter(), time.process_time()
    # the bar redrawn twice a second, not rich's ten: each redraw is ~2 ms of the parent's CPU,
    # taken from the workers' two cores (about 1 % of a long run at ten)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, refresh_per_second=2) as bar:
        for variant in variants:
            task = bar.add_task(f"{variant} ({policy})", total=games)
            # the workers sum their games up (a `Tally` a job): the parent merges, nothing a game
            tally = montecarlo.tally(variant, games, players=players, policy=policy, seed=seed, workers=workers,
                                     progress=lambda n, task=task: bar.advance(task, n))
            summaries.append(tally.report(variant, policy, players))
    elapsed = time.perf_counter() - t0
    files = report.write(summaries, Path(out))
    for s in summaries:
        line = ", ".join(f"{side} {w['rate']:.1%} [{w['ci95'][0]:.1%}–{w['ci95'][1]:.1%}]" for side, w in s["winners"].items())
        console.print(f"[bold]{s['variant']}[/bold]: {s['played']} games — {line}"
                      + (f" — [red]{s['error_count']} failed[/red]" if s["error_count"] else ""))
    console.print(f"{games * len(variants)} games in {elapsed:.1f} s on {workers} workers "
                  f"({games * len(variants) / elapsed:.0f} games/s; this process {time.process_time() - cpu0:.1f} s CPU); "
                  f"report: {files[-1]}")


@app.command()
def rulesets() -> None:
    """List the ruleset variants found in rulesets/."""
    for variant in available_variants():
        print(variant)


@admin.command()
def status(game: Annotated[str | None, typer.Argument(help="game name (default: all games, or the only one)")] = None,
           db: DB = None, config: CONFIG = None,
           game_option: Annotated[str | None, typer.Option("--game", help="game name")] = None,
           public: Annotated[bool, typer.Option("--public", help="only what the players know")] = False) -> None:
    """Phase, deadline, players with their secret roles, inputs of this phase (GM only);
    with --public, what the players know."""
    from tianshen.rules import family, game_ruleset

    game, url = game or game_option, _database(db, config)
    if game is None and _list_games(url):
        return
    store, record = _open_game(url, game)
    if record.status == "new":
        console.print(f"[bold]{record.name}[/bold] ({record.ruleset}) — signed up, not started; "
                      f"starts {_show(record.deadline_at, _zone_of(record))}")
        return
    state = GameState.model_validate_json(record.state_json)
    if public:
        from tianshen.core.observation import observation

        _public_status(record.name, observation(game_ruleset(record.ruleset, record.config), state, None), state.zone)
        return
    ruleset = game_ruleset(record.ruleset, record.config)
    deadline = ruleset.next_deadline(state)
    console.print(f"[bold]{record.name}[/bold] ({record.ruleset}, seed {record.seed}) — {record.status}")
    words = family(state.ruleset)  # steps and causes in the family's words, never their keys
    step = words.step_words().get(state.phase.step, "") if state.phase.step else ""
    console.print(f"phase: {state.phase.label} {step}".rstrip()
                  + (f" — next: {_deadline_words(deadline.kind)} at {_show(deadline.at, state.zone)}"
                     if deadline else ""))
    if state.winner:
        console.print(f"winner: {winner_name(record.ruleset, record.config, state.winner)}")
    table = Table("seat", "马甲", "forum name", "role", "faction", "alive", "notes")
    for p in state.players:
        view = ruleset.player_view(state, p.name)
        notes = "，".join(f"{k}：{v}" for k, v in gm_notes(view).items())  # words, as the GM web page has them
        table.add_row(str(p.seat), escape(p.name), escape(p.forum_name), view.get("role_name", p.role), p.faction,
                      "yes" if p.alive else f"no ({p.died_in}, {words.cause_words().get(p.death_cause or '', '—')})",
                      escape(notes))
    console.print(table)
    _inputs_table(store, record, state)
    pending = store.pending_outbox(record.id)
    if pending:
        console.print(f"[yellow]{len(pending)} messages waiting in the outbox[/yellow]")
    _undelivered(store, record)
    for entry in state.data.get("gm_log", []):
        args = dict(entry["args"] or {})
        seen = args.pop("last_seen", None)
        console.print(f"  GM {_show(datetime.fromisoformat(entry['at']), state.zone)} {entry['command']} {_args(args)} — {entry['reason']}",
                      markup=False, highlight=False)
        if seen is not None:
            console.print(_last_seen_table(state, seen, _names(args.get("players"))))


def _inputs_table(store, record, state: GameState) -> None:
    """Every PM and post of this phase and how it was judged (issue 23 item 13): accepted
    (with its receipt), refused and why, or not a vote — folded again from the event log."""
    from tianshen.service.driver import GameDriver, OfflineForum

    judged = GameDriver(store, OfflineForum(), record.id).judged(state.phase.label)
    console.print(f"inputs this phase: {len(judged)}")
    if not judged:
        return
    table = Table("time", "from", "where", "text", "judged", "why / receipt")
    for i, verdict, detail in judged:
        where = "PM" if i.source == "pm" else f"post {thread_name(i.thread_key or '', state.ruleset)}"
        style = {"accepted": "green", "refused": "red", "not a vote": "yellow"}.get(verdict, "")
        table.add_row(_show(i.sent_at, state.zone), escape(i.sender), escape(where), _cell(i.text, 40),
                      f"[{style}]{verdict}[/{style}]" if style else verdict, _cell(detail, 80))
    console.print(table)


DEADLINE_WORDS = {"night_end": "the night's end", "vote_open": "the vote thread's opening",
                  "vote_end": "the vote's close", "day_end": "the day's end", "powers_end": "the powers' close",
                  "ld_end": "the life-death vote's close", "summon_end": "the summoning's close",
                  "substitution_end": "the 交替期's end", "checkin_end": "the check-in's close", "dawn": "dawn",
                  "dusk": "dusk", "reminder": "a reminder", "results": "the round's results"}


def _deadline_words(kind: str) -> str:
    """A deadline kind in words, not its name in the code (issue 32 item 9)."""
    return DEADLINE_WORDS.get(kind) or kind.replace("_", " ")


def _cell(text: str, width: int) -> str:
    """Player text in a rich table: one line, cut, markup escaped."""
    flat = " ".join(text.split())
    return escape(flat if len(flat) <= width else flat[:width] + "…")


def _args(args: dict) -> str:
    """A GM command's arguments as `key=value`, not a Python dict."""
    return " ".join(f"{k}={_plain(v)}" for k, v in args.items() if v not in (None, "", {}, []))


def _plain(value: object) -> str:
    """A value of the state as words: a table as `key value` pairs, a list joined by 、."""
    if isinstance(value, dict):
        return "、".join(f"{k} {_plain(v)}" for k, v in value.items()) or "—"
    if isinstance(value, list | tuple):
        return "、".join(_plain(v) for v in value) or "—"
    return "—" if value is None else str(value)


def _names(players: object) -> list[str]:
    return [n.strip() for n in str(players or "").replace("，", ",").split(",") if n.strip()]


def _last_seen_table(state: GameState, seen: dict, named: list[str]) -> Table:
    """When each living seat was last heard from (forum time), longest silent first — what
    the 交替期 orders the seats by (001 §6.3); the seats being replaced are marked."""
    order = list((state.data.get("substitution") or {}).get("seats", []))
    table = Table("马甲", "forum name", "last seen (forum time)", "replaced")
    rows = [(seen.get(p.name) or seen.get(p.forum_name) or "", p) for p in state.players if p.alive or p.name in named]
    for when, p in sorted(rows, key=lambda r: (r[0], r[1].seat)):
        shown = _show(datetime.fromisoformat(when), state.zone) if when else "never"
        mark = ""
        if p.name in named:
            mark = f"yes, #{order.index(p.name) + 1}" if p.name in order else "yes"
        table.add_row(escape(p.name), escape(p.forum_name), shown, mark)
    return table


def _database(db: str | None, config: str | None) -> str:
    """The database an admin command works on: --db, else the --config file's, else
    $TIANSHEN_DATABASE_URL, else ./config.toml's (when there is one), else tianshen.db."""
    from tianshen.config import load_config

    if db:
        return db
    if not config and not os.environ.get("TIANSHEN_DATABASE_URL") and Path("config.toml").is_file():
        config = "config.toml"
    if not config:
        return _db_option(os.environ.get("TIANSHEN_DATABASE_URL")) or DEFAULT_DB
    try:
        return load_config(config).database.url
    except ValueError as exc:
        _fail(str(exc))
        raise  # not reached: _fail exits


def _missing_file(url: str) -> Path | None:
    """The SQLite file of `url` when it does not exist (opening it would make an empty one)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    name = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or name in ("", ":memory:") or name.startswith("file:"):
        return None
    return None if Path(name).exists() else Path(name)


def _existing_store(url: str):  # -> Store
    """The migrated store of `url`; exit 2, creating nothing, when its SQLite file is missing."""
    if _missing_file(url) is not None:
        _fail(f"no game in {url}: there is no such database file yet; "
              f"sign a game up with `tianshen admin new-game --config config.toml`")
    return _opened(url)


def _opened(url: str):  # -> Store
    """The store of `url`, migrated; exit 2 with one line when the database cannot be opened
    (not a database file, a directory, a server that does not answer)."""
    from sqlalchemy.exc import SQLAlchemyError

    from tianshen.store import Store

    try:
        store = Store(url)
        store.upgrade()
    except SQLAlchemyError as exc:
        _fail(_db_error(url, exc))
        raise  # not reached: _fail exits
    return store


def _db_error(url: str, exc: Exception) -> str:
    """One line for a database that cannot be used: the URL (no password) and the driver's words."""
    from sqlalchemy.engine import make_url

    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - the URL was accepted before; never fail while reporting
        shown = "the database"
    return f"cannot use the database {shown}: {reason}"


def _list_games(db: str) -> bool:
    """With several games: a line for each (the GM then names one with --game)."""
    store = _existing_store(db)
    games = store.list_games()
    if len(games) < 2:
        return False
    now = store.lease_now()  # the leases' clock: the database's
    table = Table("#", "game", "ruleset", "status", "phase", "next deadline", "winner", "served by")
    for g in games:
        lease = store.lease(g.id)
        table.add_row(str(g.id), g.name, g.ruleset, g.status, g.phase_label,
                      _show(g.deadline_at, _zone_of(g)) if g.deadline_at and g.status != "over" else "",
                      g.winner or "", lease[0] if lease and lease[1] > now else "")
    console.print(table)
    for g in games:
        if failed := store.failed_outbox(g.id):
            console.print(f"{g.name}: {len(failed)} messages not delivered (the board refused them); "
                          f"tianshen admin status --game {g.name}", style="red", markup=False, highlight=False)
    console.print("details: tianshen admin status --game NAME")
    return True


def _undelivered(store, record) -> None:  # Store, GameRecord
    """Issue 23 item 4: the messages the board refused for good, one line each, and the fix."""
    failed = store.failed_outbox(record.id)
    if not failed:
        return
    console.print(f"{len(failed)} messages not delivered (the board refused them for good):", style="red",
                  markup=False, highlight=False)
    for row in failed:
        what = f"PM to {row.target}" + (f" ({row.subject})" if row.subject else "") if row.kind == "pm" \
            else f"post in {row.title or row.target}"
        console.print(f"  #{row.id} {what}: {row.error}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"  fix the account on the forum, then: tianshen admin resend --game {record.name}",
                  markup=False, highlight=False)


def _public_status(name: str, seen: dict, zone: str) -> None:
    """The players' view (core.observation, public): who is alive, who died when and as what
    side (never a role), the running count."""
    due = seen["deadline"]
    console.print(f"[bold]{name}[/bold] — {seen['phase']['label']}"
                  + (f", until {_show(datetime.fromisoformat(due['at']), zone)}" if due else ""))
    table = Table("seat", "马甲", "alive")
    for p in seen["players"]:
        side = p.get("identity")
        table.add_row(str(p["seat"]), p["name"], "yes" if p["alive"] else f"no ({p['died_in']}{', ' + side if side else ''})")
    console.print(table)
    if count := seen["count"]:
        rows = [f"{n}：{votes}票（{voters}）" for n, votes, voters in count["rows"]]
        console.print("\n".join([count["text"], *rows, count["note"]]).strip(), markup=False, highlight=False)


def _open_game(db: str, game: str | None, want: str = "any"):  # -> tuple[Store, GameRecord]
    """The game a command works on: `--game`, else the one running game (`want` "new": the
    one game waiting to be dealt); with none of those, the latest.  `want` "dealt": a game
    not dealt yet is refused in one line (issue 32 item 3: an override aimed at the running
    game never lands on the next one)."""
    store = _existing_store(db)
    games = store.list_games()
    if not games:
        _fail(f"no game in {db}; sign one up with `tianshen admin new-game --config config.toml`")
    record = next((g for g in games if g.name == game), None) if game else _default_game(games, want)
    if record is None:
        _fail(f"no game named '{game}'; games: {', '.join(g.name for g in games)}")
    if want == "dealt" and record.status == "new":
        _fail(f"game {record.name} is signed up but not dealt yet (it starts "
              f"{_show(record.deadline_at, _zone_of(record))}): nothing has happened in it yet; "
              f"`tianshen admin start --game {record.name}` deals it now")
    return store, record


def _default_game(games: list, want: str):  # [GameRecord] -> GameRecord
    """Without --game: the one game running (or, for `start`, the one waiting to be dealt);
    several: refused in one line naming them; none: the latest game."""
    if want == "new":
        waiting = [g for g in games if g.status == "new"]
        what = "wait to be dealt"
    else:
        waiting = [g for g in games if g.status not in ("new", "over")]
        what = "are running"
    if len(waiting) > 1:
        _fail(f"{len(waiting)} games {what}: " + ", ".join(f"{g.name} ({g.phase_label})" for g in waiting)
              + "; name one with --game NAME")
    return waiting[0] if waiting else games[-1]


GAME = Annotated[str | None, typer.Option("--game", help="game name (default: the game running, when only one "
                                                         "is; else the latest)")]
REASON = Annotated[str, typer.Option("--reason", help="why (recorded with the override)")]
AT = Annotated[str | None, typer.Option("--at", help="when, ISO 8601 (default: now)")]


def _override(db: str, game: str | None, command: str, reason: str, at: str | None, **args: object) -> None:
    """Fold a GM override into the game; the running daemon sends what it says."""
    from tianshen.service.driver import GameDriver, OfflineForum

    store, record = _open_game(db, game, "dealt")
    when = _at(at, record)
    if args.get("sent_at"):  # read like --at: in the game's zone when it has no offset
        args["sent_at"] = _at(str(args["sent_at"]), record, "--sent-at").isoformat()
    driver = GameDriver(store, OfflineForum(), record.id)
    if command == "resume":
        _resume_not_before_pause(driver.state(), when, at, record)
    if command == "substitute":
        args["last_seen"] = driver.last_seen()
    outcome = driver.gm(command, reason, when, **{k: v for k, v in args.items() if v is not None})
    if outcome.refusals:
        _fail(f"{command} refused: {outcome.refusals[0].reason}")
    for line in outcome.log:
        print(line)
    if command == "substitute":
        console.print(_last_seen_table(outcome.state, dict(args["last_seen"]), _names(args.get("players"))))
    for post in outcome.posts:
        print(f"[公开帖子 {thread_name(post.thread, outcome.state.ruleset)}]\n{post.body}\n")
    for pm in outcome.pms:
        print(f"[短消息 → {pm.to}]\n{pm.body}\n")
    console.print(f"{command}: done — {outcome.state.phase.label}; messages go out with the daemon's next tick")


@admin.command("new-game")
def new_game(config: Annotated[str, typer.Option("--config", help="config.toml with a [game] table "
                                                                  "(or [[game]] tables)")],
             db: Annotated[str | None, typer.Option("--db", callback=_db_option,
                                                    help="SQLAlchemy database URL or a SQLite file's path "
                                                         "(default: the --config file's [database] url)")] = None,
             no_check: Annotated[bool, typer.Option("--no-check", help="sign up without logging in to the forum "
                                                                      "to check the accounts")] = False,
             ) -> None:
    """Sign a game up: ruleset, players and their vests (马甲), substitutes, start time.  It is
    dealt at its start time by `tianshen run` (or now with `tianshen admin start`)."""
    from tianshen.config import check_games, load_config

    try:
        cfg = load_config(config)
        if not cfg.games():
            raise ValueError(f"{config} has no [game] table")
        check_games(config, cfg)
        zone = cfg.forum.display_zone()
        setups = [(g, _setup(config, g, zone)) for g in cfg.games()]  # each tried before the database is opened
        warnings = _check_starts(config, cfg, [setup for _, setup in setups], datetime.now(UTC))
        gm = _check_accounts_before_sign_up(config, cfg, check=not no_check) or cfg.forum.username
        setups = [(g, setup.model_copy(update={"gm_account": gm})) for g, setup in setups]
        store = _opened(db or cfg.database.url)
        for g, _ in setups:
            if store.game_id(g.name) is not None:
                raise ValueError(f"a game named '{g.name}' exists already")
        signed = [(g, setup, _register(store, g, setup)) for g, setup in setups]
    except ValueError as exc:
        _fail(str(exc))
        return
    for g, setup, (game_id, spec_id) in signed:
        console.print(f"game {g.name} (#{game_id}, {spec_id}, {len(setup.seats)} players, "
                      f"{len(setup.substitutes)} substitutes) signed up; starts {_show(setup.start, setup.zone)}",
                      markup=False, highlight=False)
    if signed:
        console.print(f"players will be told to send their PMs to “{gm}”", markup=False, highlight=False)
    for line in warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(line)}", highlight=False, soft_wrap=True)


def _check_accounts_before_sign_up(path: str, cfg, check: bool = True) -> str | None:  # cfg: Config
    """Issue 23 item 3: `new-game` runs the accounts check of `forum check` when the forum
    can be reached (ValueError, one line per problem, when it fails); when it cannot, a
    warning line, and the game is signed up without it.  A login the forum refuses (issue 32
    item 7) or a forum config that cannot work is refused, unless `check` is off
    (--no-check).  Shared accounts and the GM's own account need no forum: they are always
    refused.  Returns the GM account's name as the board shows it (None: not reached), the
    name players are told to PM (issue 31 item 2)."""
    from tianshen.forum.base import ForumError, LoginRefused
    from tianshen.forum.factory import make_forum
    from tianshen.service.accounts import forum_problems, static_problems

    if problems := static_problems(path, cfg):
        raise ValueError("\n".join(problems))
    where = cfg.forum.base_url or "the built-in board"
    if not check:
        console.print(f"warning: --no-check: the game board and the accounts on the forum at {where} were not "
                      f"checked; run `tianshen forum check --config {path}` before the start",
                      style="yellow", markup=False, highlight=False, soft_wrap=True)
        return
    forum = None
    try:
        forum, _ = make_forum(cfg.forum, lambda: datetime.now(UTC))
        forum.login()
        report = forum_problems(path, cfg, forum)
    except (LoginRefused, ValueError) as exc:
        what = "refused the GM's login" if isinstance(exc, LoginRefused) else "cannot be used with this config"
        raise ValueError(f"the forum at {where} {what} ({exc}); nothing was signed up: fix [forum] in {path} "
                         f"(or sign up without the check: --no-check)") from None
    except ForumError as exc:
        console.print(f"warning: the forum at {where} could not be reached, so the game board and the accounts "
                      f"were not checked ({exc}); run `tianshen forum check --config {path}` before the start",
                      style="yellow", markup=False, highlight=False, soft_wrap=True)
        return
    finally:
        if callable(close := getattr(forum, "close", None)):
            close()
    shown = forum.account
    if report.problems:
        raise ValueError("\n".join(report.problems + ["nothing was signed up: fix the config (or the accounts on "
                                                       "the forum), then run new-game again"]))
    console.print(f"forum check: game board {report.board} and {report.accounts} accounts exist on {where}",
                  markup=False, highlight=False)
    return shown


def _check_starts(config: str, cfg, setups: list, now: datetime) -> list[str]:  # (Config, [GameSetup])
    """Issue 23 item 2: a start in the past is refused (ValueError, one line: the key and the
    accepted form), so `run` never deals a game whose schedule is already over.  A start
    nearer than the deal takes (the role PMs and the player list, one write per flood
    interval of the board) is signed up with a warning."""
    interval = cfg.forum.expected_flood_interval_s()
    warnings = []
    for i, setup in enumerate(setups):
        where = "[game]" if len(setups) == 1 and not isinstance(cfg.game, list) else f"[[game]] #{i + 1}"
        shown = _show(setup.start, setup.zone, year=True)
        if setup.start <= now:
            raise ValueError(f"{config}: {where} start: {shown} is in the past (now {_show(now, setup.zone)}); "
                             f"accepted: a later date and time, e.g. start = "
                             f"{_tomorrow_at_20(now, setup.zone)}")
        writes = len(setup.seats) + 1  # a role PM each, and the player list
        deal = timedelta(seconds=interval * writes)
        if deal and setup.start - now < deal:
            warnings.append(f"{config}: {where} start: {shown} is {_minutes(setup.start - now)} away, and the "
                            f"deal ({writes - 1} role PMs and the player list, one write every {interval:g} s, the "
                            f"board's flood interval) takes about {_minutes(deal)}: start `tianshen run` now, or "
                            f"set a later start")
    return warnings


def _tomorrow_at_20(now: datetime, zone: str) -> str:
    local = (now + timedelta(days=1)).astimezone(zone_info(zone))
    return local.replace(hour=20, minute=0, second=0, microsecond=0).isoformat()


def _minutes(d: timedelta) -> str:
    minutes = d.total_seconds() / 60
    return f"{minutes:.0f} min" if minutes >= 1 else f"{d.total_seconds():.0f} s"


def _setup(config: str, g, zone: str):  # GameConfig -> GameSetup, tried on its ruleset (ValueError when refused)
    from tianshen.core.rng import new_salt
    from tianshen.core.ruleset import GameSetup, Seat
    from tianshen.rules import load_ruleset

    ruleset = load_ruleset(g.ruleset)
    fixed = {name: ruleset.spec.role_by_name(role) or role for name, role in g.roles.items()}
    setup = GameSetup(seats=[Seat(name=p.name, forum_name=p.forum_name or p.name) for p in g.players],
                      seed=g.seed if g.seed is not None else secrets.randbits(48), start=g.start_in(zone),
                      fixed_roles=fixed, substitutes=g.substitutes, gm_contact=g.gm_contact, salt=new_salt(),
                      zone=zone)
    try:
        ruleset.setup(setup)
    except ValueError as exc:
        raise ValueError(f"{config}: game '{g.name}': {exc}") from None
    return setup


def _register(store, g, setup) -> tuple[int, str]:  # -> (game id, ruleset id)
    from tianshen.service.driver import GameDriver
    from tianshen.specs import load_spec

    game_id = GameDriver.register(store, g.name, g.ruleset, setup,  # an id or a file (issue 13 item 11)
                                  signed_up_at=datetime.now(UTC))
    return game_id, load_spec(g.ruleset).id


@admin.command()
def start(game: GAME = None, db: DB = None, config: CONFIG = None, at: AT = None) -> None:
    """Deal now: role PMs, the player list (《游戏者名单》); night 1 begins (the daemon sends the
    messages)."""
    from tianshen.service.driver import GameDriver, OfflineForum

    store, record = _open_game(_database(db, config), game, "new")
    when = _at(at, record)
    try:
        outcome = GameDriver(store, OfflineForum(), record.id).start(when)
    except ValueError as exc:
        _fail(str(exc))
        return
    console.print(f"{record.name} started: {outcome.state.phase.label}, {len(outcome.pms)} role PMs queued")


@admin.command()
def resend(game: GAME = None, db: DB = None, config: CONFIG = None,
           message: Annotated[list[int] | None, typer.Option(
               "--message", help="only this undelivered message (its # in `admin status`); repeatable")] = None,
           ) -> None:
    """Send again the messages the board refused for good (an unknown recipient…), once the
    account is fixed; the running daemon sends them at its next poll."""
    store, record = _open_game(_database(db, config), game)
    failed = store.failed_outbox(record.id)
    if message:
        unknown = sorted(set(message) - {row.id for row in failed})
        if unknown:
            _fail(f"no undelivered message #{', #'.join(map(str, unknown))} in {record.name}; "
                  f"`tianshen admin status --game {record.name}` lists them")
    if not failed:
        console.print(f"{record.name}: no undelivered message", markup=False, highlight=False)
        return
    rows = store.requeue_failed(record.id, message or None)
    for row in rows:
        console.print(f"  #{row.id} {row.kind} to {row.target}: queued again", markup=False, highlight=False)
    console.print(f"{record.name}: {len(rows)} messages queued again; the daemon sends them at its next poll "
                  "(if the board refuses again, the GM is told again)", markup=False, highlight=False)


def _override_command(o: Override) -> Callable[..., None]:
    """The `tianshen admin NAME` command of an override of the table (core.overrides): its
    arguments, then --reason, --game, --db, --config and --at."""

    def command(**given: Any) -> None:
        common = {k: given.pop(k) for k in ("reason", "game", "db", "config", "at")}
        args = {k: v for k, v in given.items() if v is not None}
        _override(_database(common["db"], common["config"]), common["game"], o.name, common["reason"], common["at"],
                  **args)

    params = [inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, annotation=_arg_type(a),
                                default=inspect.Parameter.empty if a.required else None) for a in o.args]
    params += [inspect.Parameter("reason", inspect.Parameter.KEYWORD_ONLY, annotation=REASON),
               *(inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=t, default=None)
                 for n, t in (("game", GAME), ("db", DB), ("config", CONFIG), ("at", AT)))]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = o.help
    command.__name__ = o.name.replace("-", "_")
    return command


def _arg_type(a: Arg) -> Any:
    """An override's argument as typer reads it: a positional, a required or optional option."""
    if a.positional:
        return Annotated[str, typer.Argument(help=a.help or None, show_default=False)]
    kind = a.kind if a.required else a.kind | None
    return Annotated[kind, typer.Option(a.flag, help=a.help)]


def _families() -> list[type]:
    from tianshen.rules import families

    return [f.ruleset_class() for f in families().values()]


for _o in overrides.table(_families()):
    admin.command(_o.name)(_override_command(_o))


@admin.command()
def export(game: GAME = None, db: DB = None, config: CONFIG = None,
           json_out: Annotated[str | None, typer.Option("--json", help="write the JSON log to this file")] = None,
           report_out: Annotated[str | None, typer.Option("--report", help="write the readable report here")] = None,
           ) -> None:
    """The whole game log: every input, every GM override with its reason, every message."""
    from tianshen.service.export import export_game, report

    store, record = _open_game(_database(db, config), game, "dealt")
    data = export_game(store, record.id)
    try:
        if json_out:
            Path(json_out).write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        if report_out:
            Path(report_out).write_text(report(data), encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {exc.filename}: {exc.strerror}")
    if not json_out and not report_out:
        sys.stdout.write(report(data))
    else:
        console.print(f"exported {record.name}: {len(data['events'])} events, {len(data['outbox'])} messages")


@admin.command()
def preview(game: GAME = None, db: DB = None, config: CONFIG = None) -> None:
    """What the next deadline would post, step by step, without committing anything."""
    from tianshen.service.driver import GameDriver, OfflineForum

    store, record = _open_game(_database(db, config), game, "dealt")
    result = GameDriver(store, OfflineForum(), record.id).preview()
    if result is None:
        _fail("nothing is scheduled (the game is over or paused)")
        return
    due, outcome = result
    console.print(f"[bold]preview of {_deadline_words(due.kind)} at {_show(due.at, outcome.state.zone)}[/bold] "
                  f"(nothing committed)")
    for line in outcome.log:
        print(f"  · {line}")
    for post in outcome.posts:
        print(f"[公开帖子 {thread_name(post.thread, outcome.state.ruleset)}]\n{post.body}\n")
    for pm in outcome.pms:
        print(f"[短消息 → {pm.to}]\n{pm.body}\n")


@forum_app.command("check")
def forum_check(config: Annotated[str, typer.Option("--config", help="config.toml")] = "config.toml",
                thread: Annotated[str | None, typer.Option(help="also read this thread (id)")] = None,
                pm_to: Annotated[str | None, typer.Option(help="also send one test PM to this user")] = None) -> None:
    """Log in as the GM, read the forum's clock, the GM's PMs (and a thread, and send a test
    PM), and say what works — to verify a setup before a game."""
    from rich.markup import escape

    from tianshen.config import load_config
    from tianshen.forum.base import ForumError
    from tianshen.forum.factory import make_forum

    try:
        cfg = load_config(config)
        forum, _ = make_forum(cfg.forum, lambda: datetime.now(UTC))
    except ValueError as exc:
        _fail(str(exc))
        return
    where = cfg.forum.base_url or "the built-in board"
    steps = [
        ("log in as " + cfg.forum.username, forum.login),
        ("server clock", lambda: _clock_line(forum.now(), _forum_zone(cfg, forum))),
        ("read the GM's private messages", lambda: f"{len(forum.fetch_pms(None))} messages"),
    ]
    if thread:
        steps.append((f"read thread {thread}",
                      lambda: _thread_line(forum.read_thread(thread, None), _forum_zone(cfg, forum))))
    if pm_to:
        key = f"forum-check:{datetime.now(UTC).isoformat()}"
        steps.append((f"send a test PM to {pm_to}",
                      lambda: forum.send_pm(pm_to, "tianshen forum check", "这是一条测试短消息，请忽略。", key)))
    failed = False
    console.print(f"forum check: {cfg.forum.kind} at {where}")
    for label, step in steps:
        try:
            detail = step()
        except ForumError as exc:
            console.print(f"  [red]✘[/red] {escape(label)}: {escape(str(exc))}", markup=True, highlight=False)
            failed = True
            break
        console.print(f"  [green]✔[/green] {escape(label)}" + (f": {escape(detail)}" if detail else ""),
                      highlight=False)
    if not failed:
        failed = not _accounts_checked(config, cfg, forum)
    if not failed:  # what the forum is like is known only once logged in (issue 32 item 9)
        console.print(f"  · players will be told to send their PMs to “{forum.account}” (the GM account as the "
                      f"board shows it)", highlight=False, markup=False)
        for line in getattr(forum, "describe", lambda: [])():  # adapter-specific facts (charset, flood…)
            console.print(f"  · {line}", highlight=False, markup=False)
        console.print(f"  markup {forum.markup}, post cap {forum.max_post_chars or 'none'}")
    raise typer.Exit(1 if failed else 0)


SPIRIT_DIR = Annotated[Path, typer.Option("--dir", help="the forum's directory (made on first use)")]


@forum_app.command("spirit-local")
def spirit_local(
    dir_: SPIRIT_DIR,
    port: Annotated[int | None, typer.Option(help="serve on 127.0.0.1:PORT (default: 8000, or the port it had)")
                    ] = None,
    accounts: Annotated[str, typer.Option(help="accounts to make, comma-separated: the seats' game accounts "
                                               "(vests), players' own accounts, substitutes, yours")] = "",
    gm: Annotated[str, typer.Option(help="the GM account tianshen logs in as (a superuser)")] = "神的使者",
    gm_password_env: Annotated[str, typer.Option(help="the GM's password is taken from this variable when it is "
                                                      "set (else generated and printed)")
                               ] = "TIANSHEN_FORUM_PASSWORD",
    category: Annotated[str, typer.Option(help="the game category")] = "杀人游戏",
    serve: Annotated[bool, typer.Option(help="--no-serve: make the forum and its accounts, then stop")] = True,
) -> None:
    """A django-spirit 0.14.3 forum on 127.0.0.1 for a trial game: made in DIR on first use
    (django-spirit is installed from PyPI into its own cached virtualenv, ~/.cache/tianshen/),
    with the GM account, the accounts named and the game category, then served until Ctrl-C.
    Run it again to serve the same forum; new --accounts are added.  Every password is kept
    in DIR/accounts.json (mode 0600); a new account's password is printed once."""
    import signal

    from tianshen.forum.spirit_local import LocalForum, SpiritSetupError, create_forum

    names = [n.strip() for n in accounts.replace("，", ",").split(",") if n.strip()]
    gm_password = os.environ.get(gm_password_env) or None
    try:
        if LocalForum.exists(dir_):
            forum = LocalForum.load(dir_)
            if port and port != forum.port:
                forum.port = port
                forum.save()
            if gm != forum.gm:
                _fail(f"the forum in {forum.root} has the GM account {forum.gm}, not {gm}")
            if gm_password and gm_password != forum.gm_password:  # the GM's password follows the variable
                forum.seed({"gm": gm, "gm_password": gm_password, "players": {}})
                forum.accounts[gm] = gm_password
                forum.save()
            made = forum.add_accounts([n for n in names if n not in forum.accounts])
            console.print(f"forum in {forum.root} (django-spirit, {len(forum.accounts)} accounts)",
                          markup=False, highlight=False, soft_wrap=True)
        else:
            console.print(f"making a django-spirit forum in {dir_} (the first time installs django-spirit "
                          f"from PyPI into ~/.cache/tianshen/: a minute or two)", markup=False, highlight=False, soft_wrap=True)
            forum = create_forum(dir_, names, port=port or 8000, gm=gm, gm_password=gm_password, category=category)
            made = forum.players
            console.print(f"GM account {forum.gm}: password "
                          + (f"from ${gm_password_env}" if gm_password else f"{forum.gm_password}  (generated)"),
                          markup=False, highlight=False, soft_wrap=True)
    except SpiritSetupError as exc:
        _fail(str(exc))
        return
    for name, password in made.items():
        console.print(f"account {name}: password {password}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"passwords kept in {forum.root / 'accounts.json'}; game category {forum.category} "
                  f"(id {forum.category_id})", markup=False, highlight=False, soft_wrap=True)
    if not serve:
        return
    try:
        proc = forum.serve()
    except SpiritSetupError as exc:
        _fail(str(exc))
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop waitress too
    console.print(f"serving {forum.base_url}/ (Ctrl-C stops it; log {forum.root / 'waitress.log'})",
                  markup=False, highlight=False, soft_wrap=True)
    try:
        code = proc.wait()
        if code:
            _fail(f"the forum stopped (exit {code}); see {forum.root / 'waitress.log'}")
    except KeyboardInterrupt:
        pass
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)


@forum_app.command("spirit-account")
def spirit_account(names: Annotated[list[str], typer.Argument(help="the accounts to make")], dir_: SPIRIT_DIR) -> None:
    """Add accounts to the local forum of `spirit-local` (also while it runs); each password is
    printed once and kept in DIR/accounts.json.  An account that exists gets a new password."""
    from tianshen.forum.spirit_local import LocalForum, SpiritSetupError

    try:
        forum = LocalForum.load(dir_)
        made = forum.add_accounts(names)
    except SpiritSetupError as exc:
        _fail(str(exc))
        return
    for name, password in made.items():
        console.print(f"account {name}: password {password}", markup=False, highlight=False, soft_wrap=True)


def _accounts_checked(path: str, cfg, forum) -> bool:  # Config, Forum (logged in)
    """Issue 23 item 3: the game board and every account of every game ([game] / [[game]])
    exist, no two seats share one and none is the GM's: ✔, or one ✘ line per problem."""
    from tianshen.forum.base import ForumError
    from tianshen.service.accounts import forum_problems, static_problems

    problems = static_problems(path, cfg)
    try:
        report = forum_problems(path, cfg, forum)
    except ForumError as exc:
        console.print(f"  [red]✘[/red] checking the game board and the accounts: {escape(str(exc))}",
                      highlight=False, soft_wrap=True)
        return False
    problems += report.problems
    if report.board is not None:
        console.print(f"  [green]✔[/green] game board: {escape(report.board)}", highlight=False)
    for line in problems:
        console.print(f"  [red]✘[/red] {escape(line)}", highlight=False, soft_wrap=True)
    if cfg.games() and not problems:
        console.print(f"  [green]✔[/green] accounts of {len(cfg.games())} game(s): {report.accounts} exist "
                      f"(马甲, players' accounts, substitutes, gm_contact), none shared, none the GM's",
                      highlight=False)
    return not problems


def _thread_line(posts: list, zone: str) -> str:
    """How many posts, then one line per post: floor, id, author, time, edit and quote marks."""
    if not posts:
        return "no posts"
    edited = sum(1 for p in posts if p.edited)
    quoting = sum(1 for p in posts if _quotes(p))
    lines = [f"{len(posts)} posts, {edited} edited, {quoting} quoting"]
    lines += [_post_line(p, zone) for p in posts]
    return "\n      ".join(lines)


def _post_line(post, zone: str) -> str:  # a ForumPost
    line = f"#{post.position or '?'} id {post.id} {post.author} {_show(post.posted_at, zone, seconds=True, year=True)}"
    if post.edited:
        by, at = getattr(post, "edited_by", None), getattr(post, "edited_at", None)
        line += " edited" + (f" by {by}" if by else "") + (f" at {_show(at, zone, year=True)}" if at else "")
        if post.original_text:
            line += f" (first written: {_short(post.original_text)})"
    if _quotes(post):
        line += " quoting"
    return line + f": {_short(post.text)}"


def _quotes(post) -> bool:  # a ForumPost
    full = getattr(post, "full_text", "")
    return bool(full and full != post.text) or any(ln.startswith(">") for ln in post.text.split("\n"))


def _short(text: str, n: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


def _clock_line(server: datetime, zone: str) -> str:
    skew = (server - datetime.now(UTC)).total_seconds()
    return f"{_show(server, zone, seconds=True, year=True)} (local clock {skew:+.0f} s; games shown in {zone})"


def _forum_zone(cfg, forum) -> str:  # (Config, Forum): the board's display zone, as `run` sets it
    zone = getattr(forum, "board_zone", None)
    return cfg.forum.display_zone(zone() if callable(zone) else None)


def _show(t: datetime | None, zone: str, **kw: bool) -> str:
    """Every time the CLI prints, through the one formatter (core.clock.show, issue 23 item 1)."""
    from tianshen.core.clock import show

    return show(t, zone, **kw)


def _at(at: str | None, record, option: str = "--at") -> datetime:  # --at of a GameRecord's command, default now
    """`--at`: ISO 8601; without an offset it is read in the game's display zone."""
    from tianshen.core.clock import localize

    if not at:
        return datetime.now(UTC)
    try:
        return localize(datetime.fromisoformat(at), _zone_of(record))
    except ValueError:
        _fail(f"{option} {at}: accepted: a date and time, e.g. 2026-03-01T20:00+08:00 (without an offset: in the "
              f"game's zone, {_zone_of(record)})")
        raise  # not reached: _fail exits


def _resume_not_before_pause(state, when: datetime, at: str | None, record) -> None:
    """`resume --at` before the pause would shorten the phase: refused in one line."""
    paused = state.data.get("paused_at")
    if paused and when < datetime.fromisoformat(paused):
        from tianshen.core.clock import zone_info

        start = datetime.fromisoformat(paused).astimezone(zone_info(_zone_of(record)))
        given = f"--at {at}" if at else "now"
        _fail(f"resume {given} is before the pause ({_show(start, _zone_of(record))}): --at accepted: "
              f"a time at or after it, ISO 8601, e.g. {start.isoformat()}")


def _zone_of(record) -> str:  # a GameRecord: the zone its setup was signed up with
    from tianshen.core.clock import DEFAULT_ZONE

    return (record.config.get("setup") or {}).get("zone") or DEFAULT_ZONE


if __name__ == "__main__":
    app()
