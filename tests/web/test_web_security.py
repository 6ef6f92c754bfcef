"""The GM login, the throttle, the headers and bad game ids (issue 25 items 14-18), with
Starlette's test client."""

from __future__ import annotations

import logging
import time

import pytest
from starlette.testclient import TestClient
from web_game import TOKEN, at_vote, play_until

from tianshen.store import Store
from tianshen.web.app import COOKIE, WebSettings, create_app

HEADERS = {"content-security-policy": "default-src 'self'; frame-ancestors 'none'",
           "x-content-type-options": "nosniff", "referrer-policy": "same-origin"}


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory):
    db = tmp_path_factory.mktemp("sec") / "g.db"
    return play_until(f"sqlite:///{db}", "classic_8", 3, at_vote(1))


def client(running, **settings) -> TestClient:
    return TestClient(create_app(running.store, WebSettings(token=TOKEN, **settings)), follow_redirects=False)


def login(c: TestClient, token: str = TOKEN, next_path: str = "/", **headers: str):
    return c.post("/login", data={"token": token, "next": next_path}, headers=headers)


def gm_url(running, fragment: bool = False) -> str:
    return f"/game/{running.driver.game_id}/gm" + ("/fragment" if fragment else "")


# ---- item 15: login by POST, a signed session, logout ----------------------------------------


def test_login_by_post_sets_a_signed_session_not_the_token(running) -> None:
    c = client(running)
    r = login(c, next_path=gm_url(running))
    assert r.status_code == 303 and r.headers["location"] == gm_url(running)
    cookie = r.headers["set-cookie"]
    value = c.cookies[COOKIE]
    assert TOKEN not in cookie and TOKEN not in value and len(value) > 30
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Max-Age=43200" in cookie
    assert "Secure" not in cookie  # plain http, secure_cookie off
    assert c.get(gm_url(running)).status_code == 200
    assert c.get(gm_url(running, fragment=True)).status_code == 200


def test_the_cookie_is_secure_behind_https(running) -> None:
    for c in (client(running, secure_cookie=True),
              TestClient(create_app(running.store, WebSettings(token=TOKEN)), base_url="https://gm.example",
                         follow_redirects=False)):
        assert "Secure" in login(c).headers["set-cookie"]


