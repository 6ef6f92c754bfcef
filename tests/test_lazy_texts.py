"""Texts rendered only when read (issue 37): a message may keep the variant's text keys and
fields (`RulesetSpec.later`, `Lines`) and render them on the first read of its body, so a
simulated game, whose report counts announcements by those keys, renders none."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import pytest

from tianshen.core.model import Outcome, PrivateMessage, PublicPost, Refusal, text_parts
from tianshen.core.spec import Hot, Lines, RulesetSpec, Text
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game, play
from tianshen.sim.report import ANNOUNCEMENTS, extract
from tianshen.specs import load_spec


def test_a_message_renders_its_text_when_read() -> None:
    spec = load_spec("classic_10")
    body = Lines("\n", [spec.later("tally_header", n=2), "甲", spec.later("nobody_executed")])
    post = PublicPost(thread="main", body=body)
    eager = PublicPost(thread="main", body="\n".join([spec.text("tally_header", n=2), "甲",
                                                       spec.text("nobody_executed")]))
    assert post.text_parts() == (["tally_header", "nobody_executed"], ["甲"])  # nothing rendered for it
    assert body._done is None
    assert post.model_dump_json() == eager.model_dump_json() and post == eager
    assert post.body == eager.body and post.text_parts()[0] == ["tally_header", "nobody_executed"]
    pm = PrivateMessage(to="甲", subject="s", body=spec.later("receipt_ok", lines=spec.later("dawn_nobody")))
    assert pm.text_parts() == (["receipt_ok", "dawn_nobody"], [])
    assert pm.body == spec.text("receipt_ok", lines=spec.text("dawn_nobody"))
    refusal = Refusal(sender="甲", text="x", reason=spec.later("dead_player"))
    assert refusal.reason == spec.text("dead_player") and refusal.model_dump()["reason"] == refusal.reason
    assert eager.text_parts() == ([], [eager.body])


def test_an_unknown_text_fails_when_made_not_when_read() -> None:
    with pytest.raises(KeyError, match="no text 'no_such_text'"):
        load_spec("classic_10").later("no_such_text", n=1)


def count_texts(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], list[str]]:
    """From now on: the keys of the texts filled in at once (with fields), and of the lazy
    texts rendered."""
    filled: Counter[str] = Counter()
    rendered: list[str] = []
    render = Text.__str__

    def counting(text: Callable[..., str]) -> Callable[..., str]:
        def counting_text(self: RulesetSpec | Hot, key: str, **values: object) -> str:
            if values:
                filled[key] += 1
            return text(self, key, **values)
        return counting_text

    def counting_render(self: Text) -> str:
        rendered.append(self.key)
        return render(self)

    # (the spec's texts, and its plain copy's that the fold and the setup read: `Hot`)
    monkeypatch.setattr(RulesetSpec, "text", counting(RulesetSpec.text))
    monkeypatch.setattr(Hot, "text", counting(Hot.text))
    monkeypatch.setattr(Text, "__str__", counting_render)
    return filled, rendered


def test_a_simulated_game_renders_no_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten classic_10 games with their report: no body or reason is rendered; the only texts
    filled in are subjects and titles (short, and the board needs them at once)."""
    filled, rendered = count_texts(monkeypatch)
    ruleset = load_ruleset("classic_10")
    results = [play(ruleset, seed) for seed in range(10)]
    assert all(r.error is None for r in results)
    assert rendered == []
    assert filled and all(key.endswith(("_subject", "_title")) for key in filled), filled


# receipt lines a family's command hands back to core.intake as strings (it joins them with
# "✔ "), the vote receipts, which core.ballots also writes to the GM log, the check-in
# request rules/common adds to the player list, the game-over post's seat lines (core joins
# `final_line`s) and the GM's notes (`Outcome.notes` holds strings)
STRINGS = {"balance", "queued", "vote_ok", "delegate_ok", "declaration_ok", "order_ok", "choice_ok",
           "needs_declaration", "count_reply", "checkin_request", "vote_line", "receipt_action", "attack_taken",
           "dig_taken", "move_taken", "vote_taken", "vote_changed", "final_line", "alive_hp"}


