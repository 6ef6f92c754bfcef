"""Issue 23 items 3 and 4 on the real adapters' pages: does an account exist, does the game
board exist, and is a refused PM refused for good (`Undeliverable`) or for now.

Discuz over the recorded pages (`../shared/forums/`), with a page changed where the
recordings lack the state (a user or a board that does not exist); Spirit over a small
simulated forum that answers as Spirit 0.14's forms do (the live forum: test_spirit_accounts.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from forums.discuz_fixtures import json_page, load, make_forum, needs_recordings, x34_board, x35_board
from tianshen.cli import app
from tianshen.forum.base import ForumError, Undeliverable

WIDE = {"COLUMNS": "400"}


def _message_json(version: str, key: str) -> Callable[[httpx.Request], httpx.Response]:
    """A recorded mobile-API answer with another `Message` (the recordings have no such refusal)."""
    import json

    data = json.loads(load(version, "api-sendpm-ok.json")[2])

    def serve(request: httpx.Request) -> httpx.Response:
        copy = json.loads(json.dumps(data))
        copy["Variables"].pop("pmid", None)
        copy["Message"] = {"messageval": key, "messagestr": f"mobile:{key}"}
        return httpx.Response(200, json=copy)
    return serve


def _page_saying(version: str, text: str) -> Callable[[httpx.Request], httpx.Response]:
    """The recorded 「主题不存在」 showmessage page, saying `text` instead."""
    status, headers, body = load(version, "html-viewthread-nonexistent.html")
    charset = "gb18030" if version == "x3.4" else "utf-8"
    page = body.decode(charset).replace("抱歉，指定的主题不存在或已被删除或正在被审核", text).encode(charset)
    return lambda request: httpx.Response(200, headers=headers, content=page)


def _profile_page(version: str, name: str) -> Callable[[httpx.Request], httpx.Response]:
    """A logged-in PC page titled as Discuz titles a user's profile (「X的个人资料 - …」)."""
    page = load("x3.5", "html-index-loggedin.html")[2].decode("utf-8")
    start, end = page.index("<title>"), page.index("</title>")
    page = page[:start] + f"<title>{name}的个人资料 -  Discuz! Board" + page[end:]
    return lambda request: httpx.Response(200, headers={"Content-Type": "text/html; charset=utf-8"},
                                          content=page.encode("utf-8"))


@needs_recordings
@pytest.mark.parametrize("board_of", [x35_board, x34_board])
def test_discuz_mobile_api_says_which_users_exist(board_of) -> None:
    board = board_of()
    if board.version == "x3.5":
        board.api("GET", "profile", "api-profile-uid2.json", username="player1")  # recorded: space.username player1
    else:
        board.api("GET", "profile", json_page("x3.4", "api-profile.json", space={"uid": "3", "username": "player1"}),
                  username="player1")
    board.api("GET", "profile", _message_json(board.version, "space_does_not_exist"), username="playr1")
    forum = make_forum(board)
    forum.login()
    assert forum.user_exists("player1") is True
    assert forum.user_exists("playr1") is False


@needs_recordings
def test_discuz_pc_pages_say_which_users_exist() -> None:
    board = x35_board(api=False)
    board.on("GET", "home.php", _profile_page("x3.5", "狼人甲"), mod="space", username="狼人甲")
    board.on("GET", "home.php", _page_saying("x3.5", "抱歉，您指定的用户空间不存在"), mod="space", username="狼人乙")
    board.on("GET", "home.php", _page_saying("x3.5", "抱歉，您需要先登录"), mod="space", username="谁")
    forum = make_forum(board, api="html")
    forum.login()
    assert forum.user_exists("狼人甲") is True
    assert forum.user_exists("狼人乙") is False
    with pytest.raises(ForumError):  # neither a profile nor 「不存在」: the board could not say
        forum.user_exists("谁")


@needs_recordings
@pytest.mark.parametrize("api", [True, False])
def test_discuz_board_check_names_the_board_or_the_fid_to_fix(api: bool) -> None:
    board = x35_board(api=api)
    forum = make_forum(board, **({} if api else {"api": "html"}))
    forum.login()
    assert forum.check_board() == "杀人游戏 (fid 3)"  # the recorded board list, API and PC
    wrong = x35_board(api=api)
    wrong.api("GET", "forumdisplay", _message_json("x3.5", "forum_nonexistence"))
    wrong.on("GET", "forum.php", _page_saying("x3.5", "抱歉，指定的版块不存在"), mod="forumdisplay")
    forum = make_forum(wrong, **({} if api else {"api": "html"}))
    with pytest.raises(ForumError, match=r"no forum fid=3 .*(set|fix) `fid`"):
        forum.login()  # the mobile API's login reads the board already (and fails there)
        forum.check_board()


