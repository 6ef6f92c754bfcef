"""The index's paging, filters and search, and the web layer's caches (issue 25 item 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from web_game import TOKEN, new_store

from tianshen.store import Store
from tianshen.web.app import WebSettings, create_app
from tianshen.web.cache import PageCache, Rulesets
from tianshen.web.index import IndexQuery

VARIANTS = ["classic_8", "classic_10", "game_ten"]
STATUSES = ["new", "running", "over", "paused"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """130 games of every status (rows only: the index never reads a state), a board row, and
    names with the characters LIKE would take as patterns."""
    s = new_store(f"sqlite:///{tmp_path_factory.mktemp('index') / 'g.db'}")
    for i in range(126):
        s.create_game(f"第{i:03d}局", VARIANTS[i % 3], i, {}, "{}", "setup", None, [], status=STATUSES[i % 4])
    for name in ("百分之百%局", "下划_线局", "Mixed Case 局", "<b>粗体</b>局"):
        s.create_game(name, "n_lives", 0, {}, "{}", "setup", None, [], status="new")
    s.board_game("memory:local:神的使者")
    return s


def rows(html: str) -> list[str]:
    return re.findall(r'<li data-game="\d+"><a href="/game/\d+"><strong>(.*?)</strong>', html)


def get(store: Store, url: str, **settings) -> str:
    r = TestClient(create_app(store, WebSettings(token=TOKEN, **settings))).get(url)
    assert r.status_code == 200, url
    return r.text


def test_the_index_pages_newest_first(store: Store) -> None:
    first = get(store, "/")
    assert "共 130 局" in first and "第 1/3 页" in first
    assert len(rows(first)) == 50 and rows(first)[0] == "&lt;b&gt;粗体&lt;/b&gt;局"  # escaped, newest first
    assert "@board" not in first
    last = get(store, "/?page=3")
    assert len(rows(last)) == 30 and rows(last)[-1] == "第000局"
    assert 'rel="prev" href="/?page=2"' in last and 'rel="next"' not in last
    for bad in ("0", "-1", "x", "9" * 40, "1.5"):
        assert rows(get(store, f"/?page={bad}")) == rows(first), bad
    assert rows(get(store, "/?page=99")) == rows(last)  # past the end: the last page


def test_status_filters(store: Store) -> None:
    signup = get(store, "/?status=signup")
    assert "共 36 局" in signup and set(re.findall(r'<span class="tag">(.*?)</span>', signup)) == {"报名中"}
    running = get(store, "/?status=running")
    assert "共 63 局" in running  # running and paused
    assert set(re.findall(r'<span class="tag">(.*?)</span>', running)) == {"进行中", "暂停"}
    assert "共 31 局" in get(store, "/?status=over")
    assert "共 130 局" in get(store, "/?status=nonsense")


def test_ruleset_filter_and_its_choices(store: Store) -> None:
    html = get(store, "/?ruleset=game_ten")
    assert "共 42 局" in html and '<option value="game_ten" selected>' in html
    for v in VARIANTS + ["n_lives"]:
        assert f'<option value="{v}"' in html
    assert "共 0 局" in get(store, "/?ruleset=no_such") and "没有符合条件的游戏" in get(store, "/?ruleset=no_such")
    both = get(store, "/?ruleset=classic_8&status=over&page=1")
    assert "共 10 局" in both  # i % 3 == 0 and i % 4 == 2


def test_search_by_name_takes_patterns_literally(store: Store) -> None:
    assert rows(get(store, "/?q=%25")) == ["百分之百%局"]
    assert rows(get(store, "/?q=_")) == ["下划_线局"]
    assert rows(get(store, "/?q=mixed+case")) == ["Mixed Case 局"]
    assert rows(get(store, "/?q=12")) == ["第125局", "第124局", "第123局", "第122局", "第121局", "第120局", "第112局",
                                          "第012局"]
    html = get(store, "/?q=%22%3E%3Cscript%3E")
    assert "<script>" not in html.split("</header>")[1].split("<script src")[0]
    assert 'value="&#34;&gt;&lt;script&gt;"' in html


def test_the_filters_survive_paging() -> None:
    q = IndexQuery.parse({"status": "running", "q": " 第  1 ", "ruleset": "classic_8", "page": "2"})
    assert q == IndexQuery(status="running", ruleset="classic_8", search="第 1", page=2)
    assert q.link(page=3) == "/?status=running&ruleset=classic_8&q=%E7%AC%AC+1&page=3"
    assert q.link(page=1) == "/?status=running&ruleset=classic_8&q=%E7%AC%AC+1"
    assert IndexQuery().link() == "/"


def test_the_index_reads_no_state_and_no_spec_per_game(store: Store, monkeypatch) -> None:
    """The old index loaded every game's state and parsed a ruleset file per game."""
    import tianshen.web.cache as cache

    loads: list[str] = []
    real = cache.load_ruleset
    monkeypatch.setattr(cache, "load_ruleset", lambda v: loads.append(v) or real(v))
    monkeypatch.setattr("tianshen.web.app.RULESETS", Rulesets())
    monkeypatch.setattr(Store, "load_game", lambda *a: pytest.fail("the index loaded a game"))
    get(store, "/")
    get(store, "/?page=2")
    assert sorted(loads) == sorted(set(loads)) and len(loads) <= 4


