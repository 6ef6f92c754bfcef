"""The daemon's configuration file (see config.example.toml).

Credentials come only from this file or the environment (`password_env`), and are never
logged or echoed.  Every table is strict: an unknown key is an error with a did-you-mean
(from the table's field names), so a new key is one line in its model.  Every error is one
line: the file, the key and the accepted form (config_errors.py).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    SecretStr,
    Tag,
    ValidationError,
    field_validator,
)

from tianshen.core.clock import DEFAULT_ZONE, check_zone, localize
from tianshen.specs import is_file_name, load_spec
from tianshen.tomlfile import read_toml


class Table(BaseModel):
    """A table of the config file: unknown keys are refused, never ignored."""

    model_config = ConfigDict(extra="forbid")


def database_url(value: str) -> str:
    """A SQLAlchemy URL as given, or a file path made a SQLite URL (issue 32 item 8:
    `--db x.db`, relative to the current directory; in a config file, `load_config` makes it
    relative to the file); ValueError, one line, for anything else."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    value = value.strip()
    if "://" not in value and not value.startswith("sqlite:") and value:
        return f"sqlite:///{value}"  # a path: relative to here, or absolute (sqlite:////abs/x.db)
    try:
        make_url(value).get_dialect()
    except (ArgumentError, NoSuchModuleError, ValueError):
        raise ValueError(f"{value!r} is not a database URL; accepted: a file path (x.db), sqlite:///path/x.db or "
                         f"postgresql+psycopg://user@host/dbname") from None
    except ImportError as exc:
        raise ValueError(f"{value}: the database driver is not installed ({exc.name}); for PostgreSQL: "
                         f"pip install -e '.[postgres]'") from None
    return value


class DatabaseConfig(Table):
    url: str = "sqlite:///tianshen.db"

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return database_url(value)


class ForumConfig(Table):
    kind: Literal["memory", "spirit", "discuz", "phpwind"] = "memory"
    base_url: str = ""
    username: str = "神的使者"
    password: SecretStr | None = None
    password_env: str | None = None
    category: str | None = None  # Spirit: the game category (title or id)
    fid: int | None = None  # Discuz, PHPWind: the game board's forum id
    api: Literal["auto", "mobile", "html"] = "auto"  # Discuz
    charset: str = "auto"  # Discuz: utf-8 / gbk, or read from the board
    timezone: str | None = None  # the board's time zone when it shows local times (read from it when it can)
    # The zone every time is shown in (texts, admin CLI, web) and a `start` without an offset is
    # read in (issue 23 item 1).  Unset: a Discuz board's `timezone` (set, or read from the
    # board by `run`), else Asia/Shanghai.  Spirit's `timezone` is the GM account's profile
    # zone for reading the board, never the display zone.
    display_timezone: str | None = None
    flood_interval_s: float | None = None  # the bot's own posts at least this far apart (None: the adapter's default)
    remembers_keys: bool = True  # memory board: False forgets the write keys on a restart, as Discuz and Spirit do
    pm_lag_seconds: float = 0  # memory board: the GM sees a PM this long after it was sent (a lagging board)
    pm_same_second: bool = False  # memory board: a read does not show a PM of its own second (UCenter)
    users: list[str] | None = None  # memory board: its accounts (unset: every name is one)

    _file: str = PrivateAttr(default="the config")  # for the error line

    @field_validator("display_timezone")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        return check_zone(value) if value else None

    def display_zone(self, board_zone: str | None = None) -> str:
        """The board's display zone: `display_timezone`, else a Discuz board's own zone (the
        `timezone` key, else `board_zone`, what the adapter read from the board), else the
        default (Asia/Shanghai, the zone of these forums)."""
        if self.display_timezone:
            return self.display_timezone
        if self.kind in ("discuz", "phpwind"):
            if self.timezone:
                try:
                    return check_zone(self.timezone)
                except ValueError:
                    pass  # the adapter refuses it at login, with its own message
            if board_zone:
                return check_zone(board_zone)
        return DEFAULT_ZONE

    def expected_flood_interval_s(self) -> float:
        """How far apart the GM's writes will be: `flood_interval_s`, else the adapter's
        usual (Spirit 10 s; Discuz learns it from the board's first refusal, commonly 15 s;
        the memory board none).  For `admin new-game`'s estimate of how long a deal takes."""
        if self.flood_interval_s is not None:
            return self.flood_interval_s
        return {"spirit": 10.0, "discuz": 15.0, "phpwind": 3.0}.get(self.kind, 0.0)

    def secret(self) -> str | None:
        """The password; ValueError naming the variable when password_env is not set."""
        if self.password_env:
            value = os.environ.get(self.password_env)
            if not value:
                raise ValueError(f"{self._file}: [forum] password_env: the environment variable "
                                 f"{self.password_env} is not set; export it, or write [forum] password")
            return value
        return self.password.get_secret_value() if self.password else None

    def missing(self) -> list[str]:
        """The keys this forum kind needs that the file does not give (the password may be
        in the environment: only that one of password / password_env is given is checked)."""
        if self.kind == "memory":
            return []
        needed = {"base_url": self.base_url, "password (or password_env)": self.password or self.password_env}
        if self.kind in ("discuz", "phpwind"):
            needed["fid"] = self.fid
        return [key for key, value in needed.items() if not value]


