"""The game loop shared by the 001/002 family (`classic`, `game_ten`): setup, the clock and
reminders, PM intake, the whole day vote chain of 001 §5 (main vote, 生死投票, 遗言计票,
天神招魂, nobody), removals, substitutes, the GM's overrides, the end of the game.

A family subclasses `ForumGame` and supplies what differs (DECISIONS §6's table): its night
resolution (`_dawn`), its win conditions, and a few hooks (`_init_data`, `_role_extra`,
core's `before_victory_check`, `_on_day_end`, `victory_extra`).  Its powers, their words and
windows (002 nights only; 001 any time, locked at dawn − 10 min) are the variant's ability table
(`[abilities.*]`, `[roles.*].abilities`; core.abilities checks them once).
"""

from __future__ import annotations

from abc import abstractmethod
from datetime import datetime
from typing import Any

from tianshen.core import abilities, checkin
from tianshen.core.ballots import BallotPolicy, VotePosts
from tianshen.core.clock import PhaseClock, iso, show_for
from tianshen.core.deaths import die
from tianshen.core.events import note, record_tally
from tianshen.core.flow import ANY, PHASE_START, Step
from tianshen.core.grammar import Command
from tianshen.core.model import (
    GameState,
    Phase,
    Player,
    PostIn,
    peek,
)
from tianshen.core.outbox import Messages
from tianshen.core.ruleset import GameSetup, Ruleset
from tianshen.core.spec import Lines, RulesetSpec, Text
from tianshen.core.tally import DayTally
from tianshen.core.vote_post import VotePost, unreadable
from tianshen.rules.common import actions as nights
from tianshen.rules.common import day as days
from tianshen.rules.common.actions import Refused
from tianshen.rules.common.ledgers import DayBallots, NightActions
from tianshen.rules.common.roles import (
    CIVILIANS,
    partners,
    winner,
)

MAIN = "main"  # the thread of the player list and every dawn and dusk post


