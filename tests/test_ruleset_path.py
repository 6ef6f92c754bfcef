"""Issue 13 item 11: a ruleset given as the path of a variant file works in `admin new-game`,
`run` and `rehearse` (docs/replay.md).  The game keeps the id (`record.ruleset`) and the
absolute file (`config["ruleset_file"]`), and the driver reloads that same file."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tianshen import specs as spec_module
from tianshen.cli import app
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard
from tianshen.rules import game_ruleset, load_ruleset
from tianshen.service.driver import GameDriver, OfflineForum
from tianshen.sim.rehearsal import VESTS
from tianshen.specs import game_file, load_spec, spec_path
from tianshen.store import Store

RULESETS = Path(__file__).resolve().parents[1] / "rulesets"
T0 = datetime(2026, 1, 1, 20, tzinfo=UTC)
TITLE = "测试用变体"


def variant_file(where: Path, stem: str = "my_classic", base: str = "classic_10") -> Path:
    """A copy of `base` with another title, in its own directory with the files it includes."""
    where.mkdir(parents=True, exist_ok=True)
    for shared in RULESETS.glob("_*.toml"):
        shutil.copy(shared, where / shared.name)
    text = (RULESETS / f"{base}.toml").read_text(encoding="utf-8")
    path = where / f"{stem}.toml"
    path.write_text(text.replace("\ntitle = ", f'\ntitle = "{TITLE}"\nold_title = ', 1), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def forget_loaded_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts like a fresh process: no id remembered from an earlier path."""
    monkeypatch.setattr(spec_module, "_loaded_files", {})


def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec_module, "_loaded_files", {})


def seats(n: int = 10) -> list[Seat]:
    return [Seat(name=v) for v in VESTS[:n]]


def test_a_path_loads_with_its_includes_relative_to_the_file(tmp_path: Path, monkeypatch) -> None:
    path = variant_file(tmp_path / "variants")
    monkeypatch.chdir(tmp_path)
    spec = load_spec("variants/my_classic.toml")
    assert (spec.id, spec.title, spec.ruleset) == ("my_classic", TITLE, "classic")
    assert spec.texts["not_a_player"]  # from _forum_common.toml, included by _classic_common.toml
    assert spec_path("variants/my_classic.toml") == path.resolve()
    assert load_ruleset(str(path)).spec.title == TITLE


def test_a_missing_file_or_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not found"):
        load_spec(str(tmp_path / "nope.toml"))
    with pytest.raises(ValueError, match="unknown ruleset"):
        load_spec("no_such_variant")


def test_the_driver_reloads_the_same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = variant_file(tmp_path / "v")
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    store.upgrade()
    game = GameDriver.register(store, "g", str(path), GameSetup(seats=seats(), seed=3, start=T0))
    record = store.load_game(game)
    assert record.ruleset == "my_classic" and record.config["ruleset_file"] == str(path.resolve())
    fresh_process(monkeypatch)  # the id alone finds nothing now
    with pytest.raises(ValueError):
        load_ruleset("my_classic")
    driver = GameDriver(store, OfflineForum(), game)
    assert driver.ruleset.spec.title == TITLE
    assert game_ruleset(record.ruleset, record.config).spec.title == TITLE
    store.close()


def test_a_file_with_a_built_in_id_is_not_swapped_for_the_built_in(tmp_path: Path) -> None:
    path = variant_file(tmp_path / "v", stem="classic_10")
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    store.upgrade()
    game = GameDriver.register(store, "g", str(path), GameSetup(seats=seats(), seed=3, start=T0))
    assert store.load_game(game).ruleset == "classic_10"
    assert GameDriver(store, OfflineForum(), game).ruleset.spec.title == TITLE
    store.close()


