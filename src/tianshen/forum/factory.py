"""Building the configured forum adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from tianshen.config import ForumConfig
from tianshen.forum.base import Forum
from tianshen.forum.memory import MemoryBoard


def make_forum(cfg: ForumConfig, clock: Callable[[], datetime]) -> tuple[Forum, MemoryBoard | None]:
    """The GM's adapter, and the board itself when it is the in-process one."""
    if cfg.kind == "memory":
        board = MemoryBoard(clock, gm_account=cfg.username, remembers_keys=cfg.remembers_keys,
                            users=cfg.users, pm_lag_s=cfg.pm_lag_seconds, pm_same_second=cfg.pm_same_second)
        return board.gm(), board
    if cfg.kind == "spirit":
        password = cfg.secret()
        if not cfg.base_url or not password:
            raise ValueError("forum kind 'spirit' needs base_url, username and password (or password_env)")
        from tianshen.forum.spirit import SpiritForum

        interval = 10.0 if cfg.flood_interval_s is None else cfg.flood_interval_s  # Spirit: 1 post / 10 s
        return SpiritForum(cfg.base_url, cfg.username, password, category=cfg.category,
                           min_write_interval_s=interval), None
    if cfg.kind == "discuz":
        password = cfg.secret()
        if not cfg.base_url or not password or not cfg.fid:
            raise ValueError("forum kind 'discuz' needs base_url, username, password (or password_env) and fid")
        from tianshen.forum.discuz import DiscuzForum

        return DiscuzForum(cfg.base_url, cfg.username, password, cfg.fid, api=cfg.api, charset=cfg.charset,
                           timezone=cfg.timezone, flood_interval_s=cfg.flood_interval_s), None
    if cfg.kind == "phpwind":
        password = cfg.secret()
        if not cfg.base_url or not password or not cfg.fid:
            raise ValueError("forum kind 'phpwind' needs base_url, username, password (or password_env) and fid")
        from tianshen.forum.phpwind import PhpwindForum

        return PhpwindForum(cfg.base_url, cfg.username, password, cfg.fid, timezone=cfg.timezone,
                            flood_interval_s=cfg.flood_interval_s), None
    raise ValueError(f"forum kind '{cfg.kind}' has no adapter yet; use \"memory\" or \"spirit\"")
