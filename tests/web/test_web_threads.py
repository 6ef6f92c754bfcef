"""Issue 38, fast under many games (the p99 on PostgreSQL): the pages' worker threads are as
many as the database pool keeps connections, so a burst of requests never opens connections
beyond the pool's (each closed again when it comes back: on PostgreSQL a new server process
every few requests under load, measured 1885 in a bench run of 11,000 requests)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
from sqlalchemy import event
from web_game import TOKEN, Server, at_vote, play_until

from tianshen.web.app import WebSettings, create_app


def test_a_burst_of_requests_opens_no_connection_beyond_the_pool(tmp_path) -> None:
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    engine, gid = running.store.engine, running.driver.game_id
    engine.dispose()  # no connection kept from the play
    opened: list[int] = []
    event.listen(engine, "connect", lambda *_: opened.append(1))
    # each query takes 10 ms, as a database server on a busy machine answers: readers overlap
    event.listen(engine, "before_cursor_execute", lambda *_: time.sleep(0.01))
    paths = [f"/game/{gid}", f"/game/{gid}/fragment", "/"]  # a query each, then the kept view
    with Server(create_app(running.store, WebSettings(token=TOKEN))) as srv, httpx.Client() as client:
        with ThreadPoolExecutor(20) as pool:  # twenty readers at once, the page cache off
            codes = list(pool.map(lambda i: client.get(srv.url + paths[i % len(paths)]).status_code, range(400)))
    assert set(codes) == {200}
    assert 0 < len(opened) <= engine.pool.size(), f"{len(opened)} connections opened for a pool of {engine.pool.size()}"