def test_an_id_keeps_no_file_and_TIANSHEN_RULESETS_adds_a_directory(tmp_path: Path, monkeypatch) -> None:
    assert game_file("classic_10") is None
    variant_file(tmp_path / "extra", stem="extra_classic")
    monkeypatch.setenv("TIANSHEN_RULESETS", str(tmp_path / "extra"))
    assert load_spec("extra_classic").title == TITLE
    assert game_file("extra_classic") is None  # found again by id while the variable is set


def test_admin_new_game_and_start_with_a_path_beside_the_config(tmp_path: Path, monkeypatch) -> None:
    variant_file(tmp_path / "variants")
    db = f"sqlite:///{(tmp_path / 'n.db').as_posix()}"
    players = "\n".join(f'[[game.players]]\nname = "{n}"' for n in VESTS[:10])
    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "{db}"\n[game]\nname = "g"\nruleset = "variants/my_classic.toml"\n'
                      f'start = "2099-01-01T20:00:00Z"\n{players}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path / "variants")  # the path is relative to the config, not the directory
    runner = CliRunner()
    signed = runner.invoke(app, ["admin", "new-game", "--config", str(config)])
    assert signed.exit_code == 0, signed.output
    assert "my_classic" in signed.output
    fresh_process(monkeypatch)
    started = runner.invoke(app, ["admin", "start", "--db", db])
    assert started.exit_code == 0, started.output
    store = Store(db)
    record = store.load_game(store.game_id("g"))
    assert record.ruleset == "my_classic"
    assert record.config["ruleset_file"] == str((tmp_path / "variants" / "my_classic.toml").resolve())
    assert any(TITLE in f"{o.subject or ''}{o.body}" for o in store.outbox(record.id))  # the file's texts, not classic_10's
    store.close()


def test_rehearse_a_path(tmp_path: Path, monkeypatch) -> None:
    path = variant_file(tmp_path / "v")
    db = f"sqlite:///{(tmp_path / 'r.db').as_posix()}"
    result = CliRunner().invoke(app, ["rehearse", "--ruleset", str(path), "--seed", "3", "--db", db, "--quiet"])
    assert result.exit_code == 0, result.output
    assert "winner:" in result.output
    store = Store(db)
    [record] = store.list_games()
    assert record.ruleset == "my_classic" and record.status == "over"
    assert record.config["ruleset_file"] == str(path.resolve())
    store.close()


def test_a_driver_on_the_board_runs_a_path_game_across_a_restart(tmp_path: Path, monkeypatch) -> None:
    path = variant_file(tmp_path / "v")
    url = f"sqlite:///{tmp_path / 'd.db'}"
    board = MemoryBoard(lambda: T0)
    forum = board.gm()
    forum.login()
    store = Store(url)
    store.upgrade()
    driver = GameDriver.create(store, forum, "d", str(path), GameSetup(seats=seats(), seed=3, start=T0))
    store.close()
    fresh_process(monkeypatch)
    store = Store(url)
    again = GameDriver(store, forum, driver.game_id)
    assert again.ruleset.spec.title == TITLE and again.state().variant == "my_classic"
    store.close()


def test_run_signs_up_and_resumes_a_path_game(tmp_path: Path, monkeypatch) -> None:
    from tianshen.config import load_config
    from tianshen.service.daemon import Daemon
    from tianshen.sim import DaemonPlayers

    variant_file(tmp_path / "variants")
    config = tmp_path / "c.toml"
    players = "\n".join(f'[[game.players]]\nname = "{n}"' for n in VESTS[:10])
    config.write_text(f'[database]\nurl = "sqlite:///{(tmp_path / "d.db").as_posix()}"\n[forum]\nkind = "memory"\n'
                      f'[game]\nname = "g"\nruleset = "variants/my_classic.toml"\nseed = 5\n'
                      f'start = "2026-01-01T20:00:00Z"\n{players}\n', encoding="utf-8")
    daemon = Daemon(load_config(config), players=DaemonPlayers())
    record = daemon.store.load_game(daemon.driver("g").game_id)
    assert record.ruleset == "my_classic"
    assert record.config["ruleset_file"] == str((tmp_path / "variants" / "my_classic.toml").resolve())
    daemon.store.close()
    fresh_process(monkeypatch)
    again = Daemon(load_config(config), players=DaemonPlayers())  # a restart finds the game and its file
    assert again.driver("g").ruleset.spec.title == TITLE
    again.store.close()


