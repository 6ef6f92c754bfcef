"""`game_ten` (游戏十): seed 001, 14 players, professions, prayers and conversion.

The day vote chain, PM intake, the clock and the GM's overrides are shared with `classic`
(`rules.common`).  Here: the deal with hidden potentials (§2.10), the PM window of §2.11, the
night of DECISIONS §2.1.5 (`night.resolve`), the dawn post of §2.1.9, 招魂 (§2.7), conversion
(§2.10) and the prize list (§7.1).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tianshen.core.clock import show_for
from tianshen.core.events import note
from tianshen.core.grammar import Command
from tianshen.core.model import GameState, Outcome, Player, PostIn, peek, put
from tianshen.core.outbox import Messages
from tianshen.core.ruleset import GameSetup
from tianshen.core.spec import Lines, Text
from tianshen.rules.common import day as days
from tianshen.rules.common.actions import Refused
from tianshen.rules.common.game import MAIN, ForumGame
from tianshen.rules.common.roles import CIVILIANS, is_killer, living_killers
from tianshen.rules.game_ten import conversion
from tianshen.rules.game_ten import night as nights


class GameTen(ForumGame):
    QUEUE_DAY_PMS = True  # 001 §2.11: day PMs take effect at the next night's end

    def _init_data(self, state: GameState, game: GameSetup) -> None:
        state.data.update(
            summon_uses=int(self.spec.options.get("summon_uses", 2)),  # 001 §2.7: 两次权力
            last_night_skipped=False, deaths=[], converted=False, prize={}, privilege_kills={},
        )
        conversion.deal_potentials(state, game.setup)

    # ---- PMs ------------------------------------------------------------------------

    def pm_command(self, state: GameState, p: Player, cmd: Command, at: datetime, out: Messages) -> str:
        if cmd.verb == "choose":
            return self._choose(state, p, cmd.arg)
        line = super().pm_command(state, p, cmd, at, out)
        if state.phase.kind == "day" and cmd.verb == "delegate" and p.name in peek(state.data, "day").get("revived", ()):
            put(state.data, ("day",), "revived_active", True)  # 001 §2.7: he voted
        if state.phase.kind == "day" and cmd.verb in self.powers:
            line += "\n" + self.spec.text("day_pm_note", n=state.phase.number + 1)
        return line

    def _choose(self, state: GameState, p: Player, written: str) -> str:
        if state.data.get("pending_choice") != p.name:
            raise Refused("你现在不能选择职业。")
        role = self.spec.role_by_name(written.strip())
        if role not in conversion.PROFESSIONS:
            raise Refused("请写职业名：束魂、诅咒、庇佑、招魂或蝴蝶夫人。")
        conversion.choose(state, p, role)
        return f"转职为{self.spec.role_name(role)}" + self._guild_line(state, p)

    def _guild_line(self, state: GameState, p: Player) -> str:
        mates = [q.name for q in state.players if q.alive and q.role == p.role and q.name != p.name]
        return ("\n" + self.spec.text("guild", partners="、".join(mates))) if mates else ""

    def _guild_text(self, state: GameState, p: Player) -> Text | None:
        """`_guild_line`'s text without its line break, rendered when read (None: no mates)."""
        mates = [q.name for q in state.players if q.alive and q.role == p.role and q.name != p.name]
        return self.spec.later("guild", partners="、".join(mates)) if mates else None

    def on_post(self, state: GameState, post: PostIn) -> Outcome:
        """001 §2.7: a revived player who posts has used the summon."""
        if state.phase.kind == "day":
            d = peek(state.data, "day")  # looked at only: every post asks (issue 37, `apply`'s copy)
            if post.author in d.get("revived", ()) and d.get("revived_active") is not True:
                put(state.data, ("day",), "revived_active", True)
        return super().on_post(state, post)

    # ---- night --------------------------------------------------------------------

    def _dawn(self, state: GameState, at: datetime, out: Messages) -> None:
        spec, k = self.spec, state.phase.number
        if chosen := conversion.choose_by_lot(state):
            p = state.player(chosen)
            lot = spec.later("convert_lot", role=spec.role_name(p.role))
            guild = self._guild_text(state, p)
            out.pm(p.name, spec.text("convert_subject"), Lines("\n", [lot, guild]) if guild else lot)
        dawn = nights.resolve(spec, state, out.log)
        lines: list[str | Text | Lines] = [spec.later("dawn_header", n=k)]
        if dawn.kill_target:  # 001 §2.3: the declaration only for a kill that succeeded
            lines.append(spec.later("dawn_killed", name=dawn.kill_target,
                                   identity=days.identity(spec, state.player(dawn.kill_target))))
            text = (dawn.declaration or {}).get("text", "")
            lines.append("\n".join("> " + ln for ln in text.split("\n")))
        for name, _cause in dawn.deaths:
            if name != dawn.kill_target:  # §2.4, B21: "also died", bound or implicated not said
                lines.append(spec.later("dawn_also_died", name=name, identity=days.identity(spec, state.player(name))))
        if not dawn.deaths:
            lines.append(spec.later("dawn_nobody"))  # no reason, ever (§2.3, §2.1.9)
        for name in dawn.saved_by_bind:
            lines.append(spec.later("dawn_saved", name=name))
        state.data.update(subs={}, decl={})  # what was sent until now took effect tonight (§2.11)
        days.begin_day(spec, state, at, [n for n, _ in dawn.deaths], dawn.saved_by_bind, dawn.net)
        state.phase.number = k
        state.data.pop("early_at", None)
        state.data["done"] = []
        if dawn.revived:
            state.data["day"]["revived"] = [dawn.revived]
            lines.append(spec.later("dawn_revived", name=dawn.revived))
            out.pm(dawn.revived, spec.text("revived_subject"), spec.later("revived_pm"))
        for name, cause in dawn.deaths:
            if cause in ("bound", "implicated") and is_killer(state.player(name)):
                # §7.1 "束魂和蝴蝶夫人还可以用自己的特权处决杀手" (DECISIONS §2.1.10)
                role = "binder" if cause == "bound" else "butterfly"
                by = [p.name for p in state.players if p.role == role]
                state.data["privilege_kills"][name] = by
        lines.append(spec.later("dawn_footer", n=k, vote_at=show_for(state, days.ts(state.data["day"]["vote_opens_at"]))))
        out.post(MAIN, Lines("\n\n", lines))
        self.announce_victory(state, at, out)

    # ---- day end, conversion, victory -------------------------------------------------

    def _on_day_end(self, state: GameState, executed: str | None, lines: list[str], out: Messages) -> None:
        d = state.data["day"]
        if executed and is_killer(state.player(executed)):
            # §7.1 prize: the civilians whose deciding vote (LD if any, else main) was for him
            deciding = d.get("ld_votes") if "ld_votes" in d else d.get("main_votes", {})
            state.data["prize"][executed] = [v for v, t in (deciding or {}).items()
                                             if t == executed and not is_killer(state.player(v))]
        for name in d.get("revived", []):
            # §2.7: he dies again when the execution is decided; a summon he never used
            # (no post, no vote) is not counted
            if d.get("revived_active") or name in d["ballots"]["main"] or name in d["ballots"]["ld"]:
                state.data["summon_uses"] = max(0, state.data["summon_uses"] - 1)
                note(out.log, f"summon of {name} used; {state.data['summon_uses']} left", "summon_used")
            else:
                out.log.append(f"summon of {name} failed (no post, no vote): not counted (001 §2.7)")
        d["revived"] = []

    def before_victory_check(self, state: GameState, at: datetime, out: Messages) -> None:
        """§2.10 conversion, before the win check (B12: a new killer keeps the game going)."""
        conversion.record_deaths(state)
        if not conversion.triggered(state):
            return
        done = conversion.convert(state)
        note(out.log, f"conversion: {done}", *(["conversion"] if done else []))
        spec = self.spec
        if k := done["killer"]:
            mates = [p.name for p in living_killers(state) if p.name != k]
            out.pm(k, spec.text("convert_subject"), spec.later("convert_killer", partners="、".join(mates) or "无"))
            for m in mates:
                out.pm(m, spec.text("convert_subject"), spec.later("convert_new_mate", name=k))
        if pro := done["professional"]:
            p = state.player(pro)
            if done["role"]:
                out.pm(pro, spec.text("convert_subject"),
                       spec.later("convert_profession", role=spec.role_name(done["role"])))
            else:
                out.pm(pro, spec.text("convert_subject"), spec.later("convert_choose"))
            if done["role"] and (guild := self._guild_text(state, p)):
                out.pm(pro, spec.text("convert_subject"), guild)

    def victory_extra(self, state: GameState, winner: str) -> str | Text:
        """§7.1: every civilian who executed a killer shares the prize, alive or dead."""
        if winner != CIVILIANS:
            return ""
        names: list[str] = []
        for voters in [*state.data["prize"].values(), *state.data["privilege_kills"].values()]:
            names += [v for v in voters if v not in names]
        return self.spec.later("prize", names="、".join(names) or "无")

    # ---- views --------------------------------------------------------------------

    def player_view(self, state: GameState, name: str) -> dict[str, Any]:
        view = super().player_view(state, name)
        p = state.player(name)
        d = state.data.get("day") or {}
        view["potential"] = p.extra.get("potential", [])
        view["converted"] = p.extra.get("converted")
        view["revived"] = name in d.get("revived", [])
        view["bound_today"] = name in d.get("cannot_vote", [])
        if p.role == "binder":
            view["bind_streak"] = dict(state.data["bind_streak"])
        if p.role == "summoner":
            view["summon_uses"] = state.data["summon_uses"]
        return view
