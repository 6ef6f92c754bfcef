"""`classic`: the 8/10/13-player rules of seed 002, filled from 001 per DECISIONS §3.

The day, the PM intake and the game loop are shared with `game_ten` (`rules.common`); what
is classic's own is the night (002 夜晚 and its variants), the night-only PM window and the
diviner.
"""

from __future__ import annotations

from datetime import datetime
from operator import attrgetter
from typing import Any

from tianshen.core import rng
from tianshen.core.clock import show_for
from tianshen.core.grammar import Command
from tianshen.core.model import GameState, GmIn, Outcome, Player
from tianshen.core.outbox import Messages
from tianshen.core.overrides import PLAYER, Override, extra
from tianshen.core.ruleset import GameSetup, GmRefused
from tianshen.core.spec import Lines, Text
from tianshen.rules.classic import night as nights
from tianshen.rules.classic import plagiarism
from tianshen.rules.common import day as days
from tianshen.rules.common.actions import group_target
from tianshen.rules.common.game import MAIN, ForumGame
from tianshen.rules.common.roles import is_killer, on_duty_killer

_ALIVE = attrgetter("alive")


class Classic(ForumGame):
    TIE_HOLDERS = ("curser", "blesser")  # 001 §7.2.2 without the summoner (C3)

    def can_draw(self) -> bool:
        """Nobody left alive is a draw (docs/classic.md, see check_victory)."""
        return True

    def check_victory(self, state: GameState) -> str | None:
        """001 §7 as borrowed by 002 (DECISIONS §3.1.7, §6), and a draw when nobody is left
        alive: then 7.1 and 7.2.x hold at once, 002 names no winner ("杀手全灭…判杀手负" only
        says the killers lose) and §6 borrows 7.1/7.2.x but not 001's B36 (docs/classic.md)."""
        if not any(map(_ALIVE, state.players)):
            return "draw"
        return super().check_victory(state)

    def _init_data(self, state: GameState, game: GameSetup) -> None:
        if self.spec.options["killer_mode"] == "alternate":
            # C4/C16: the GM draws which killer kills on the odd nights
            order = rng.shuffled(state, [p.name for p in state.players if is_killer(p)])
            if first := game.setup.get("first_killer"):  # a script or the GM fixes the draw
                if first not in order:
                    raise ValueError(f"first_killer '{first}' is not a killer")
                order = [first] + [n for n in order if n != first]
            state.data["duty_order"] = order

    def _role_extra(self, state: GameState, p: Player, extra: str | Text) -> str | Text:
        if self._options["killer_mode"] == "alternate" and is_killer(p):
            parity = "单数" if state.data["duty_order"][0] == p.name else "双数"
            return self._hot.later("role_duty", parity=parity)
        return extra

    def _dawn(self, state: GameState, at: datetime, out: Messages) -> None:
        spec, hot, k = self.spec, self._hot, state.phase.number
        net = self._curse_bless(state)
        dawn = nights.resolve(spec, state, out.log)
        lines: list[str | Text] = [hot.later_of("dawn_header", {"n": k})]  # rendered when the post is read
        for name, cause in dawn.deaths:
            ident = days.identity(hot, state.player(name))
            if cause == "killed":
                lines.append(hot.later_of("dawn_killed", {"name": name, "identity": ident}))
                for decl in dawn.published[name]:
                    lines.append("> " + "\n> ".join(decl["text"].split("\n")))
            else:  # 002 束魂: say who was killed by the killers and who by the binder
                lines.append(hot.later_of("dawn_bind_death", {"name": name, "identity": ident}))
        if not dawn.deaths:
            lines.append(hot.later_of("dawn_nobody", {}))
        for name in dawn.saved_by_bind:
            lines.append(hot.later_of("dawn_saved", {"name": name}))
        days.begin_day(hot, state, at, [n for n, _ in dawn.deaths], dawn.saved_by_bind, net)
        state.phase.number = k
        state.data.pop("early_at", None)
        state.data["done"] = []  # /done counts per phase (DECISIONS §0.5)
        lines.append(hot.later_of("dawn_footer", {"n": k, "vote_at": show_for(state, days.ts(state.data["day"]["vote_opens_at"]))}))
        out.post(MAIN, Lines("\n\n", lines))
        for diviner, target, yes in dawn.answers:
            out.pm(diviner, hot.text("divine_subject"),
                   hot.later_of("divine_answer", {"night": k - 1, "target": target, "answer": "是" if yes else "不是"}))
        plagiarism.answers(spec, state, out)  # C13: yesterday's extra question
        if not self.announce_victory(state, at, out):
            plagiarism.draw(spec, state, out)  # C13: today's extra question, drawn after the deaths

    def pm_command(self, state: GameState, p: Player, cmd: Command, at: datetime, out: Messages) -> str:
        """C13: the civilian drawn for an extra divination asks it by PM during the day."""
        if cmd.verb == "divine" and (line := plagiarism.ask(state, p, cmd.arg)):
            return line
        return ForumGame.pm_command(self, state, p, cmd, at, out)  # (super(), without its object a PM)

    @extra(Override("flag-plagiarism", "标记宣言抄袭", "classic rulesets: flag tonight's kill declaration (杀人宣言) "
                    "of a killer as plagiarised or too short, before dawn; at dawn one living civilian is drawn for "
                    "an extra divination (占卜).", (PLAYER,)))
    def gm_flag_plagiarism(self, state: GameState, gm: GmIn) -> Outcome:
        """002 杀人宣言 / C13: the GM flags tonight's declaration of a killer as breaking the
        originality (or length) rule; at dawn one living civilian is drawn for an extra 占卜.
        `reject-declaration` is something else: it asks the killers for a new text."""
        p = self._player_arg(state, gm)
        try:
            entry = plagiarism.flag(self.spec, state, p, gm.reason)
        except plagiarism.NotFlaggable as exc:
            raise GmRefused(str(exc)) from None
        out = Messages()
        out.log.append(f"declaration of {p.name} (group {entry['group']}) flagged: extra divination at dawn")
        return out.outcome(state)

    def _curse_bless(self, state: GameState) -> dict[str, int]:
        """002 诅咒/庇佑: +1/−1 on the next day's vote; they cancel each other."""
        net: dict[str, int] = {}
        for verb, role, delta in (("curse", "curser", 1), ("bless", "blesser", -1)):
            target = group_target(self.spec, state, verb, role)
            if target:
                net[target] = net.get(target, 0) + delta
        return {t: v for t, v in net.items() if v}

    def seat_view(self, state: GameState, name: str) -> dict[str, Any]:
        """002 8人玩法 (C16): a killer was told by his role PM on which nights he kills."""
        view = super().seat_view(state, name)
        p = state.player(name)
        if state.data["options"]["killer_mode"] == "alternate" and is_killer(p):
            view["kills_on"] = "odd nights" if state.data["duty_order"][0] == p.name else "even nights"
        return view

    def player_view(self, state: GameState, name: str) -> dict[str, Any]:
        view = super().player_view(state, name)
        p = state.player(name)
        if state.data["options"]["killer_mode"] == "alternate" and is_killer(p):
            view["on_duty"] = on_duty_killer(state, state.phase.number) == p.name
        if p.role == "binder":
            view["bind_streak"] = dict(state.data["bind_streak"])
        return view