@needs_recordings
def test_discuz_refusals_for_good_and_for_now() -> None:
    board = x35_board()
    board.api("POST", "sendpm", _message_json("x3.5", "message_bad_touser"), form={"username": "nobody"})
    board.api("POST", "sendpm", "api-error-pm-flood.json", form={"username": "player4"})
    forum = make_forum(board, flood_retries=0)
    forum.login()
    with pytest.raises(Undeliverable, match="message_bad_touser"):
        forum.send_pm("nobody", "主题", "正文", "k1")
    with pytest.raises(ForumError) as flood:  # the flood control: tried again later, not for good
        forum.send_pm("player4", "主题", "正文", "k2")
    assert not isinstance(flood.value, Undeliverable)
    pc = x35_board(api=False)
    refused = ('<?xml version="1.0" encoding="utf-8"?>\n<root><![CDATA[抱歉，用户不存在或被冻结，请检查用户名是否正确'
               '<script type="text/javascript" reload="1">if(typeof errorhandle_pmform_0==\'function\') '
               "{errorhandle_pmform_0('抱歉，用户不存在或被冻结，请检查用户名是否正确', {});}</script>]]></root>")
    pc.on("POST", "home.php", lambda r: httpx.Response(200, text=refused, headers={"Content-Type": "text/xml"}),
          mod="spacecp", ac="pm")
    forum = make_forum(pc, api="html")
    forum.login()
    with pytest.raises(Undeliverable, match="用户不存在"):
        forum.send_pm("nobody", "主题", "正文", "k3")


