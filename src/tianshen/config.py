"""The daemon's configuration file (see config.example.toml).

Credentials come only from this file or the environment (`password_env`), and are never
logged or echoed.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr

from tianshen.core.spec import is_file_name
from tianshen.tomlfile import read_toml


class DatabaseConfig(BaseModel):
    url: str = "sqlite:///tianshen.db"


class ForumConfig(BaseModel):
    kind: Literal["memory", "spirit", "discuz"] = "memory"
    base_url: str = ""
    username: str = "神的使者"
    password: SecretStr | None = None
    password_env: str | None = None
    category: str | None = None  # Spirit: the game category (title or id)
    fid: int | None = None  # Discuz: the game board's forum id
    api: Literal["auto", "mobile", "html"] = "auto"  # Discuz
    charset: str = "auto"  # Discuz: utf-8 / gbk, or read from the board
    timezone: str | None = None  # the board's time zone when it shows local times (read from it when it can)
    flood_interval_s: float | None = None  # the bot's own posts at least this far apart (None: the adapter's default)
    remembers_keys: bool = True  # memory board: False forgets the write keys on a restart, as Discuz and Spirit do

    def secret(self) -> str | None:
        if self.password_env:
            return os.environ.get(self.password_env)
        return self.password.get_secret_value() if self.password else None


class PlayerConfig(BaseModel):
    name: str  # the 马甲
    forum_name: str = ""


class GameConfig(BaseModel):
    name: str
    ruleset: str  # a variant id, or a variant .toml file (relative to this config file)
    # the deal; default random.  Typed or not, it is committed to with a secret random salt
    # (core.rng), so a small seed cannot be found from the start post.
    seed: int | None = None
    start: datetime
    players: list[PlayerConfig] = Field(default_factory=list)
    roles: dict[str, str] = Field(default_factory=dict)  # fixed roles, name -> role id or Chinese name
    substitutes: list[str] = Field(default_factory=list)  # the substitutes' forum accounts (替补)
    gm_contact: str | None = None  # the human GM's own forum account: tianshen PMs him what he should know


class RunConfig(BaseModel):
    poll_seconds: float = 60
    time_scale: float = 1.0  # memory board only: game hours per real hour
    simulate: bool = False  # memory board only: simulated players
    stop_when_over: bool = True
    outage_minutes: float = 30  # 003 §12.4: an outage longer than this extends the phase by its length
    late_window: Literal["extend", "none"] = "extend"  # issue 22 item 7: a window whose opening post came late
    late_window_minutes: float = 10  # ... later than this is extended by the time it was missing
    lease_seconds: float = 120  # a game is owned by one process this long past its last tick
    owner: str = ""  # this process's name in the leases (default host:pid)


class WebConfig(BaseModel):
    """`tianshen web`: the GM page's token (here or in the environment), where to listen,
    and how a forum post id becomes a link (default: from the forum's kind and base_url)."""

    token: SecretStr | None = None
    token_env: str | None = None
    host: str = "127.0.0.1"
    port: int = 8040
    post_url: str | None = None  # e.g. "https://bbs.example/t/{thread}#p{post}"
    thread_url: str | None = None  # e.g. "https://bbs.example/t/{thread}"

    def secret(self) -> str | None:
        if self.token_env:
            return os.environ.get(self.token_env) or None
        return self.token.get_secret_value() if self.token else None


class Config(BaseModel):
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
    game: GameConfig | list[GameConfig] | None = None
    run: RunConfig = Field(default_factory=RunConfig)
    web: WebConfig = Field(default_factory=WebConfig)


def load_config(path: str | Path) -> Config:
    config = Config.model_validate(read_toml(path))
    for game in config.games():
        game.ruleset = _beside(Path(path), game.ruleset)
    return config


def _beside(config_file: Path, ruleset: str) -> str:
    """A ruleset file named relative to the config file, as an absolute path; an id as is."""
    if not is_file_name(ruleset) or Path(ruleset).expanduser().is_absolute():
        return ruleset
    return str((config_file.parent / ruleset).resolve())