class ForumGame(Ruleset):
    # 001 §2.11: privilege PMs sent in the day wait for the next night's end, so they are
    # kept at dusk and cleared at dawn; 002 clears them at dusk (night-only window).
    QUEUE_DAY_PMS = False

    def __init__(self, spec: RulesetSpec) -> None:
        super().__init__(spec)
        self.clock = PhaseClock(spec.timing)
        self.actions = NightActions(spec)
        self.ballots = DayBallots(spec)
        # the commands some role holds (the others are "not now"); the words (the 001 §2.10
        # choice of profession too) are core's, from the TOML
        self.powers = frozenset(a.command for a in self.abilities.by_id.values() if a.roles)

    # ---- setup ----------------------------------------------------------------------

    def begin(self, state: GameState, game: GameSetup) -> None:
        state.data.update(
            options=dict(self.spec.options), subs={}, decl={}, questions={}, done=[], day={},
            substitutes=list(game.substitutes),
            bind_streak={"target": None, "nights": 0},
        )
        self._init_data(state, game)
        self._begin_night(state, 1, game.start)
        checkin.open_window(state, game.start, float(self.spec.options.get("checkin_hours", 0)))
        state.data["started_at"] = iso(game.start, game.start.utcoffset())

    def player_list_values(self, state: GameState) -> dict[str, Any]:
        until = checkin.deadline(state)
        return {"checkin": self._hot.text("checkin_request", until=show_for(state, until)) if until else ""}

    def _init_data(self, state: GameState, game: GameSetup) -> None:
        """Family data drawn at setup, after the deal (classic: 8p duty order; game_ten: queues)."""

    def role_extra(self, state: GameState, p: Player) -> str | Text:
        """The seat's partners (002 杀手, the 13-player pairs), then the family's own line."""
        mates = partners(self.spec, state, p)
        return self._role_extra(state, p, self._hot.later("role_partners", partners="、".join(q.name for q in mates))
                                if mates else "")

    def _role_extra(self, state: GameState, p: Player, extra: str | Text) -> str | Text:
        """The family's extra line of the role PM."""
        return extra

    # ---- the clock ------------------------------------------------------------------

    # 001/002's phases (DECISIONS §0.5: /done ends the night and the vote early; issue 5:
    # reminders before the night's end and the vote's), what an extension moves
    DAY_SHIFT = ("day.vote_ends_at", "day.step_ends_at")
    STEPS = (
        Step("night", ANY, "night_end", "_dawn", deadline_words="夜晚结束", early_done=True, reminder_from=PHASE_START,
             next=("day:discussion",)),
        Step("day", "discussion", "vote_open", "_open_vote", words="白天讨论", deadline_words="开投票帖",
             deadline="day.vote_opens_at", shift=("day.vote_opens_at", *DAY_SHIFT), next=("day:vote",)),
        Step("day", "vote", "vote_end", "_close_main_vote", words="投票", deadline_words="投票截止",
             deadline="day.vote_ends_at", shift=DAY_SHIFT, early_done=True, reminder_from="day.vote_opens_at",
             votes=True, next=("day:ld", "night")),
        Step("day", "ld", "ld_end", "_close_ld", words="生死投票", deadline_words="生死投票截止",
             deadline="day.step_ends_at", shift=DAY_SHIFT, reminder_from="day.vote_opens_at", votes=True,
             next=("day:summon", "night")),
        Step("day", "summon", "summon_end", "_close_summon_round", words="招魂", deadline_words="招魂截止",
             deadline="day.step_ends_at", shift=DAY_SHIFT, reminder_from="day.vote_opens_at", votes=True,
             next=("day:summon", "night")),
    )

    def remind_players(self, state: GameState, at: datetime | None, out: Messages) -> None:
        ends = show_for(state, at)
        if state.phase.kind == "night":
            nights.remind(self.spec, state, ends, out)
            return
        kind = days.ballot_kind(state)
        if kind is None:
            return
        d = state.data["day"]
        for p in days.voters(state, kind):
            if p.name not in d["ballots"][kind] and p.name not in d["delegations"].get(kind, {}):
                out.pm(p.name, self._hot.text("reminder_subject"), self._hot.later("reminder_vote", ends=ends))

    # ---- night ----------------------------------------------------------------------

    def _begin_night(self, state: GameState, number: int, at: datetime) -> None:
        state.phase = Phase(kind="night", number=number, started_at=at,
                            ends_at=self.clock.night_ends(at))
        state.data.update(done=[], day={})
        if not self.QUEUE_DAY_PMS:
            state.data.update(subs={}, decl={})
        state.data.pop("early_at", None)

    @abstractmethod
    def _dawn(self, state: GameState, at: datetime, out: Messages) -> None:
        """Resolve the night, post the dawn, start the day (days.begin_day), check the win."""

    # ---- day ------------------------------------------------------------------------

    def _open_vote(self, state: GameState, at: datetime, out: Messages) -> None:
        """002: the vote thread at the 13th hour of the day, open until the day ends."""
        k = state.phase.number
        state.phase.step = "vote"
        d = peek(state.data, "day")  # read only: not `apply`'s copy
        barred = "、".join(d["cannot_vote"]) or "无"
        out.post(f"vote:{k}", self._hot.later_of("vote_thread", {"n": k, "ends": show_for(state, days.ts(d["vote_ends_at"])),
                                                  "barred": barred, "candidates": self._roster_alive(state)}),
                 title=self._hot.text("vote_thread_title", n=k))

    def _roster_alive(self, state: GameState) -> str:
        return "、".join([p.name for p in state.players if p.alive])  # (a list: no generator)

    def _close_main_vote(self, state: GameState, at: datetime, out: Messages) -> None:
        spec, hot, k = self.spec, self._hot, state.phase.number
        votes, missing = days.close_ballot(state, "main")
        state.data["day"]["main_votes"] = votes  # the deciding votes when there is no LD (001 §7.1)
        result = days.main_tally(state, votes)
        top = result.top  # (worked out at each read)
        line = (f"main vote: raw {result.raw}, curse/bless {state.data['day']['net']}, "
                f"counted {result.counts}, top {top}, no vote {missing}")
        # A tied player removed for not voting (001 §5.3) is out of the game: he can be
        # neither a 生死投票 candidate nor executed a second time.  (Gap in DECISIONS:
        # if one tied player is left he is the unique top; if none, nobody is executed.)
        left = [c for c in top if state.player(c).alive and c not in missing] if len(top) > 1 else top
        count = days.day_tally(hot, state, "main", votes, result, missing, with_modifiers=True,
                               executed=left[0] if len(left) == 1 else None)
        record_tally(out.log, line, count)
        lines = [hot.later_of("tally_header", {"n": k})] + days.describe(hot, state, votes, count)
        if len(top) > 1:
            days.remove_non_voters(spec, state, missing, lines, out.notes)
            top = [c for c in top if state.player(c).alive]
            if len(top) > 1:
                self._start_ld(state, at, top, lines, out)
                return
            missing = []
        self._finish_day(state, at, top[0] if top else None, missing, lines, out)

    def _start_ld(self, state: GameState, at: datetime, top: list[str], lines: list[str], out: Messages) -> None:
        """001 §5.2 生死投票 among all tied; the day gets +24 h (LD 12 h, B19)."""
        hot, k = self._hot, state.phase.number
        d = state.data["day"]
        d["candidates"] = top
        d["step_ends_at"] = iso(ends := self.clock.ld_ends(at), ends.utcoffset())
        state.phase.step = "ld"
        state.phase.ends_at = self.clock.extended_day_ends(days.ts(d["vote_ends_at"]))
        lines.append(hot.later("ld_start", candidates="、".join(top), ends=show_for(state, days.ts(d["step_ends_at"]))))
        out.post(MAIN, Lines("\n", lines))
        out.post(f"vote:{k}", hot.later("ld_thread", candidates="、".join(top),
                                          ends=show_for(state, days.ts(d["step_ends_at"]))))
        if not days.voters(state, "ld"):
            out.log.append("nobody can vote in the life-death vote")

    def _close_ld(self, state: GameState, at: datetime, out: Messages) -> None:
        spec, hot = self.spec, self._hot
        d = state.data["day"]
        votes, missing = days.close_ballot(state, "ld")
        d["ld_votes"] = votes
        result, _ = days.ld_tally(state)
        count = days.day_tally(hot, state, "ld", votes, result, missing, with_modifiers=False,
                               executed=days.ld_executed(state, missing))
        record_tally(out.log, f"life-death vote: {result.counts}, no vote {missing}", count)
        lines = [hot.later_of("ld_header", {})] + days.describe(hot, state, votes, count)
        days.remove_non_voters(spec, state, missing, lines, out.notes)
        # A candidate removed for not voting in the 生死投票 is out of the game (see _close_main_vote).
        d["candidates"] = [c for c in d["candidates"] if state.player(c).alive]
        if len(d["candidates"]) <= 1:
            self._finish_day(state, at, d["candidates"][0] if d["candidates"] else None, [], lines, out)
            return
        result, _ = days.ld_tally(state)
        if len(result.top) == 1:
            self._finish_day(state, at, result.top[0], [], lines, out)
            return
        # 001 §5.4 遗言计票: each will adds +1 to every candidate it accuses
        d["wills_counted"] = True
        result, extra = days.ld_tally(state)
        lines.append(hot.text("wills_header"))
        for c in d["candidates"]:
            lines.append(hot.later("wills_line", name=c, added=extra[c], count=result.counts[c]))
        if len(result.top) == 1:
            self._finish_day(state, at, result.top[0], [], lines, out)
            return
        self._next_summon_round(state, at, lines, out)

    def _next_summon_round(self, state: GameState, at: datetime, lines: list[str], out: Messages) -> None:
        """001 §5.5 天神招魂: the dead of N_k, then N_{k-1}…, one 6-h round each (B17)."""
        hot, k = self._hot, state.phase.number
        d = state.data["day"]
        rounds = days.summon_nights(state)
        r = d["summon_round"]
        if r >= min(len(rounds), self.clock.summon_rounds()):
            self._finish_day(state, at, None, [], lines, out)
            return
        d["summon_round"] = r + 1
        d["summoned"] = rounds[r]
        d["step_ends_at"] = iso(ends := self.clock.summon_round_ends(at), ends.utcoffset())
        state.phase.step = "summon"
        summoned = "、".join(rounds[r])
        lines.append(hot.later("summon_start", summoned=summoned, candidates="、".join(d["candidates"]),
                                ends=show_for(state, days.ts(d["step_ends_at"]))))
        out.post(MAIN, Lines("\n", lines))
        out.post(f"vote:{k}", hot.later("summon_thread", summoned=summoned, candidates="、".join(d["candidates"]),
                                          ends=show_for(state, days.ts(d["step_ends_at"]))))
        for name in rounds[r]:
            out.pm(name, hot.text("summon_subject"),
                   hot.later("summon_pm", candidates="、".join(d["candidates"]), ends=show_for(state, days.ts(d["step_ends_at"]))))

    def _close_summon_round(self, state: GameState, at: datetime, out: Messages) -> None:
        hot = self._hot
        d = state.data["day"]
        result, _ = days.ld_tally(state)
        count = days.summon_tally(state, executed=True)
        record_tally(out.log, None, count)  # the summon round's post has its own lines, the log none
        lines = [hot.later("summon_header", round=d["summon_round"])]
        lines += [hot.later("summon_line", name=r.name, count=r.total) for r in count.rows]
        if len(result.top) == 1:
            self._finish_day(state, at, result.top[0], [], lines, out)
            return
        self._next_summon_round(state, at, lines, out)

    def _finish_day(self, state: GameState, at: datetime, executed: str | None, missing: list[str],
                    lines: list[str], out: Messages) -> None:
        """Execution (or nobody), removals, the win check; then night k+1 starts."""
        spec, hot, k = self.spec, self._hot, state.phase.number
        note(out.log, f"day {k}: executed {executed or 'nobody'}", *([] if executed else ["no_execution"]))
        if executed:
            p = state.player(executed)
            die(state, p, "executed")
            lines.append(hot.later_of("executed", {"name": executed, "identity": days.identity(hot, p)}))
        else:
            lines.append(hot.later_of("nobody_executed", {}))
        self._on_day_end(state, executed, lines, out)
        days.remove_non_voters(spec, state, missing, lines, out.notes)
        if self.announce_victory(state, at, out, lines):
            return
        self._begin_night(state, k + 1, at)
        lines.append(hot.later_of("night_start", {"n": k + 1, "ends": show_for(state, state.phase.ends_at)}))
        out.post(MAIN, Lines("\n", lines))

    # ---- victory --------------------------------------------------------------------

    def _on_day_end(self, state: GameState, executed: str | None, lines: list[str], out: Messages) -> None:
        """The family's bookkeeping at the moment the execution is decided (before removals)."""

    # ---- PMs ------------------------------------------------------------------------

    def pm_command(self, state: GameState, p: Player, cmd: Command, at: datetime, out: Messages) -> str:
        verb = cmd.verb
        if verb == "accuse":
            return days.accuse(state, p, cmd.arg)
        day = peek(state.data, "day")  # read only here: not copied for every PM
        revived = state.phase.kind == "day" and p.name in day.get("revived", [])
        if not p.alive and not (revived and verb in ("delegate", "vote", "count", "done")):
            summoned = state.phase.kind == "day" and p.name in day.get("summoned", [])
            if verb == "vote" and summoned and state.phase.step == "summon":
                return days.cast_vote(state, p, cmd.arg, at, "pm")
            raise Refused(self._hot.later("dead_player"))
        if verb in self.powers or verb in ("declaration", "story", "cancel"):
            held = self.abilities.holds(p.role, verb)
            abilities.check_window(self.spec, held or self._window_of(p, verb), state, at)
            if verb == "cancel":
                return self._cancel(state, p, cmd.arg)
            if verb in ("declaration", "story"):
                return nights.take_declaration(self.spec, state, p, cmd.text, story=verb == "story")
            line = nights.take_power(self.spec, state, p, cmd, self.actions, held)
            nights.tell_partners(self.spec, state, p, line, out)
            return line
        if verb == "delegate":
            return days.delegate(state, p, cmd.arg, at)
        if verb == "vote":
            raise Refused(self._hot.later("vote_in_thread"))
        if verb == "count":
            return self.count_reply(state, self.ballots.shown(state))
        if verb == "done":
            state.data.setdefault("done", [])
            if p.name not in state.data["done"]:
                state.data["done"].append(p.name)
            return "本时段的行动已完成（所有人都完成后天神可以提前结束本时段）"
        raise Refused("这个指令现在用不上。")

    def _window_of(self, p: Player, verb: str) -> abilities.Ability:
        """Whose window a command is judged by: the ability it names, else (a declaration,
        a cancel) the player's own, else the first a role holds."""
        tab = self.abilities
        found = tab.holds(p.role, verb) or tab.by_command(verb) or tab.first(p.role)
        return found or next(a for a in tab.by_id.values() if a.roles)

    def _cancel(self, state: GameState, p: Player, what: str) -> str:
        for ability in self.abilities.held(p.role):
            if ability.cancel != "never" and state.data["subs"].get(ability.id, {}).pop(p.name, None):
                return self._hot.text("cancelled", name=ability.name)
        raise Refused(self._hot.later("nothing_to_cancel"))

    def pm_help(self, state: GameState, p: Player) -> str:
        return str(self.pm_help_text(state, p))

    def pm_help_text(self, state: GameState, p: Player) -> str | Text:
        """The help lists exactly the player's abilities (core.abilities); a role holding none
        gets its own help (`help_<role>`, game_ten's 待选职业者: 转职) or `help_none`; unrendered
        (a family's own `pm_help` is asked instead)."""
        if type(self).pm_help is not ForumGame.pm_help:
            return self.pm_help(state, p)
        verb = "/".join(abilities.help_names(self.abilities, p.role))
        if not verb:
            key = f"help_{p.role}"
            return self._hot.later(key if key in self._hot.texts else "help_none")
        return self._hot.later("help", verb=verb, example=next(q.name for q in state.players if q.name != p.name))

    # ---- posts ----------------------------------------------------------------------

    # 001 §5.1 投票一旦投出，就禁止修改: the first vote stands, an edited one counts as first written
    ballot_policy = BallotPolicy(change="never", dead_may_vote=True, tie="runoff")

    def hint_key(self, state: GameState, post: PostIn) -> str:
        return f"{post.thread}:{days.ballot_kind(state)}"  # the main vote, 生死投票, each 招魂 round

    def dead_may_vote(self, state: GameState, p: Player) -> bool:
        return days.may_vote_dead(state, p.name)

    def take_vote(self, state: GameState, p: Player, post: PostIn, vote: VotePost, out: Messages) -> str:
        if vote.name is None:  # issue 17; the GM is told: a player who never votes is out (001 §5.3)
            raise unreadable(self.spec, out, p.name, post.text, vote.error)
        return days.cast_vote(state, p, vote.name, post.at, "post")

    def vote_taken(self, state: GameState, p: Player, post: PostIn, vote: VotePost, line: str,
                   out: Messages) -> None:
        VotePosts.vote_taken(self, state, p, post, vote, line, out)  # (super(), without its object a vote)
        if post.edited:
            note = self._hot.text("edited_vote", counted=line) if post.original_text is not None else ""
            out.log.append(f"post {post.id} by {p.name} was edited before it was read: check it")
            if note:
                out.pm(p.name, self._hot.text("receipt_subject"), note)

    # ---- the GM's overrides (tianshen admin) ----------------------------------------------

    # ---- victory and views ----------------------------------------------------------

    # 001 §7.2.2: the holders who must all be dead for a tie in numbers to go to the killers
    TIE_HOLDERS: tuple[str, ...] = ("curser", "blesser", "summoner")

    def count_reply(self, state: GameState, shown: DayTally | None) -> str:
        return days.current_count(self.spec, state, shown)

    def can_draw(self) -> bool:
        """001 B36: both sides' conditions at once end in a draw only with `simultaneous_win = "draw"`."""
        return str(self.spec.options.get("simultaneous_win", CIVILIANS)) == "draw"

    def check_victory(self, state: GameState) -> str | None:
        return winner(state, self.TIE_HOLDERS)  # 001 §7 (rules.common.roles.winner)

    def seat_view(self, state: GameState, name: str) -> dict[str, Any]:
        """What the role PM told the seat besides its role: its partners (002 杀手, the 13-player
        pairs), as they are now (001 §2.10: a converted killer is told his)."""
        return {"partners": [q.name for q in partners(self.spec, state, state.player(name))]}

    def player_notes(self, state: GameState, p: Player) -> dict[str, Any]:
        if state.phase.kind == "day":
            return {"can_vote": p.alive and p.name not in state.data["day"].get("cannot_vote", [])}
        return {}