def test_a_file_is_parsed_once_and_read_anew_when_the_gm_edits_it(tmp_path: Path) -> None:
    path = variant_file(tmp_path / "v")
    first = load_spec(str(path))
    first.options["changed_by_a_caller"] = True  # a caller's change does not reach the next load
    assert "changed_by_a_caller" not in load_spec(str(path)).options
    path.write_text(path.read_text(encoding="utf-8").replace(f'title = "{TITLE}"', 'title = "改过的变体"', 1),
                    encoding="utf-8")
    assert load_spec(str(path)).title == "改过的变体"


def test_admin_status_and_the_web_pages_reload_the_games_file(tmp_path: Path, monkeypatch) -> None:
    """Issue 24: `admin status` and the web pages loaded the ruleset by id and failed with
    "unknown ruleset" for a game signed up from a variant file in another process."""
    import warnings

    from tianshen.web.app import WebSettings, create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    path = variant_file(tmp_path / "v")
    db = f"sqlite:///{(tmp_path / 's.db').as_posix()}"
    done = CliRunner().invoke(app, ["rehearse", "--ruleset", str(path), "--seed", "3", "--db", db, "--quiet"])
    assert done.exit_code == 0, done.output
    fresh_process(monkeypatch)
    for public in ([], ["--public"]):
        shown = CliRunner().invoke(app, ["admin", "status", "--db", db, *public], env={"COLUMNS": "200"})
        assert shown.exit_code == 0 and "unknown ruleset" not in shown.output, shown.output
    store = Store(db)
    [record] = store.list_games()
    web = TestClient(create_app(store, WebSettings(token="t" * 32)))
    assert TITLE in web.get("/").text
    page = web.get(f"/game/{record.id}")
    assert page.status_code == 200 and TITLE in page.text
    gm = web.get(f"/game/{record.id}/gm", headers={"Authorization": "Bearer " + "t" * 32})
    assert gm.status_code == 200
    store.close()


def test_looking_a_variant_up_again_resolves_no_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game looks its variant up several times (sign-up, `game_file`, the driver, the
    simulated players): after the first, each look-up is a few stats, not a path resolved
    part by part (issue 37)."""
    specs = spec_module
    specs.shared_spec("classic_10"), specs.game_file("classic_10")
    shipped = Path(__file__).resolve().parents[1] / "rulesets" / "classic_10.toml"
    resolved = []
    real_resolve = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda self, *a, **k: resolved.append(self) or real_resolve(self, *a, **k))
    monkeypatch.setattr(os.path, "realpath", lambda *a, **k: resolved.append(a) or a[0])
    for _ in range(5):
        assert specs.shared_spec("classic_10").id == "classic_10"
        assert specs.game_file("classic_10") is None
    assert specs.spec_path("classic_10") == shipped
    assert resolved == []


def test_a_sign_ups_game_file_uses_the_spec_it_has(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign-up passes the spec it just looked up to `game_file`: the variant's files are not
    stat-ed again and its id is looked up once (issue 37); a file given by path is still
    stored as its path."""
    specs = spec_module
    spec = specs.shared_spec("classic_10")
    checked: list[object] = []
    real_version, real_find = specs._version, specs.find_by_id
    monkeypatch.setattr(specs, "_version", lambda path: checked.append(path) or real_version(path))
    monkeypatch.setattr(specs, "find_by_id", lambda v: checked.append(v) or real_find(v))
    assert specs.game_file("classic_10", spec) is None
    assert checked == ["classic_10"]
    shipped = Path(__file__).resolve().parents[1] / "rulesets" / "classic_10.toml"
    assert specs.game_file(str(shipped), specs.shared_spec(str(shipped))) is None  # its id finds it again
