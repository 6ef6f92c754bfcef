"""`butterfly_elder`: the 16-player game of seed 004 (DECISIONS §5).

A round k (轮, 一 "从夜晚行权开始至第二天投票完结束") is the phase `night k` (the power
window, then the silence after the 看表帖: step "power", then "silence") and `day k`
(discussion and the vote, in thread "vote:k", opened with the results post).  Deadlines:
`powers_end` (the 看表帖), `results` (the power results, the vote thread), `vote_end`.
Powers are in `powers.py`, the vote in `vote.py`; here are the clock, the PM and post
intake, deaths and wills, 诈尸 and lurking, the GM's overrides and the win.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tianshen.core import abilities
from tianshen.core.ballots import BallotPolicy, short
from tianshen.core.clock import ends_after, show_for
from tianshen.core.events import record_tally
from tianshen.core.flow import ANY, Step
from tianshen.core.model import (
    GameState,
    GmIn,
    Outcome,
    Phase,
    Player,
    PostIn,
    peek,
    put,
)
from tianshen.core.names import seat_names
from tianshen.core.outbox import Messages
from tianshen.core.overrides import PLAYER, Override, extra
from tianshen.core.ruleset import GameSetup, GmRefused, Ruleset
from tianshen.core.spec import Lines, RulesetSpec, Text
from tianshen.core.vote_post import VotePost, quote_note, refusal
from tianshen.rules.butterfly_elder import deaths, powers, vote
from tianshen.rules.butterfly_elder.ledgers import LatestPosts, RoundActions
from tianshen.rules.butterfly_elder.powers import Refused
from tianshen.rules.butterfly_elder.roles import (
    DRAW,
    GOOD,
    INDEPENDENTS,
    KILLERS,
    is_killer,
    living,
    winner,
)

MAIN = "main"
POWER_ROUND = abilities.Ability("power_round", "", (), window="power")  # the window of every PM power


class ButterflyElder(Ruleset):

    def __init__(self, spec: RulesetSpec) -> None:
        super().__init__(spec)
        self.actions = RoundActions(spec)
        self.ballots = LatestPosts(spec)
        self.powers = self.abilities.commands()

    # ---- setup (补充 一 1: the GM tells every player his role; the player confirms) -------------

    def begin(self, state: GameState, game: GameSetup) -> None:
        spec = self.spec
        powers.init(state, spec.options)
        state.data.update(substitutes=list(game.substitutes), started_at=game.start.isoformat(), ballots={},
                          wills={}, zombie_flags=[], confirmed=[], leave={},
                          lurk={"since": game.start.isoformat(), "posted": [], "warnings": {}})
        first = spec.timing.hours("warmup_hours", 24) + spec.timing.hours("power_hours", 2)
        state.phase = Phase(kind="night", number=1, started_at=game.start,
                            ends_at=ends_after(game.start, first), step="power")

    def role_extra(self, state: GameState, p: Player) -> str | Text:
        if p.role == "butterfly":  # 六 / E19: her earlier deadline is told to her only
            return self.spec.later("role_butterfly_deadline", minutes=self._early_minutes())
        if is_killer(p):  # 一 注: 杀手方共群共同行权
            return self.spec.later("role_partners", partners="、".join(q.name for q in state.players
                                                                      if is_killer(q) and q.name != p.name))
        return ""

    def _early_minutes(self) -> int:
        return int(self.abilities.by_id["hug"].lock or 0)  # 六, E19: the hug's lock

    # ---- the clock (DECISIONS 5.1.2, E1 `004.schedule`) ------------------------------------------

    STEPS = (
        Step("night", "power", "powers_end", "_clock_post", words="权力行使", deadline_words="权力截止", next=("night:silence",)),
        Step("night", "silence", "results", "_results", words="看表禁言", deadline_words="公布结果", next=("day",)),
        Step("day", ANY, "vote_end", "_vote_end", deadline_words="投票截止", votes=True, next=("night:power",)),
    )

    def _clock_post(self, state: GameState, at: datetime, out: Messages) -> None:
        """补充 一 4: 权利行使轮截止，法官发“看表帖”，从看表帖开始，所有玩家禁言."""
        k = state.phase.number
        state.phase.step = "silence"
        state.phase.ends_at = ends_after(at, self.spec.timing.hours("silence_hours", 0.5))
        out.post(MAIN, self.spec.later("clock_post", n=k, results=show_for(state, state.phase.ends_at)))

    def _results(self, state: GameState, at: datetime, out: Messages) -> None:
        """补充 一 5: the power results end the silence; the vote thread opens (DECISIONS 5.1.4)."""
        spec, k = self.spec, state.phase.number
        res = powers.resolve(spec, state, spec.options)
        out.log += res.log
        out.log.append(f"round {k}: deaths {res.deaths}, revived {res.revived}, marks {res.marks}, "
                       f"muted {res.muted}, zero {res.zero}, check {res.check}")
        lines: list[str | Text | Lines] = [spec.later("results_header", n=k)]
        for name, cause in res.deaths:
            p = state.player(name)
            if name == res.revived:
                lines.append(spec.later("results_revived", name=name))
                continue
            deaths.die_at(self.spec, state, p, cause, at)
            lines.append(spec.later("results_dead", name=name, identity=self.public_identity(state, p)))
        if not [n for n, _ in res.deaths if n != res.revived]:
            lines.append(spec.later("results_nobody"))
        if res.muted and spec.options.get("announce_mute", True):  # E22
            lines.append(spec.later("results_muted", name=res.muted))
        if res.check:  # 一 警察: 法官回答是或否 (no answer when hugged, 六)
            police, target, answer = res.check
            key = "check_none" if answer is None else ("check_yes" if answer else "check_no")
            out.pm(police, spec.text("check_subject"), spec.later(key, n=k, target=target))
        dead = [n for n, _ in res.deaths if n != res.revived]
        if dead:
            lines.append(deaths.will_line(self.spec, state, dead, at))
        if self.announce_victory(state, at, out, lines):
            return
        state.phase = Phase(kind="day", number=k, started_at=at,
                            ends_at=ends_after(at, spec.timing.hours("day_hours", 21.5)))
        state.data["ballots"] = {}
        lines.append(spec.later("results_footer", ends=show_for(state, state.phase.ends_at)))
        out.post(MAIN, Lines("\n", lines))
        out.post(f"vote:{k}", spec.later("vote_thread", n=k, ends=show_for(state, state.phase.ends_at),
                                         candidates="、".join(p.name for p in living(state))),
                 title=spec.text("vote_thread_title", n=k))

    def _vote_end(self, state: GameState, at: datetime, out: Messages) -> None:
        """四 and 一 技能二: count, zero, lot, the one who goes out (or nobody); then lurkers
        (补充 二 2), the win, and round k+1's power window."""
        spec, k = self.spec, state.phase.number
        info = state.data.get("round_info", {})
        zero = info.get("zero") if info.get("round") == k else None
        c = vote.count(state, zero)
        revived = c.out is not None and state.player(c.out).role == "elder" and powers.may_revive(state, k)
        count = vote.day_tally(state, c, None if revived else c.out)
        record_tally(out.log, f"day {k}: counts {c.counts}, abstained {c.abstained}, zero {zero}, "
                              f"zeroed {c.zeroed}, lottery {c.lottery}, out {c.out}", count)
        lines: list[str | Text | Lines] = [spec.later("tally_header", n=k)]
        for row in count.rows:  # the votes as cast; 归零 is said below (一 技能二)
            voters = "、".join(b.voter for b in count.ballots if b.target == row.name)
            lines.append(spec.later("tally_line", name=row.name, count=row.votes, voters=voters))
        if c.abstained:
            lines.append(spec.later("tally_abstain", voters="、".join(c.abstained)))
        if not c.counts and not c.abstained:
            lines.append(spec.later("tally_none"))
        if c.zeroed:
            lines.append(spec.later("zero_applied", name=c.zeroed))
        if c.lottery:
            lot = c.lottery
            lines.append(spec.later("lottery", candidates="、".join(lot["candidates"]), count=lot["count"],
                                   size=len(lot["candidates"]), draw=lot["draw"], index=lot["index"], name=lot["name"]))
        if c.out is None:
            lines.append(spec.later("vote_peaceful"))
        else:
            p = state.player(c.out)
            if revived:  # 一 技能三, E23
                powers.revive(state)
                lines.append(spec.later("vote_revived", name=p.name))
            else:
                deaths.die_at(self.spec, state, p, "executed", at)
                lines.append(spec.later("vote_executed", name=p.name, identity=self.public_identity(state, p)))
                lines.append(deaths.will_line(self.spec, state, [p.name], at))
        deaths.lurkers(self.spec, state, at, lines, out)
        if self.announce_victory(state, at, out, lines):
            return
        self._next_round(state, at, lines, out)

    def _next_round(self, state: GameState, at: datetime, lines: list[str | Text | Lines], out: Messages) -> None:
        k = state.phase.number + 1
        state.phase = Phase(kind="night", number=k, started_at=at, step="power",
                            ends_at=ends_after(at, self.spec.timing.hours("power_hours", 2)))
        state.data["actions"] = {}
        lines.append(self.spec.later("power_round", n=k, ends=show_for(state, state.phase.ends_at)))
        out.post(MAIN, Lines("\n", lines))
        if powers.penalized(state, "extra_kill", k):
            for q in state.players:
                if is_killer(q) and q.alive:
                    out.pm(q.name, self.spec.text("receipt_subject"), self.spec.later("penalty_pm_killers", round=k))

    # ---- deaths, identity, wills (五): deaths.py ------------------------------------------------

    def public_identity(self, state: GameState, p: Player) -> str:
        return deaths.identity(self.spec, p)

    def is_muted(self, state: GameState, name: str) -> bool:
        return deaths.is_muted(state, name)


    # ---- PMs ---------------------------------------------------------------------------------

    def pm_command(self, state: GameState, p: Player, cmd: Any, at: datetime, out: Messages) -> str:
        if cmd.verb == "confirm":
            return self.spec.text("confirmed")
        if cmd.verb == "vote":
            raise Refused(self.spec.text("vote_in_thread"))
        if not p.alive:
            raise Refused(self.spec.text("dead_player"))
        # 补充 一 3–4: the power round, until its deadline; the butterfly's earlier (六, E19): the
        # window and lock of his ability (core.abilities), a cancel by his role's
        tab = self.abilities
        abilities.check_window(self.spec, tab.holds(p.role, cmd.verb) or tab.first(p.role) or POWER_ROUND, state, at)
        if cmd.verb == "cancel":
            line = powers.cancel(self.spec, state, p)
        elif cmd.verb in self.powers:
            line = powers.take(self.spec, state, p, cmd)
        else:
            raise Refused(self.spec.text("refuse_unused_verb"))
        if is_killer(p):  # 一 注: the killers share one group — each of the others is told
            for q in state.players:
                if is_killer(q) and q.name != p.name:
                    out.pm(q.name, self.spec.text("partner_subject"),
                           self.spec.later("partner_line", name=p.name, line=line))
        return line

    def pm_help(self, state: GameState, p: Player) -> str:
        verbs = self.abilities.held(p.role)
        if not verbs:
            return self.spec.text("help_none")
        return self.spec.text("help", forms="；".join(f"“{a.name} 名字”" for a in verbs))

    # ---- posts: votes, wills, 诈尸, silence, mute, activity -----------------------------------------

    def watch_activity(self, state: GameState, post: PostIn, out: Messages) -> None:
        """004 has its own will and lurking rules (on_post); the shared 001-style check is off."""

    def report_lurkers(self, state: GameState, at: datetime, out: Messages) -> None:
        """Lurkers are warned at each vote's end (`_lurkers`)."""

    # 四 / 补充 一 6: votes by posts in the vote thread, changed only by new posts (the latest
    # counts), an edited post counted as first written; no delegation; ties by a published lot
    ballot_policy = BallotPolicy(change="last_post", delegation=False, tie="lot", short=30)

    def post_taken(self, state: GameState, p: Player | None, post: PostIn, out: Messages) -> bool:
        """Every post is watched: outsiders in the vote thread, the dead (will or 诈尸), the
        one-post-a-day rule, the silence, the muted; an edit the forum did not keep."""
        if p is None or state.phase.kind == "over":
            out.log.append(f"post {post.id} by {post.author} in {post.thread}: not a player's, ignored")
            if p is None and post.thread.startswith("vote:") and state.phase.kind != "over":
                # 补充 二 5: only players with a vote (and the judges) post in the vote thread
                out.notes.append(self.spec.text("note_outsider_vote", name=post.author, text=short(post.text, 30)))
            return True
        if not p.alive:
            deaths.dead_post(self.spec, state, p, post, out)
            return True
        posted = peek(state.data, "lurk")["posted"]  # looked at, then a new list written with `put` (issue 37)
        if p.name not in posted:
            put(state.data, ("lurk",), "posted", [*posted, p.name])
        if state.phase.kind == "night" and state.phase.step == "silence":
            out.notes.append(self.spec.text("note_silence", name=p.name, thread=post.thread, text=short(post.text, 30)))
        if not post.thread.startswith("vote:"):
            if self.is_muted(state, p.name):
                out.notes.append(self.spec.text("note_muted_post", name=p.name, thread=post.thread,
                                                text=short(post.text, 30)))
            return True
        if post.edited and post.original_text is None:  # 补充 一 6 (2): 不得在原帖中进行修改
            out.refuse(p.name, post.text, self.spec.text("vote_edited_unknown"), reply_to=p.name)
            out.notes.append(self.spec.text("note_vote_edited_unknown", name=p.name, text=short(post.text, 30)))
            return True
        return False

    def read_vote(self, state: GameState, post: PostIn) -> VotePost | None:
        text = post.original_text if post.edited and post.original_text is not None else post.text
        return vote.read(text, seat_names(state))  # (the names kept: no list a post)

    def not_a_vote(self, state: GameState, p: Player, post: PostIn, out: Messages) -> None:
        """补充 二 5: only votes in the vote thread; the GM judges the rest."""
        out.log.append(f"post {post.id} by {p.name} in {post.thread}: not a vote")
        out.notes.append(self.spec.text("note_not_a_vote", name=p.name, text=short(post.text, 30)))
        self.hint_no_vote(state, p, post, out)  # issue 23 item 10: told once a vote, while he has none

    def vote_closed(self, state: GameState, post: PostIn) -> bool:
        ends = state.phase.ends_at
        return super().vote_closed(state, post) or (ends is not None and post.at >= ends)

    def take_vote(self, state: GameState, p: Player, post: PostIn, parsed: VotePost, out: Messages) -> str:
        if parsed.error:  # issue 17: unreadable or naming two players — the last vote stands
            raise Refused(refusal(parsed, self.spec.text("vote_form")))
        return vote.cast(self.spec, state, p.name, parsed.verb, parsed.name or "", post.at, post.id)

    def vote_taken(self, state: GameState, p: Player, post: PostIn, parsed: VotePost, line: str,
                   out: Messages) -> None:
        spec = self.spec
        out.log.append(f"vote by {p.name}: {line}")
        quote_note(parsed, out, p.name, post.text)
        if post.edited:
            out.pm(p.name, spec.text("receipt_subject"), spec.text("vote_edited", counted=line))
            out.notes.append(spec.text("note_vote_edited", name=p.name, text=short(post.text, 30)))
        if self.is_muted(state, p.name) and not vote.name_only(parsed):
            # 一 技能一: only the name — the vote counts, the GM judges the rest (DECISIONS 5.1.5)
            out.notes.append(spec.text("note_muted_vote", name=p.name, text=short(post.text, 30)))


    # ---- lurking (补充 二 2) -------------------------------------------------------------------


    # ---- victory (三) ------------------------------------------------------------------------

    def can_draw(self) -> bool:
        """DECISIONS E9: both sides' conditions at once are a draw unless `simultaneous` names a side."""
        return str(self.spec.options.get("simultaneous", DRAW)) == DRAW


    def check_victory(self, state: GameState) -> str | None:
        return winner(self.spec.options, state)  # 三 (roles.winner)

    dead_mark = "，已出局"

    def winner_words(self, winner: str) -> str:
        return self.spec.text(f"winner_{winner}")

    # ---- seats and the GM's overrides ----------------------------------------------------------

    def on_leave(self, state: GameState, p: Player, until: datetime) -> None:
        """补充 二 1: the player is not counted as lurking until then (at most 24 h: the
        variant's `leave_max_hours`); the phase is extended (core), the seed saying nothing
        against it."""
        state.data["leave"][p.name] = until.isoformat()

    @extra(Override("confirm-zombie", "确认诈尸", "butterfly_elder: confirm a flagged post by a dead player (诈尸); "
                    "his side's penalty applies.", (PLAYER,)))
    def gm_confirm_zombie(self, state: GameState, gm: GmIn) -> Outcome:
        """五: the GM confirms that a dead player posted (诈尸); his side is penalised in the
        next power round: good → the killers get one more kill (E14); killers → no kill;
        independents → none of their powers that round."""
        p = self._player_arg(state, gm)
        if p.alive:
            raise GmRefused(f"{p.name} is alive: only the dead can 诈尸")
        k = state.phase.number + 1
        kind = {GOOD: "extra_kill", KILLERS: "no_kill", INDEPENDENTS: "no_indep"}[p.faction]
        pens = state.data["penalties"][kind]
        if k not in pens:
            pens.append(k)
        state.data["confirmed"].append({"player": p.name, "round": k, "penalty": kind})
        out = Messages()
        out.post(MAIN, self.spec.text(f"penalty_{p.faction}", name=p.name, round=k))
        return out.outcome(state)

    def remove(self, state: GameState, p: Player, cause: str, at: datetime) -> None:
        deaths.die_at(self.spec, state, p, cause, at)

    # ---- views -----------------------------------------------------------------------------

    COUNT_NOTE = "每人以最后一帖为准"  # 四; 归零 stays secret until the count (the ledger's shown count)

    def player_notes(self, state: GameState, p: Player) -> dict[str, Any]:
        name = p.name
        view: dict[str, Any] = {
            "needle_marks": list(state.data["needles"].get(name, [])),
            "muted": self.is_muted(state, name),
            "lurk_warnings": state.data["lurk"]["warnings"].get(name, 0),
        }
        if p.role == "butterfly":
            view["butterfly_uses_left"] = state.data["butterfly_uses"]
        if p.role == "elder":
            view["revive_used"] = state.data["elder"]["revive_used"]
        return view
