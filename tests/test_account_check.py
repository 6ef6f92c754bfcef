"""Issue 23 item 3: `tianshen forum check` and `admin new-game` check the whole [game]
before the deal: the game board, every player's account, every 马甲 (the account the player
PMs from), every substitute and the gm_contact exist; no two seats share an account and none
is the GM's own.  Every failure is one line naming the seat or key and the fix."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.config import load_config
from tianshen.service.accounts import static_problems
from tianshen.store import Store

VESTS = "白狐 青竹 夜莺 孤舟 寒梅 石榴 墨鱼 飞燕".split()
ACCOUNTS = "alice bob carol dave erin frank grace heidi".split()
WIDE = {"COLUMNS": "400"}


def _players(vests: list[str], accounts: list[str]) -> str:
    return ", ".join(f'{{ name = "{v}", forum_name = "{a}" }}' for v, a in zip(vests, accounts, strict=True))


def _config(tmp_path: Path, *, users: list[str] | None, vests: list[str] = VESTS, accounts: list[str] = ACCOUNTS,
            substitutes: tuple[str, ...] = ("kate",), gm_contact: str = "gm-human", games: int = 1) -> Path:
    forum = '[forum]\nkind = "memory"\n'
    if users is not None:
        forum += "users = [" + ", ".join(f'"{u}"' for u in users) + "]\n"
    subs = ", ".join(f'"{s}"' for s in substitutes)
    tables = "".join(
        f'[{"[game]" if games > 1 else "game"}]\nname = "g{i}"\nruleset = "classic_8"\nseed = 3\n'
        f'gm_contact = "{gm_contact}"\nsubstitutes = [{subs}]\nstart = 2099-01-01T20:00:00Z\n'
        f"players = [{_players(vests, accounts)}]\n" for i in range(games))
    path = tmp_path / "c.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{(tmp_path / "g.db").as_posix()}"\n{forum}{tables}',
                    encoding="utf-8")
    return path


ALL = [*VESTS, *ACCOUNTS, "kate", "gm-human"]


def _without(*names: str) -> list[str]:
    return [u for u in ALL if u not in names]


def _check(path: Path):
    return CliRunner().invoke(app, ["forum", "check", "--config", str(path)], env=WIDE)


def _errors(output: str) -> list[str]:
    return [ln.strip() for ln in output.splitlines() if ln.strip().startswith("✘")]


def test_forum_check_passes_a_whole_game_whose_accounts_all_exist(tmp_path: Path) -> None:
    result = _check(_config(tmp_path, users=ALL))
    assert result.exit_code == 0, result.output
    assert "✔ game board: 杀人游戏" in result.output
    assert "✔ accounts of 1 game(s): 18 exist" in result.output, result.output


def test_forum_check_names_each_missing_account_with_its_seat_and_fix(tmp_path: Path) -> None:
    result = _check(_config(tmp_path, users=_without("寒梅", "bob", "kate", "gm-human")))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    errors = _errors(result.output)
    assert len(errors) == 4, result.output
    vest, account, sub, contact = (next(e for e in errors if key in e) for key in
                                   ("players #5 (寒梅) name", "players #2 (青竹) forum_name", "substitutes",
                                    "gm_contact"))
    assert "马甲 '寒梅' is no account" in vest and "PM tianshen from this account" in vest and "register" in vest
    assert "'bob'" in account and "role PM" in account and "fix forum_name" in account
    assert "'kate'" in sub and "fix the name" in sub
    assert "'gm-human'" in contact and "fix gm_contact" in contact
    assert all(e.count(str(tmp_path / "c.toml")) == 1 and "[game]" in e for e in errors)


def test_forum_check_refuses_shared_accounts_and_the_gms_own(tmp_path: Path) -> None:
    vests = [*VESTS[:7], "神的使者"]  # the last seat's 马甲 is the GM account itself
    accounts = [*ACCOUNTS[:3], "alice", *ACCOUNTS[4:]]  # seat 4's account is seat 1's
    result = _check(_config(tmp_path, users=None, vests=vests, accounts=accounts, substitutes=("bob",),
                            gm_contact="神的使者"))
    assert result.exit_code == 1, result.output
    errors = _errors(result.output)
    assert any("players #4 (孤舟) forum_name 'alice' is also the account of seat #1 (白狐)" in e
               and "give each seat its own" in e for e in errors), errors
    assert any("players #8 (神的使者) name '神的使者' is the GM's own account ([forum] username" in e for e in errors)
    assert any("substitutes 'bob' is the account of seat #2 (青竹)" in e for e in errors), errors
    assert any("gm_contact '神的使者' is the GM's own account" in e and "human GM's own account" in e for e in errors)
    assert len(errors) == 4, errors


def test_static_problems_name_the_game_table_of_several(tmp_path: Path) -> None:
    path = _config(tmp_path, users=None, games=2, accounts=[*ACCOUNTS[:7], "白狐"])
    problems = static_problems(str(path), load_config(path))
    assert len(problems) == 2
    assert problems[0].startswith(f"{path}: [[game]] #1 players #8 (飞燕) forum_name '白狐'")
    assert problems[1].startswith(f"{path}: [[game]] #2 ")


def test_new_game_runs_the_check_and_signs_nothing_up_when_it_fails(tmp_path: Path) -> None:
    bad = CliRunner().invoke(app, ["admin", "new-game", "--config", str(_config(tmp_path, users=_without("寒梅")))],
                             env=WIDE)
    assert bad.exit_code == 2, bad.output
    assert "Traceback" not in bad.output
    assert "players #5 (寒梅) name" in bad.output and "nothing was signed up" in bad.output
    assert not (tmp_path / "g.db").exists()  # checked before the database is made
    good = CliRunner().invoke(app, ["admin", "new-game", "--config", str(_config(tmp_path, users=ALL))], env=WIDE)
    assert good.exit_code == 0, good.output
    assert "forum check: game board 杀人游戏 and 18 accounts exist" in good.output
    assert "signed up" in good.output
    assert [g.name for g in Store(f"sqlite:///{(tmp_path / 'g.db').as_posix()}").list_games()] == ["g0"]


def test_new_game_refuses_a_shared_account_without_a_forum(tmp_path: Path) -> None:
    path = _config(tmp_path, users=None, accounts=[*ACCOUNTS[:7], "alice"])
    result = CliRunner().invoke(app, ["admin", "new-game", "--config", str(path)], env=WIDE)
    assert result.exit_code == 2 and "also the account of seat #1 (白狐)" in result.output, result.output


def test_new_game_warns_and_proceeds_when_the_forum_cannot_be_reached(tmp_path: Path) -> None:
    path = _config(tmp_path, users=None)
    text = path.read_text(encoding="utf-8").replace(
        '[forum]\nkind = "memory"\n',
        '[forum]\nkind = "spirit"\nbase_url = "http://127.0.0.1:9/"\npassword = "x"\ncategory = "杀人游戏"\n')
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["admin", "new-game", "--config", str(path)], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "warning: the forum at http://127.0.0.1:9/ could not be reached" in result.output, result.output
    assert "tianshen forum check --config" in result.output and "signed up" in result.output


def test_run_refuses_to_sign_up_a_game_with_a_shared_account(tmp_path: Path) -> None:
    path = _config(tmp_path, users=None, accounts=[*ACCOUNTS[:7], "alice"])
    result = CliRunner().invoke(app, ["run", "--config", str(path)], env=WIDE)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "game 'g0' players #8 (飞燕) forum_name 'alice' is also the account of seat #1 (白狐)" in result.output


class _RefusingForum:
    """A forum whose login fails as a wrong password does."""

    markup, max_post_chars = "bbcode", None

    def login(self) -> None:
        from tianshen.forum.base import LoginRefused

        raise LoginRefused("login as '神的使者' at http://forum.test failed (wrong password)")


def test_new_game_refuses_when_the_forum_refuses_the_login(tmp_path: Path, monkeypatch) -> None:
    """Issue 32 item 7: a wrong password is said as such (not "could not be reached"), and
    nothing is signed up (rc ≠ 0) unless --no-check."""
    import tianshen.forum.factory

    monkeypatch.setattr(tianshen.forum.factory, "make_forum", lambda cfg, now: (_RefusingForum(), None))
    path = _config(tmp_path, users=ALL)
    bad = CliRunner().invoke(app, ["admin", "new-game", "--config", str(path)], env=WIDE)
    assert bad.exit_code == 2, bad.output
    assert "refused the GM's login" in bad.output and "wrong password" in bad.output, bad.output
    assert "could not be reached" not in bad.output and "nothing was signed up" in bad.output
    assert "--no-check" in bad.output and len(bad.output.strip().splitlines()) == 1, bad.output
    assert not (tmp_path / "g.db").exists()
    forced = CliRunner().invoke(app, ["admin", "new-game", "--config", str(path), "--no-check"], env=WIDE)
    assert forced.exit_code == 0 and "signed up" in forced.output and "not checked" in forced.output, forced.output


def test_forum_check_says_nothing_of_the_forum_after_a_failed_login(tmp_path: Path, monkeypatch) -> None:
    """Issue 32 item 9: no `markup … post cap` line after the login failed."""
    import tianshen.forum.factory

    monkeypatch.setattr(tianshen.forum.factory, "make_forum", lambda cfg, now: (_RefusingForum(), None))
    result = _check(_config(tmp_path, users=ALL))
    assert result.exit_code == 1 and "✘ log in as" in result.output, result.output
    assert "post cap" not in result.output and "markup" not in result.output, result.output
