"""Issue 38, the GM page cached like the public ones: rendered once per change of the game
(its signature: newest event, outbox, stored inputs, clock mark), served from memory to a
GM otherwise, and never to anyone who did not pass the login check."""

from __future__ import annotations

import re
import warnings

import pytest
from web_game import TOKEN, at_vote, play_until, vote

import tianshen.web.app as web_app
from tianshen.store import OutboxItem
from tianshen.web.app import UNSET_NOW, WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

BEARER = {"Authorization": f"Bearer {TOKEN}"}
SECRET = "身份（秘密）"  # the GM page's roles: on no other page


@pytest.fixture
def made(tmp_path, monkeypatch):
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    renders: list[int] = []
    real = web_app._gm_context

    def counting(store, settings, game_id, *args):
        renders.append(game_id)
        return real(store, settings, game_id, *args)

    monkeypatch.setattr(web_app, "_gm_context", counting)
    return running, renders


def _login(app) -> TestClient:
    c = TestClient(app)
    r = c.post("/login", data={"token": TOKEN, "next": "/"}, follow_redirects=False)
    assert r.status_code == 303
    return c


def _body(html: str) -> str:
    return re.sub(r'data-game-now="[^"]*"', "", html)


def test_the_gm_page_is_rendered_once_per_change_of_the_game(made) -> None:
    running, renders = made
    app = create_app(running.store, WebSettings(token=TOKEN))
    c, gid = TestClient(app), running.driver.game_id
    first = c.get(f"/game/{gid}/gm", headers=BEARER)
    assert first.status_code == 200 and SECRET in first.text
    assert UNSET_NOW.isoformat() not in first.text and first.headers["cache-control"] == "no-store"
    for _ in range(4):
        assert _body(c.get(f"/game/{gid}/gm", headers=BEARER).text) == _body(first.text)
    assert renders == [gid]  # five requests, one render (no page cache: cache_s 0)
    c.get(f"/game/{gid}/gm/fragment", headers=BEARER)
    assert renders == [gid, gid]  # the fragment is a view of its own

    voter, target = running.state().players[0].name, running.state().players[1].name
    vote(running, voter, target, "9301")  # a new event and a stored input
    page = c.get(f"/game/{gid}/gm", headers=BEARER).text
    assert len(renders) == 3 and f"投票 {target}" in page
    running.store.add_outbox(gid, [OutboxItem(kind="post", target="main", body="等着发的公告")])
    assert "等着发的公告" in c.get(f"/game/{gid}/gm", headers=BEARER).text and len(renders) == 4
    row = running.store.pending_outbox(gid)[-1]
    running.store.fail_outbox(row.id, "refused")  # pending -> failed: the GM page says 未送达
    assert "未送达" in c.get(f"/game/{gid}/gm", headers=BEARER).text and len(renders) == 5
    assert c.get(f"/game/{gid}/gm", headers=BEARER).status_code == 200 and len(renders) == 5


def test_a_kept_gm_page_is_served_to_no_one_without_the_login(made) -> None:
    running, renders = made
    app = create_app(running.store, WebSettings(token=TOKEN, cache_s=60))  # the public page cache on, too
    gid = running.driver.game_id
    gm_a, gm_b = _login(app), _login(app)
    kept = gm_a.get(f"/game/{gid}/gm")
    assert kept.status_code == 200 and SECRET in kept.text and renders == [gid]
    assert _body(gm_b.get(f"/game/{gid}/gm").text) == _body(kept.text) and renders == [gid]  # one GM, one page

    public = TestClient(app)
    for path in (f"/game/{gid}", f"/game/{gid}/fragment", f"/game/{gid}/player/1", f"/game/{gid}/record.json"):
        r = public.get(path)
        assert r.status_code == 200 and SECRET not in r.text, path
    for path, code in ((f"/game/{gid}/gm", 401), (f"/game/{gid}/gm/fragment", 401)):
        r = public.get(path)
        assert r.status_code == code and SECRET not in r.text, path
    r = public.get(f"/game/{gid}/gm", headers={"Authorization": "Bearer a-wrong-token-of-some-length"})
    assert r.status_code == 403 and SECRET not in r.text
    forged = TestClient(app)
    forged.cookies.set(web_app.COOKIE, "not-a-signed-session")
    assert forged.get(f"/game/{gid}/gm").status_code == 401

    assert gm_a.post("/logout", follow_redirects=False).status_code == 303  # ends this session only
    cookie = gm_b.cookies.get(web_app.COOKIE)
    gm_a.cookies.set(web_app.COOKIE, kept.request.headers.get("cookie", "").partition("=")[2])
    r = gm_a.get(f"/game/{gid}/gm")
    assert r.status_code == 401 and SECRET not in r.text  # the revoked cookie: the kept page is not served
    assert cookie and SECRET in gm_b.get(f"/game/{gid}/gm").text and renders == [gid]


def test_the_preview_is_made_once_per_state_of_the_game(made, monkeypatch) -> None:
    """Item 3: the GM page's preview (a GameDriver on an offline forum) is made once per step
    of the game, not per render: a post queued or refused renders the page again, not it."""
    running, renders = made
    previews: list[int] = []
    real = web_app.GameDriver.preview

    def counting(self):
        previews.append(self.game_id)
        return real(self)

    monkeypatch.setattr(web_app.GameDriver, "preview", counting)
    app = create_app(running.store, WebSettings(token=TOKEN))
    c, gid = TestClient(app), running.driver.game_id
    first = c.get(f"/game/{gid}/gm", headers=BEARER).text
    c.get(f"/game/{gid}/gm/fragment", headers=BEARER)
    running.store.add_outbox(gid, [OutboxItem(kind="post", target="main", body="等着发的公告")])
    page = c.get(f"/game/{gid}/gm", headers=BEARER).text
    assert len(renders) == 3 and previews == [gid]  # three renders, one preview
    preview = re.search(r'<section class="card" id="preview">.*?</section>', first, re.S)
    assert preview and preview.group(0) in page
    voter, target = running.state().players[0].name, running.state().players[1].name
    vote(running, voter, target, "9302")  # a new event: a new state, a new preview
    c.get(f"/game/{gid}/gm", headers=BEARER)
    assert len(renders) == 4 and previews == [gid, gid]
