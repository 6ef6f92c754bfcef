"""Issue 35, what it must show: random play of every variant never renders 其他 or a raw key
(a step, deadline kind or cause of death as the code names it) on the GM page, the public
page or `tianshen admin status` (the GM's and --public)."""

from __future__ import annotations

import re
import warnings
from datetime import timedelta

import pytest
from typer.testing import CliRunner
from web_game import TOKEN, new_store

from tianshen.cli import DEADLINE_WORDS
from tianshen.cli import app as cli_app
from tianshen.core.ruleset import GameSetup
from tianshen.forum.memory import MemoryBoard
from tianshen.rules import families
from tianshen.service.driver import GameDriver
from tianshen.sim import sims_for
from tianshen.sim.rehearsal import DEFAULT_START, VirtualClock, default_seats
from tianshen.specs import available_variants, load_spec
from tianshen.web.app import WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

GM = {"Authorization": f"Bearer {TOKEN}"}
OTHER = re.compile(r"(?<![\u4e00-\u9fff])其他(?![\u4e00-\u9fff])")  # the word for a key with no word (其他人 is text)


def visible(html: str) -> str:
    """The page's text without its copyable command lines (<code>), scripts and styles."""
    html = re.sub(r"<(code|script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def raw_keys(family: str) -> re.Pattern[str]:
    """The keys of the family's record: its steps, deadline kinds and causes of death."""
    record = families()[family]
    keys = {*record.step_words(), *record.deadline_words(), *record.cause_words()} - {""}
    return re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, keys), key=len, reverse=True)) + r")(?![\w-])")


def screens(client: TestClient, db: str, game_id: int, name: str) -> dict[str, str]:
    shown = {"GM page": visible(client.get(f"/game/{game_id}/gm", headers=GM).text),
             "public page": visible(client.get(f"/game/{game_id}").text)}
    for extra in ([], ["--public"]):
        out = CliRunner().invoke(cli_app, ["admin", "status", name, "--db", db, *extra])
        assert out.exit_code == 0, out.output
        text = out.output
        for phrase in sorted(DEADLINE_WORDS.values(), key=len, reverse=True):  # the CLI's English words
            text = text.replace(phrase, " ")
        shown[" ".join(["admin status", *extra])] = text
    return shown


@pytest.mark.parametrize("variant", available_variants())
def test_random_play_shows_no_other_and_no_raw_key(tmp_path, variant: str) -> None:
    db = f"sqlite:///{tmp_path / 'w.db'}"
    spec = load_spec(variant)
    keys = raw_keys(spec.ruleset)
    clock = VirtualClock(DEFAULT_START)
    board = MemoryBoard(clock.now)
    forum = board.gm()
    forum.login()
    store = new_store(db)
    name = f"{variant}-words"
    driver = GameDriver.create(store, forum, name, spec.id,
                               GameSetup(seats=default_seats(spec.players), seed=2, start=DEFAULT_START))
    sims = sims_for(spec.ruleset, board, forum.account, 2)
    client = TestClient(create_app(store, WebSettings(token=TOKEN)))
    looked: set[str] = set()
    for _ in range(400):
        state = driver.state()
        point = f"{state.phase.label} {state.phase.step}"
        for where, text in (screens(client, db, driver.game_id, name) if point not in looked else {}).items():
            where = f"{where} at {point}"
            assert not OTHER.findall(text), (where, re.findall(r".{40}其他.{10}", text))
            assert not keys.findall(text), (where, keys.findall(text))
        looked.add(point)
        deadline = driver.ruleset.next_deadline(state)
        if deadline is None:
            break
        clock.set(min(clock.now() + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
        sims.act(state, clock.now(), lambda key: store.thread_id(driver.game_id, key))
        clock.set(deadline.at)
        driver.advance(clock.now())
    store.close()
    assert state.phase.kind == "over" and len(looked) > 3