class PlayerConfig(Table):
    name: str  # the 马甲
    forum_name: str = ""


class GameConfig(Table):
    name: str
    ruleset: str  # a variant id, or a variant .toml file (relative to this config file)
    # the deal; default random.  Typed or not, it is committed to with a secret random salt
    # (core.rng), so a small seed cannot be found from the start post.
    seed: int | None = None
    # With an offset (2026-03-01T20:00:00+08:00), or without one: then it is read in the
    # board's display zone ([forum] display_timezone; `start_in`).
    start: datetime
    players: list[PlayerConfig] = Field(default_factory=list)
    roles: dict[str, str] = Field(default_factory=dict)  # fixed roles, name -> role id or Chinese name
    substitutes: list[str] = Field(default_factory=list)  # the substitutes' forum accounts (替补)
    gm_contact: str | None = None  # the human GM's own forum account: tianshen PMs him what he should know

    def start_in(self, zone: str) -> datetime:
        """The start, a time written without an offset read in the board's display zone."""
        return localize(self.start, zone)


class RunConfig(Table):
    poll_seconds: float = 60
    time_scale: float = 1.0  # memory board only: game hours per real hour
    simulate: bool = False  # simulated players: on the memory board, or on spirit with simulate_accounts
    simulate_accounts: str | None = None  # spirit: JSON {account: password} the sims log in with (a trial forum's)
    stop_when_over: bool = True
    outage_minutes: float = 30  # 003 §12.4: an outage longer than this extends the phase by its length
    late_window: Literal["extend", "none"] = "extend"  # issue 22 item 7: a window whose opening post came late
    late_window_minutes: float = 10  # ... later than this is extended by the time it was missing
    lease_seconds: float = 120  # a game is owned by one process this long past its last tick
    # replies to one player's PMs in any hour; past it they wait, and the next one answers them all
    replies_per_hour: int = Field(default=20, ge=2, le=3600)
    owner: str = ""  # this process's name in the leases (default host:pid)
    # a deadline is folded this long after its time, so PMs sent just before it that the board
    # shows late are read first (issue 27 item 1); 0: at its time
    deadline_grace_seconds: float = Field(default=0, ge=0, le=300)


class WebConfig(Table):
    """`tianshen web`: the GM page's token (here or in the environment), where to listen,
    and how a forum post id becomes a link (default: from the forum's kind and base_url)."""

    token: SecretStr | None = None
    token_env: str | None = None
    host: str = "127.0.0.1"
    port: int = 8040
    post_url: str | None = None  # e.g. "https://bbs.example/t/{thread}#p{post}"
    thread_url: str | None = None  # e.g. "https://bbs.example/t/{thread}"
    # signs the login cookies (here or in the environment); unset: derived from the token
    session_secret: SecretStr | None = None
    session_secret_env: str | None = None
    session_hours: int = Field(default=12, ge=1, le=24 * 30)
    secure_cookie: bool = False  # true behind an https proxy: the cookie is never sent over http
    # the index and the public pages are rendered at most once in this time (0: on every request)
    cache_seconds: float = Field(default=1.0, ge=0, le=60)
    # addresses of the reverse proxies whose X-Forwarded-For names the client (the login
    # throttle counts that client); none: the throttle counts the peer and ignores the header
    trusted_proxies: list[str] = Field(default_factory=list)

    def secret(self) -> str | None:
        """The token; ValueError (one line) when it is shorter than 16 characters."""
        if self.token_env:
            token = os.environ.get(self.token_env) or None
        else:
            token = self.token.get_secret_value() if self.token else None
        if token is not None and len(token) < 16:
            where = f"${self.token_env}" if self.token_env else "[web] token"
            raise ValueError(f"{where} is {len(token)} characters long; the GM pages' token needs at least 16")
        return token

    def session_key(self) -> str | None:
        if self.session_secret_env:
            return os.environ.get(self.session_secret_env) or None
        return self.session_secret.get_secret_value() if self.session_secret else None