@pytest.mark.parametrize(("variant", "players"), [("n_lives", 5), ("n_lives", 6), ("n_lives", 7), ("game_ten", None),
                                                  ("butterfly_elder", None), ("hex_survival_12", None)])
def test_a_simulated_family_game_renders_no_text(monkeypatch: pytest.MonkeyPatch, variant: str,
                                                 players: int | None) -> None:
    """n_lives, game_ten, butterfly_elder and hex_survival as `tianshen simulate` plays them: no post, PM
    or refusal is rendered (dawn, dusk, results, the tally, hands, answers, conversion, the
    game over…); the only texts filled in are subjects, titles and the strings core takes as
    strings."""
    filled, rendered = count_texts(monkeypatch)
    ruleset = load_ruleset(variant)
    results = [play(ruleset, seed, players) for seed in range(10)]
    assert all(r.error is None for r in results)
    assert rendered == []
    assert filled and all(key.endswith(("_subject", "_title")) or key.startswith("note_") or key in STRINGS
                          for key in filled), filled


def _rendered_counts(ruleset, outcomes: list[Outcome]) -> Counter[str]:
    """The announcements found by matching every rendered post and PM against the templates
    (the report's old way, with `.` across line ends: a victory's roles span lines)."""
    found: Counter[str] = Counter()
    bodies = [m.body for o in outcomes for m in (*o.posts, *o.pms)]
    for key, name in ANNOUNCEMENTS.items():
        template = ruleset.spec.texts.get(key, "").strip("\n")
        parts = re.split(r"\{[^{}]*\}", template)
        if template and len(max(parts, key=len)) >= 4:
            rx = re.compile(".*?".join(re.escape(part) for part in parts), re.S)
            found[name] += sum(len(rx.findall(body)) for body in bodies)
    return +found


@pytest.mark.parametrize(("variant", "players"), [("classic_8", None), ("classic_10", None), ("game_ten", None),
                                                  ("n_lives", 5), ("n_lives", 7), ("butterfly_elder", None),
                                                  ("hex_survival_12", None)])
def test_the_report_counts_announcements_as_the_rendered_texts_say(variant: str, players: int | None) -> None:
    """By key (not rendered) the report counts what the rendered texts hold; n_lives 7p seed
    6 ends in a draw, which the old line-bound template match never counted."""
    ruleset = load_ruleset(variant)
    for seed in range(12):
        game = Game(ruleset, seed, players or ruleset.spec.players)
        state = game.play()
        counted = extract(ruleset, state, game.outcomes, seed).counters
        announced = {k: v for k, v in counted.items() if k in ANNOUNCEMENTS.values() and v}
        assert announced == dict(_rendered_counts(ruleset, game.outcomes)), (variant, seed)
        assert counted.get("draw (announced)", 0) == counted.get("draw", 0), (variant, seed)


def test_text_parts_walks_nested_sources_depth_first_in_the_old_order() -> None:
    """A text's lazy fields last to first, a Lines' parts in order, across messages: the order
    the walk with one stack gave (the walk of a message of one plain-field text is shorter)."""
    spec = load_spec("classic_10")
    inner = Lines("\n", ["乙", spec.later("dawn_nobody"), "丙"])
    nested = spec.later("receipt_ok", lines=spec.later("tally_header", n=1), other=inner)
    messages = [PrivateMessage(to="甲", subject="s", body=spec.later("receipt_ok", lines="x")),
                PublicPost(thread="main", body=nested),
                PublicPost(thread="main", body="甲"),
                PublicPost(thread="main", body=Lines("\n", [nested, "丁"]))]
    walk = ["receipt_ok", "dawn_nobody", "tally_header"]
    assert text_parts(messages) == (["receipt_ok", *walk, *walk], ["乙", "丙", "甲", "乙", "丙", "丁"])
