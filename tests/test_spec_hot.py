"""`RulesetSpec.hot()` (issue 37): the texts, title and role names a game reads most, on a
plain object made once per spec object.  It says what the spec says, follows the GM account
of a `for_gm` copy, and a GM's edited variant file is read anew."""

import os
import re
import string

from tianshen.core.spec import Hot
from tianshen.rules import game_ruleset, load_ruleset
from tianshen.specs import available_variants, load_spec, shared_spec


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_hot_says_what_the_spec_says() -> None:
    for variant in available_variants():
        spec = load_spec(variant)
        hot = spec.hot()
        assert isinstance(hot, Hot) and hot is spec.hot()
        assert (hot.id, hot.title, hot.gm_account, hot.texts) == (spec.id, spec.title, spec.gm_account, spec.texts)
        for key, template in spec.texts.items():
            values = {name: f"<{name}>" for name in _fields(template) if name != "gm"}
            expected = template.format_map({**values, "gm": spec.gm_account}).strip("\n")
            assert hot.text(key, **values) == spec.text(key, **values) == expected, (variant, key)
            made = hot.later(key, **values)
            assert made.spec is spec and str(made) == str(spec.later(key, **values)) == expected
        for role, info in spec.roles.items():
            assert hot.role_name(role) == info.name == hot.names[role]
            assert hot.role_factions[role] == info.faction
            assert hot.role_description(role) == spec.role_description(role)


def test_unknown_text_is_one_line() -> None:
    hot = load_spec("classic_10").hot()
    for call in (lambda: hot.text("no_such"), lambda: hot.text("no_such", x=1), lambda: hot.later("no_such")):
        try:
            call()
        except KeyError as exc:
            assert "has no text 'no_such'" in str(exc)
        else:
            raise AssertionError("no KeyError")


def test_for_gm_copy_has_its_own() -> None:
    spec = load_spec("classic_10")
    key = next(k for k, t in spec.texts.items() if _fields(t) == {"gm"})
    assert spec.hot().text(key)  # made, and its plain text kept, before the copy
    other = spec.for_gm("白狐")
    assert other.hot() is not spec.hot() and other.hot().gm_account == "白狐"
    assert other.hot().text(key) == other.text(key) == spec.texts[key].format(gm="白狐").strip("\n") != spec.text(key)
    assert "白狐" in other.hot().role_description("killer") or "{gm}" not in spec.roles["killer"].description
    ruleset = game_ruleset("classic_10", {"setup": {"gm_account": "白狐"}})
    assert ruleset._hot.gm_account == "白狐"


def test_edited_variant_file_is_read_anew(tmp_path) -> None:
    file = tmp_path / "mine.toml"
    file.write_text('include = ["classic_10"]\nid = "mine"\ntitle = "甲"\n', encoding="utf-8")
    first = shared_spec(str(file))
    assert first.hot().title == "甲" and load_ruleset(str(file))._hot.title == "甲"
    file.write_text('include = ["classic_10"]\nid = "mine"\ntitle = "乙局"\n', encoding="utf-8")
    stat = file.stat()
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = shared_spec(str(file))
    assert again is not first and again.hot().title == "乙局"
    ruleset = game_ruleset("mine", {"ruleset_file": str(file)})
    assert ruleset._hot.title == "乙局" and ruleset._hot.spec is again
    assert re.search("乙局", ruleset._hot.text("player_list_title", title=ruleset._hot.title))


def test_a_classic_game_reads_the_spec_seldom(monkeypatch) -> None:
    """A classic_10 game reads its pydantic spec's attributes (each through pydantic's slow
    `__getattr__` hook) seldom: ~475 a game before `Hot`, ~90 with it."""
    from tianshen.core.spec import RoleInfo, RulesetSpec, Timing
    from tianshen.sim.montecarlo import Game

    ruleset = load_ruleset("classic_10")
    Game(ruleset, 1, 10).play()  # (the tables made once per spec, before counting)
    reads = [0]

    def counted(self, name):  # type: ignore[no-untyped-def]
        reads[0] += 1
        return object.__getattribute__(self, name)

    for cls in (RulesetSpec, RoleInfo, Timing):
        monkeypatch.setattr(cls, "__getattribute__", counted)
    for seed in range(2, 7):
        Game(ruleset, seed, 10).play()
    assert 0 < reads[0] / 5 < 150, reads[0] / 5