def test_a_token_in_the_url_never_logs_in_nor_sets_a_cookie(running) -> None:
    c = client(running)
    for url in (gm_url(running) + f"?token={TOKEN}", f"/login?token={TOKEN}", f"/?token={TOKEN}"):
        r = c.get(url)
        assert "set-cookie" not in r.headers, url
    assert c.get(gm_url(running) + f"?token={TOKEN}").status_code == 401
    # a valid Bearer beside an attacker's ?token= : the page, and no cookie at all
    r = c.get(gm_url(running) + "?token=attacker-chosen", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200 and "set-cookie" not in r.headers and not c.cookies


def test_the_login_form_posts_and_has_no_token_in_its_action(running) -> None:
    r = client(running).get(gm_url(running))
    assert r.status_code == 401
    assert '<form method="post" action="/login"' in r.text
    assert f'name="next" value="{gm_url(running)}"' in r.text


def test_forged_tampered_and_token_cookies_are_refused(running) -> None:
    c = client(running)
    login(c)
    good = c.cookies[COOKIE]
    for value in (TOKEN, "attacker-chosen", good[:-2] + ("AA" if not good.endswith("AA") else "BB"), good + "x"):
        other = client(running)
        other.cookies.set(COOKIE, value)
        assert other.get(gm_url(running)).status_code == 401, value
    other = client(running)
    other.cookies.set(COOKIE, good)
    assert other.get(gm_url(running)).status_code == 200


def test_a_session_expires(running, monkeypatch) -> None:
    c = client(running, session_hours=1)
    login(c)
    assert c.get(gm_url(running)).status_code == 200
    later = time.time() + 3601
    monkeypatch.setattr(time, "time", lambda: later)
    assert c.get(gm_url(running)).status_code == 401


def test_another_token_ends_old_sessions(running) -> None:
    c = client(running)
    login(c)
    cookie = c.cookies[COOKIE]
    c2 = TestClient(create_app(running.store, WebSettings(token=TOKEN + "-new")), follow_redirects=False)
    c2.cookies.set(COOKIE, cookie)
    assert c2.get(gm_url(running)).status_code == 401


def test_a_session_secret_signs_instead_of_the_token(running) -> None:
    a, b = client(running, session_secret="s" * 32), client(running, session_secret="t" * 32)
    login(a)
    b.cookies.set(COOKIE, a.cookies[COOKIE])
    assert a.get(gm_url(running)).status_code == 200 and b.get(gm_url(running)).status_code == 401


def test_logout_clears_and_revokes_the_session(running) -> None:
    c = client(running)
    login(c)
    cookie = c.cookies[COOKIE]
    page = c.get(gm_url(running))
    assert 'action="/logout"' in page.text
    r = c.post("/logout")
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert f'{COOKIE}=""' in r.headers["set-cookie"] and "Max-Age=0" in r.headers["set-cookie"]
    assert c.get(gm_url(running)).status_code == 401
    # the old cookie, kept by someone: revoked on this server
    assert TestClient(c.app, cookies={COOKIE: cookie}).get(gm_url(running)).status_code == 401


def test_login_goes_only_to_a_path_of_this_site(running) -> None:
    for target, lands in (("//evil.example/x", "/"), ("https://evil.example", "/"), ("/\\evil.example", "/"),
                          ("/game/1/gm", "/game/1/gm"), ("", "/"), ("/a?b=<x>", "/")):
        assert login(client(running), next_path=target).headers["location"] == lands, target


def test_a_login_posted_from_another_site_is_refused(running) -> None:
    c = client(running)
    for headers in ({"origin": "https://evil.example"}, {"sec-fetch-site": "cross-site"},
                    {"sec-fetch-site": "same-site", "origin": "https://other.testserver"}):
        r = login(c, **headers)
        assert r.status_code == 403 and COOKIE not in c.cookies, headers
    # behind a proxy that rewrites Host: the browser's own word, or the forwarded host
    assert login(c, origin="https://gm.example", **{"sec-fetch-site": "same-origin"}).status_code == 303
    assert login(client(running), origin="https://gm.example", **{"x-forwarded-host": "gm.example"}).status_code == 303
    assert login(client(running), origin="http://testserver").status_code == 303
    r = client(running).post("/login", content=b"token=" + b"x" * 10_000,
                             headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413


def test_a_wrong_token_is_403_and_sets_nothing(running) -> None:
    c = client(running)
    r = login(c, token="x" * 20)
    assert r.status_code == 403 and "口令不对" in r.text and "set-cookie" not in r.headers


def test_a_short_token_is_refused(running, tmp_path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from tianshen.cli import app

    with pytest.raises(ValueError, match="at least 16"):
        create_app(running.store, WebSettings(token="short-token"))
    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "{running.store.engine.url}"\n[web]\ntoken = "fifteen-chars-x"\n',
                      encoding="utf-8")
    result = CliRunner().invoke(app, ["web", "--config", str(config)])
    assert result.exit_code == 2
    assert "15 characters" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


# ---- item 14: a refused poll says why ----------------------------------------------------------


def test_a_refused_fragment_answers_json_the_page_can_show(running) -> None:
    c = client(running)
    r = c.get(gm_url(running, fragment=True))
    assert r.status_code == 401 and r.headers["content-type"] == "application/json"
    assert r.json() == {"error": "登录已过期，请重新登录", "login": f"/login?next=%2Fgame%2F{running.driver.game_id}%2Fgm"}
    r = c.get(gm_url(running, fragment=True), headers={"Authorization": "Bearer wrong-token-0123456"})
    assert r.status_code == 403 and r.json()["error"]


# ---- item 16: the throttle ----------------------------------------------------------------------


def test_failed_logins_are_throttled_per_client(running) -> None:
    c = client(running)
    throttle = c.app.state.throttle
    clock = [1000.0]
    throttle.now = lambda: clock[0]
    for _ in range(5):
        assert login(c, token="y" * 20).status_code == 403
    r = login(c)  # even the right token waits now
    assert r.status_code == 429 and int(r.headers["retry-after"]) == 60 and "尝试次数太多" in r.text
    r = c.get(gm_url(running), headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 429
    other = TestClient(c.app, client=("10.0.0.9", 4000), follow_redirects=False)
    assert login(other).status_code == 303  # another client is not held up
    clock[0] += 61
    assert login(c).status_code == 303


def test_wrong_bearer_tokens_count_as_failed_logins(running) -> None:
    c = client(running, login_tries=3)
    c.app.state.throttle.now = lambda: 5.0
    for _ in range(3):
        assert c.get(gm_url(running), headers={"Authorization": "Bearer " + "z" * 20}).status_code == 403
    assert c.get(gm_url(running, fragment=True), headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 429


def test_200_guesses_get_nowhere(running) -> None:
    c = client(running)
    codes = [login(c, token=f"guess-{i:04d}-abcdefghij").status_code for i in range(200)]
    assert codes.count(403) == 5 and codes.count(429) == 195


# ---- item 17: headers ---------------------------------------------------------------------------


def test_every_response_carries_the_security_headers(running) -> None:
    c = client(running)
    gid = running.driver.game_id
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    responses = [c.get("/"), c.get(f"/game/{gid}"), c.get(f"/game/{gid}/fragment"), c.get(gm_url(running)),
                 c.get(gm_url(running, fragment=True)), c.get(gm_url(running), headers=bearer),
                 c.get("/static/live.js"), c.get("/favicon.ico"), c.get("/login"), login(c, token="w" * 20),
                 login(c), c.post("/logout"), c.get("/game/01"), c.get("/nothing/here"), c.put("/login")]
    for r in responses:
        for name, value in HEADERS.items():
            assert r.headers.get(name) == value, (r.request.url, name)
        assert "server" not in r.headers


def test_uvicorn_sends_no_server_banner(running) -> None:
    import httpx
    from web_game import Server

    with Server(create_app(running.store, WebSettings(token=TOKEN))) as srv:
        r = httpx.get(srv.url + "/")
    assert r.status_code == 200 and "server" not in r.headers
    assert r.headers["content-security-policy"] == HEADERS["content-security-policy"]


# ---- item 18: bad game ids, the favicon -------------------------------------------------------


BAD_IDS = ["01", "0", "-1", "abc", "1e3", "1.0", "9" * 30, "2147483648", "%EF%BC%91", "1%20", "0x1"]


@pytest.mark.parametrize("suffix", ["", "/fragment", "/gm", "/gm/fragment"])
def test_a_bad_game_id_is_a_quiet_404(running, suffix: str, caplog) -> None:
    c = client(running)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with caplog.at_level(logging.DEBUG):
        for raw in BAD_IDS + ["999999"]:
            r = c.get(f"/game/{raw}{suffix}", headers=bearer)
            assert r.status_code == 404, raw
            assert "没有这个页面" in r.text
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR or rec.exc_info]


def test_a_bad_game_id_on_postgresql_too(tmp_path) -> None:
    import os

    url = os.environ.get("TIANSHEN_TEST_DATABASE_URL")
    if not url:
        pytest.skip("TIANSHEN_TEST_DATABASE_URL is not set")
    store = Store(url)
    store.upgrade()
    c = TestClient(create_app(store, WebSettings(token=TOKEN)))
    for raw in ("2147483647", "2147483648", "9" * 30):
        assert c.get(f"/game/{raw}", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404
        assert c.get(f"/game/{raw}/gm", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_the_favicon_is_served(running) -> None:
    r = client(running).get("/favicon.ico")
    assert r.status_code == 200 and r.content[:4] == b"\x00\x00\x01\x00" and len(r.content) > 100
    assert r.headers["content-type"] in ("image/x-icon", "image/vnd.microsoft.icon")


def test_the_web_command_passes_the_session_settings(running, tmp_path, monkeypatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from tianshen.cli import app

    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "{running.store.engine.url}"\n[web]\ntoken_env = "WEB_T"\n'
                      f'session_secret_env = "WEB_S"\nsecure_cookie = true\nsession_hours = 2\ncache_seconds = 3\n',
                      encoding="utf-8")
    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app_, **kw: served.update(app=app_, **kw))
    monkeypatch.setenv("WEB_T", TOKEN)
    monkeypatch.setenv("WEB_S", "a-session-secret-of-the-gm")
    result = CliRunner().invoke(app, ["web", "--config", str(config)])
    assert result.exit_code == 0, result.output
    web = served["app"]
    assert web.state.pages.ttl_s == 3
    c = TestClient(web, follow_redirects=False)
    cookie = login(c).headers["set-cookie"]
    assert "Secure" in cookie and "Max-Age=7200" in cookie
    other = client(running, session_secret="a-session-secret-of-the-gm")
    other.cookies.set(COOKIE, c.cookies[COOKIE])  # signed with the configured secret, not the token
    assert other.get(gm_url(running)).status_code == 200


# ---- issue 38 item 3: a board's own row is no game; a 500 carries the headers too ----------------


@pytest.mark.parametrize("suffix", ["", "/fragment", "/gm", "/gm/fragment", "/record.json", "/day/1"])
def test_a_boards_own_row_is_a_quiet_404(running, suffix: str, caplog) -> None:
    board_row = running.store.board_game("memory:page-test")
    c = client(running)
    with caplog.at_level(logging.DEBUG):
        r = c.get(f"/game/{board_row}{suffix}", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 404
    for name, value in HEADERS.items():
        assert r.headers.get(name) == value, name
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR or rec.exc_info]


def test_a_server_error_carries_the_security_headers(running, monkeypatch) -> None:
    import tianshen.web.app as web_app

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(web_app, "_public_context", broken)
    c = TestClient(create_app(running.store, WebSettings(token=TOKEN)), raise_server_exceptions=False)
    r = c.get(f"/game/{running.driver.game_id}")
    assert r.status_code == 500 and "出错了" in r.text and "a bug" not in r.text
    for name, value in HEADERS.items():
        assert r.headers.get(name) == value, name


# ---- issue 38 item 8: the throttle counts the peer unless a trusted proxy is configured --------


def _served_by_the_web_command(running, tmp_path, monkeypatch, extra: str = "") -> dict:
    import uvicorn
    from typer.testing import CliRunner

    from tianshen.cli import app

    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "{running.store.engine.url}"\n[web]\ntoken_env = "WEB_T"\n{extra}',
                      encoding="utf-8")
    served: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app_, **kw: served.update(app=app_, **kw))
    monkeypatch.setenv("WEB_T", TOKEN)
    result = CliRunner().invoke(app, ["web", "--config", str(config)])
    assert result.exit_code == 0, result.output
    return served


def _wrong_logins_with_rotating_forwarded_for(served: dict, n: int) -> list[int]:
    """`n` wrong tokens POSTed to a real uvicorn, as the web command starts it, each with
    another X-Forwarded-For."""
    import socket
    import threading

    import httpx
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kw = {k: v for k, v in served.items() if k not in ("app", "host", "port")}
    server = uvicorn.Server(uvicorn.Config(served["app"], host="127.0.0.1", port=port, **kw))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        return [httpx.post(f"http://127.0.0.1:{port}/login", data={"token": "w" * 20, "next": "/"},
                           headers={"X-Forwarded-For": f"10.9.{i // 250}.{i % 250 + 1}"}).status_code
                for i in range(n)]
    finally:
        server.should_exit = True
        thread.join(5)


def test_a_rotated_forwarded_for_does_not_get_past_the_throttle(running, tmp_path, monkeypatch) -> None:
    served = _served_by_the_web_command(running, tmp_path, monkeypatch)
    codes = _wrong_logins_with_rotating_forwarded_for(served, 30)
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(running, tmp_path, monkeypatch) -> None:
    served = _served_by_the_web_command(running, tmp_path, monkeypatch, 'trusted_proxies = ["127.0.0.1"]\n')
    assert served["proxy_headers"] is True and served["forwarded_allow_ips"] == "127.0.0.1"
    assert _wrong_logins_with_rotating_forwarded_for(served, 8) == [403] * 8  # eight clients, one try each


def test_a_logout_survives_a_restart_of_the_web_process(running) -> None:
    c = client(running)
    login(c)
    cookie = c.cookies[COOKIE]
    assert c.post("/logout").status_code == 303
    restarted = TestClient(create_app(running.store, WebSettings(token=TOKEN)), cookies={COOKIE: cookie})
    assert restarted.get(gm_url(running)).status_code == 401
    fresh = client(running)
    login(fresh)
    assert fresh.get(gm_url(running)).status_code == 200  # another login is not touched