@needs_recordings
def test_forum_check_on_discuz_catches_a_wrong_fid_and_a_missing_vest(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    board = x35_board(api=False)  # the PC pages (the mobile API's login would refuse fid=4 already)
    board.on("GET", "forum.php", _page_saying("x3.5", "抱歉，指定的版块不存在"), mod="forumdisplay", fid="4")
    board.on("GET", "home.php", _page_saying("x3.5", "抱歉，您指定的用户空间不存在"), mod="space", do="profile")
    board.on("GET", "home.php", _profile_page("x3.5", "player1"), mod="space", do="profile", username="player1")

    def forum(cfg, clock):
        from tianshen.forum.discuz import DiscuzForum

        return DiscuzForum(board.base_url, "mafiagm", "gm123456", cfg.fid, api="html",
                           transport=board.transport()), None
    monkeypatch.setattr("tianshen.forum.factory.make_forum", forum)
    config = tmp_path / "config.toml"
    players = ", ".join('{ name = "player1" }' if i == 0 else f'{{ name = "马甲{i}" }}' for i in range(8))

    def check(fid: int) -> list[str]:
        config.write_text('[forum]\nkind = "discuz"\nbase_url = "http://127.0.0.1:18080/"\nusername = "mafiagm"\n'
                          f'password = "gm123456"\nfid = {fid}\n[game]\nname = "g"\nruleset = "classic_8"\n'
                          f"start = 2026-01-01T20:00:00Z\nplayers = [{players}]\n", encoding="utf-8")
        result = CliRunner().invoke(app, ["forum", "check", "--config", str(config)], env=WIDE)
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        return [ln.strip() for ln in result.output.splitlines() if ln.strip().startswith("✘")]

    # a wrong fid: Discuz's login reads the board already, and says which key to fix
    assert check(4) == ["✘ log in as mafiagm: the board has no forum fid=4 (抱歉，指定的版块不存在); fix `fid` in the config"]
    errors = check(3)  # the board is right; 7 马甲 are no accounts
    assert len(errors) == 7 and all("马甲" in e and "is no account on the forum" in e for e in errors), errors
    assert errors[0].startswith(f"✘ {config}: [game] players #2 (马甲1) name: the 马甲 '马甲1'")


# ---- Spirit: a simulated forum answering as Spirit 0.14's forms do --------------------------------


def _spirit(users: set[str], categories: list[tuple[str, str]]) -> httpx.MockTransport:
    def page(body: str) -> str:
        return f'<html><body><a href="/user/logout/">out</a>{body}</body></html>'

    def field(name: str, label: str, errors: list[str], value: str = "") -> str:
        listed = "".join(f"<li>{e}</li>" for e in errors)
        return (f'<div class="field"><label for="id_{name}">{label}:</label>'
                + (f'<ul class="errorlist">{listed}</ul>' if errors else "")
                + f'<input type="text" name="{name}" value="{value}" id="id_{name}"></div>')

    def handle(request: httpx.Request) -> httpx.Response:
        html = {"Content-Type": "text/html; charset=utf-8"}
        path = request.url.path
        if path == "/user/login/" and request.method == "GET":
            return httpx.Response(200, headers={**html, "Set-Cookie": "csrftoken=t; Path=/"},
                                  text='<input name="csrfmiddlewaretoken" value="t">')
        if path == "/user/login/":
            return httpx.Response(302, headers={"Location": "/user/", "Set-Cookie": "sessionid=s; Path=/"})
        if path == "/user/":
            return httpx.Response(200, headers=html, text=page('<a data-related=".js-user-content">神的使者</a>'))
        if path == "/topic/publish/":
            options = "".join(f'<option value="{v}">{t}</option>' for t, v in categories)
            return httpx.Response(200, headers=html, text=page(
                f'<select name="category"><option value="">---------</option>{options}</select>'))
        if path == "/topic/private/":  # the GM has no private topic yet
            return httpx.Response(200, headers=html, text=page(""))
        if path == "/topic/private/publish/" and request.method == "POST":
            form = dict(httpx.QueryParams(request.content.decode()))
            name = form.get("users", "")
            bad = [f"Select a valid choice. {name} is not one of the available choices."] if name not in users else []
            body = (field("title", "Title", ["This field is required."] if not form.get("title") else [])
                    + field("users", "Invite users", bad, name)
                    + field("comment", "Comment", ["This field is required."] if not form.get("comment") else []))
            if bad or not form.get("title") or not form.get("comment"):
                return httpx.Response(200, headers=html, text=page(f'<form action="." method="post">{body}</form>'))
            return httpx.Response(302, headers={"Location": "/topic/private/9/x/"})
        return httpx.Response(404, headers=html, text="no")

    def dated(request: httpx.Request) -> httpx.Response:
        response = handle(request)
        response.headers["Date"] = format_datetime(datetime.now(UTC), usegmt=True)
        return response
    return httpx.MockTransport(dated)


def _spirit_forum(category: str | None, users: set[str] = frozenset({"alice"})):
    from tianshen.forum.spirit import SpiritForum

    transport = _spirit(set(users), [("Uncategorized", "2"), ("杀人游戏", "3"), ("闲聊", "4")])
    forum = SpiritForum("http://spirit.test", "神的使者", "pw", category=category, min_write_interval_s=0,
                        client=httpx.Client(transport=transport))
    forum.login()
    return forum


def test_spirit_board_check_finds_the_category_by_title_or_id_and_names_a_typo() -> None:
    assert _spirit_forum("杀人游戏").check_board() == "杀人游戏 (category 3)"
    assert _spirit_forum("3").check_board() == "杀人游戏 (category 3)"
    for wrong in ("杀人游戲", "7"):
        with pytest.raises(ForumError, match=r"not on the forum .*杀人游戏 \(3\).*set `category`"):
            _spirit_forum(wrong).check_board()


def test_spirit_user_lookup_and_a_pm_to_no_user_is_refused_for_good() -> None:
    forum = _spirit_forum("杀人游戏")
    assert forum.user_exists("alice") is True
    assert forum.user_exists("alicee") is False
    with pytest.raises(Undeliverable, match="no such user"):
        forum.send_pm("alicee", "主题", "正文", "k1")


def test_forum_check_on_spirit_catches_a_misspelt_category(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tianshen.forum.factory.make_forum", lambda cfg, clock: (_spirit_forum(cfg.category), None))
    config = tmp_path / "config.toml"
    config.write_text('[forum]\nkind = "spirit"\nbase_url = "http://spirit.test/"\npassword = "pw"\n'
                      'category = "杀人游戲"\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["forum", "check", "--config", str(config)], env=WIDE)
    assert result.exit_code == 1, result.output
    errors = [ln.strip() for ln in result.output.splitlines() if ln.strip().startswith("✘")]
    assert len(errors) == 1 and errors[0].startswith(f"✘ {config}: [forum] category: the game category '杀人游戲' "
                                                     "is not on the forum"), result.output
    assert "杀人游戏 (3)" in errors[0] and "set `category` in the config" in errors[0]
    config.write_text(config.read_text(encoding="utf-8").replace("杀人游戲", "杀人游戏"), encoding="utf-8")
    fixed = CliRunner().invoke(app, ["forum", "check", "--config", str(config)], env=WIDE)
    assert fixed.exit_code == 0 and "✔ game board: 杀人游戏 (category 3)" in fixed.output, fixed.output