def _one_or_many(value: object) -> str:
    return "many" if isinstance(value, list) else "one"


# `[game]` (one table) or `[[game]]` (a list): the errors are those of the form written
Games = Annotated[Annotated[GameConfig, Tag("one")] | Annotated[list[GameConfig], Tag("many")],
                  Discriminator(_one_or_many)]


class Config(Table):
    def games(self) -> list[GameConfig]:
        """The games the config names ([game] or [[game]])."""
        if self.game is None:
            return []
        return self.game if isinstance(self.game, list) else [self.game]

    def board_key(self) -> str:
        """The board's name in the database: every game of it is served by `run`."""
        f = self.forum
        return f"{f.kind}:{f.base_url.rstrip('/') or 'local'}:{f.username}"[:300]

    database: DatabaseConfig = Field(default_factory=DatabaseConfig)
    forum: ForumConfig = Field(default_factory=ForumConfig)
    # `[game]` (one) or `[[game]]` (several): signed up by `run` when new (`admin new-game` does the same)
    game: Games | None = None
    run: RunConfig = Field(default_factory=RunConfig)
    web: WebConfig = Field(default_factory=WebConfig)


def load_config(path: str | Path) -> Config:
    """The config file, checked; ValueError with one line per error."""
    from tianshen.config_errors import explain

    data = read_toml(path)
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ValueError(explain(str(path), exc, Config)) from None
    config.forum._file = str(path)
    url = (data.get("database") or {}).get("url")
    if isinstance(url, str) and config.database.url != url.strip():  # a file path: beside the config, as
        file = Path(path).parent / Path(url.strip()).expanduser()    # the ruleset and simulate_accounts
        config.database.url = f"sqlite:///{file.resolve().as_posix()}"
    if missing := config.forum.missing():
        raise ValueError(f"{path}: [forum] missing {', '.join(missing)}: forum kind '{config.forum.kind}' "
                         f"needs base_url, username, password (or password_env)"
                         + (" and fid" if config.forum.kind in ("discuz", "phpwind") else ""))
    for game in config.games():
        game.ruleset = _beside(Path(path), game.ruleset)
    if config.run.simulate and config.forum.kind != "memory" and not (
            config.forum.kind == "spirit" and config.run.simulate_accounts):
        raise ValueError(f"{path}: [run] simulate: simulated players need the memory board, or a spirit forum and "
                         f"[run] simulate_accounts (a JSON file of the accounts' passwords, e.g. the accounts.json "
                         f"of `tianshen forum spirit-local`)")
    if config.run.simulate_accounts:
        config.run.simulate_accounts = str((Path(path).parent / Path(config.run.simulate_accounts).expanduser())
                                           .resolve())
    return config


def check_games(path: str | Path, config: Config) -> None:
    """Before games are signed up (`run`, `admin new-game`): each ruleset is found and every
    fixed role is one of it.  Not in load_config: reading a config for its database or board
    must not need the rulesets ($TIANSHEN_RULESETS may be the daemon's only)."""
    games = config.games()
    for i, game in enumerate(games):
        where = "[game]" if isinstance(config.game, GameConfig) else f"[[game]] #{i + 1}"
        _check_game(str(path), game, where)


def _check_game(path: str, game: GameConfig, where: str) -> None:
    try:
        spec = load_spec(game.ruleset)
    except ValueError as exc:
        raise ValueError(f"{path}: {where} ruleset: {exc}; accepted: a variant id (see `tianshen rulesets`) "
                         f"or a variant .toml file") from None
    for name, written in game.roles.items():
        if spec.role_by_name(written) is None:
            names = ", ".join(f"{info.name} ({rid})" for rid, info in spec.roles.items())
            raise ValueError(f"{path}: {where} roles: unknown role '{written}' for '{name}'; accepted: {names}")


def _beside(config_file: Path, ruleset: str) -> str:
    """A ruleset file named relative to the config file, as an absolute path; an id as is."""
    if not is_file_name(ruleset) or Path(ruleset).expanduser().is_absolute():
        return ruleset
    return str((config_file.parent / ruleset).resolve())
