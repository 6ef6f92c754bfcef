"""`rules.game_ruleset` (issue 37): a stored game's ruleset is made once per shared spec
and GM account, and shared by every game of that variant and account.  Each account gets
its own, and a GM's edited variant file gets a new one."""

import os

from tianshen.rules import game_ruleset
from tianshen.specs import shared_spec


def test_one_ruleset_per_variant_and_gm_account() -> None:
    plain = game_ruleset("classic_10", {"setup": {}})
    assert plain is game_ruleset("classic_10", {}) is game_ruleset("classic_10", {"setup": {"gm_account": ""}})
    assert plain.spec is shared_spec("classic_10")
    fox = game_ruleset("classic_10", {"setup": {"gm_account": "白狐"}})
    gm = game_ruleset("classic_10", {"setup": {"gm_account": "mafiagm"}})
    assert fox is game_ruleset("classic_10", {"setup": {"gm_account": "白狐"}})
    assert len({id(plain), id(fox), id(gm)}) == 3
    for ruleset, account in ((plain, "神的使者"), (fox, "白狐"), (gm, "mafiagm"), (plain, "神的使者")):
        assert ruleset.spec.gm_account == ruleset._hot.gm_account == account
        assert account in ruleset.spec.text("not_a_player")
    assert game_ruleset("classic_8", {}).spec.id == "classic_8"


def test_an_edited_variant_file_gets_a_new_ruleset(tmp_path) -> None:
    file = tmp_path / "mine.toml"
    file.write_text('include = ["classic_10"]\nid = "mine"\ntitle = "甲"\n', encoding="utf-8")
    config = {"ruleset_file": str(file), "setup": {"gm_account": "白狐"}}
    first = game_ruleset("mine", config)
    assert first is game_ruleset("mine", config) and first._hot.title == "甲"
    file.write_text('include = ["classic_10"]\nid = "mine"\ntitle = "乙局"\n', encoding="utf-8")
    stat = file.stat()
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = game_ruleset("mine", config)
    assert again is not first and again._hot.title == "乙局" and again.spec.gm_account == "白狐"