def test_a_ruleset_is_loaded_again_when_its_file_changes(tmp_path: Path) -> None:
    from tianshen.specs import spec_path

    source = spec_path("classic_8").read_text(encoding="utf-8")
    for shared in spec_path("classic_8").parent.glob("_*.toml"):  # what it includes
        (tmp_path / shared.name).write_text(shared.read_text(encoding="utf-8"), encoding="utf-8")
    variant = tmp_path / "mine.toml"
    variant.write_text(source, encoding="utf-8")
    clock = [0.0]
    rulesets = Rulesets(now=lambda: clock[0])
    first = rulesets.get(str(variant))
    assert rulesets.get(str(variant)) is first
    title = first.spec.title
    variant.write_text(source.replace(f'title = "{title}"', 'title = "改过的标题"'), encoding="utf-8")
    assert rulesets.get(str(variant)) is first  # looked at again only after RECHECK_S
    clock[0] += 5
    assert rulesets.get(str(variant)).spec.title == "改过的标题"
    assert rulesets.title("no_such_variant") == "no_such_variant"


def test_the_page_cache_keeps_a_page_for_its_time() -> None:
    clock = [0.0]
    cache = PageCache(ttl_s=1.0, size=2, now=lambda: clock[0])
    assert cache.get("a") is None
    cache.put("a", "A1")
    assert cache.get("a") == "A1"
    clock[0] += 1.0
    assert cache.get("a") is None
    cache.put("a", "A2")
    cache.put("b", "B")
    cache.put("c", "C")  # size 2: the oldest goes
    assert cache.get("a") is None and cache.get("c") == "C"
    off = PageCache(ttl_s=0)
    off.put("a", "A")
    assert off.get("a") is None


def test_cached_pages_follow_the_game_within_the_cache_time(tmp_path: Path) -> None:
    store = new_store(f"sqlite:///{tmp_path / 'g.db'}")
    for i in range(130):
        store.create_game(f"第{i:03d}局", "classic_8", i, {}, "{}", "setup", None, [], status="new")
    clock = [100.0]
    c = TestClient(create_app(store, WebSettings(token=TOKEN, cache_s=1.0)))
    c.app.state.pages.now = lambda: clock[0]
    assert "共 130 局" in c.get("/").text
    gid = store.create_game("新来的一局", "classic_8", 1, {}, "{}", "setup", None, [], status="new")
    assert "共 130 局" in c.get("/").text  # within the second: the kept page
    clock[0] += 1.5
    html = c.get("/").text
    assert "共 131 局" in html and f'data-game="{gid}"' in html
    store.engine.dispose()
