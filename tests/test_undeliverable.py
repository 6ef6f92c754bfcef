"""Issue 23 item 4: a player account missing at send time must not jam the outbox.

The board refuses that one PM for good (`Undeliverable`): it fails alone, every other message
goes on (the player list is posted), the gm_contact is PMed once, `admin status` lists it,
and `admin resend` sends it once the account exists — once."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.config import load_config
from tianshen.forum.base import Undeliverable
from tianshen.forum.memory import MemoryBoard
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers
from tianshen.store import Store

VESTS = "白狐 青竹 夜莺 孤舟 寒梅 石榴 墨鱼 飞燕".split()
ACCOUNTS = "alice bob carol dave erin frank grace heidi".split()
WIDE = {"COLUMNS": "240"}


def _config(tmp_path: Path, db: str, users: list[str]) -> Path:
    players = ", ".join(f'{{ name = "{v}", forum_name = "{a}" }}' for v, a in zip(VESTS, ACCOUNTS, strict=True))
    listed = ", ".join(f'"{u}"' for u in users)
    path = tmp_path / "c.toml"
    path.write_text(f'[database]\nurl = "{db}"\n[forum]\nkind = "memory"\nusers = [{listed}]\n'
                    f"[run]\ntime_scale = 1\npoll_seconds = 60\n"  # one tick sends all (its time budget)
                    f'[game]\nname = "spring"\nruleset = "classic_8"\nseed = 3\ngm_contact = "gm-human"\n'
                    f"start = 2026-01-01T20:00:00Z\nplayers = [{players}]\n", encoding="utf-8")
    return path


def _notices(board: MemoryBoard) -> list[str]:
    return [pm.text for pm in board.inbox("gm-human") if pm.subject.startswith("天神通报")]


def test_a_missing_account_fails_alone_the_gm_is_told_once_and_resend_delivers_it(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    users = [*VESTS, *ACCOUNTS, "gm-human"]
    users.remove("erin")  # 寒梅's own account is missing on the board
    path = _config(tmp_path, db, users)
    daemon = Daemon(load_config(path), players=DaemonPlayers())
    board = daemon.board
    assert board is not None
    daemon.tick()  # deals: 8 role PMs and the player list
    store = Store(db)
    game = store.list_games()[0]
    rows = store.outbox(game.id)
    failed = [r for r in rows if r.status == "failed"]
    assert [(r.target, r.kind) for r in failed] == [("erin", "pm")]
    assert "erin" in (failed[0].error or "")
    assert all(r.status == "sent" for r in rows if r.target != "erin" and r.target != "gm-human")
    assert any("游戏者名单" in title for _, title in board.threads())  # the player list went out
    assert sum(1 for a in ACCOUNTS if a != "erin" for _ in board.inbox(a)) == 7  # every other role PM
    for _ in range(3):
        daemon.tick()
    notices = _notices(board)
    assert len(notices) == 1, notices  # told once, not at every poll
    assert "erin" in notices[0] and "tianshen admin resend" in notices[0]

    status = CliRunner().invoke(app, ["admin", "status", "--db", db], env=WIDE)
    assert status.exit_code == 0, status.output
    assert "1 messages not delivered" in status.output and "PM to erin" in status.output, status.output
    assert "admin resend --game spring" in status.output, status.output

    board.register("erin")  # the GM had the account made
    resent = CliRunner().invoke(app, ["admin", "resend", "--db", db], env=WIDE)
    assert resent.exit_code == 0 and "1 messages queued again" in resent.output, resent.output
    for _ in range(3):
        daemon.tick()
    assert len(board.inbox("erin")) == 1  # delivered, once
    assert not store.failed_outbox(game.id) and not store.pending_outbox(game.id)
    assert len(_notices(board)) == 1
    quiet = CliRunner().invoke(app, ["admin", "status", "--db", db], env=WIDE)
    assert "not delivered" not in quiet.output, quiet.output
    store.close()


def test_a_transient_failure_still_stops_the_round_and_the_row_is_kept(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    daemon = Daemon(load_config(_config(tmp_path, db, [*VESTS, *ACCOUNTS, "gm-human"])), players=DaemonPlayers())
    assert daemon.board is not None
    daemon.board.fail_next(1, "send_pm")  # an outage, not a refusal
    daemon.tick()
    store = Store(db)
    game = store.list_games()[0]
    assert not store.failed_outbox(game.id)
    daemon.tick()
    assert all(r.status == "sent" for r in store.outbox(game.id))
    store.close()


def test_the_memory_board_refuses_an_unknown_recipient_and_the_gm_himself() -> None:
    from datetime import UTC, datetime

    board = MemoryBoard(lambda: datetime(2026, 1, 1, tzinfo=UTC), users=["alice"])
    gm = board.gm()
    gm.login()
    assert gm.user_exists("alice") and gm.user_exists("神的使者") and not gm.user_exists("alicee")
    gm.send_pm("alice", "s", "t", "k1")
    for to in ("alicee", "神的使者"):
        try:
            gm.send_pm(to, "s", "t", f"k-{to}")
        except Undeliverable:
            continue
        raise AssertionError(f"PM to {to} was accepted")
    assert MemoryBoard(lambda: datetime(2026, 1, 1, tzinfo=UTC)).gm().board.has_user("anyone")
