"""`hex_survival`: seed 003 (003_5145167e542bffef.txt), the hex-map survival game; DECISIONS §4.

Two camps of 6 or 7 (§1) on a 16-cell hex torus (§2, D1), 50 HP each (§3).  Nights: one
attack by PM within range (§4.1).  Days: one move or one dig by PM (§4.2–4.4) and the vote of
§9 in the vote thread.  HP is settled at dawn (hunger, attacks, poison, diarrhoea) and at
dusk (food, then the punishment of the vote, D6); a player at 0 HP dies and his camp is
announced (§6.1).  A camp wins when the other is wiped out or has fewer than half its living
members (§11).

The day is not 001 §5's (changes allowed, self-vote by default, every top vote-getter
punished, nobody executed), so this family subclasses `Ruleset` and not `ForumGame`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tianshen.core import abilities, checkin, intake, rng, substitution
from tianshen.core.ballots import BallotPolicy, short
from tianshen.core.clock import ends_after, show_for
from tianshen.core.deaths import die
from tianshen.core.events import record_tally
from tianshen.core.flow import ANY, Step
from tianshen.core.grammar import Command
from tianshen.core.model import (
    GameState,
    GmIn,
    Outcome,
    Phase,
    Player,
    PostIn,
    PrivateMessage,
)
from tianshen.core.outbox import Messages
from tianshen.core.ruleset import BoardMap, GameSetup, Ruleset
from tianshen.core.spec import Lines, RulesetSpec, Text
from tianshen.core.tally import SELF
from tianshen.core.vote_post import VotePost, quote_note, unreadable, with_form
from tianshen.rules.hex_survival import ballot, commands, hexmap
from tianshen.rules.hex_survival import day as days
from tianshen.rules.hex_survival import food as foods
from tianshen.rules.hex_survival import night as nights
from tianshen.rules.hex_survival.ballot import VoteRefused
from tianshen.rules.hex_survival.ledgers import DayBallots, PhaseActions

MAIN = "main"


Refused = intake.Refused  # a command that changed nothing; the message says why

class HexSurvival(Ruleset):
    def __init__(self, spec: RulesetSpec) -> None:
        super().__init__(spec)
        self.map = hexmap.load(spec.options)
        self.food = foods.load(spec.options)
        self.actions = PhaseActions(spec)
        self.ballots = DayBallots(self._delegate)

    # ---- setup (003 §1, §2, §5.1, §7.2) ---------------------------------------------

    def begin(self, state: GameState, game: GameSetup) -> None:
        spec = self.spec
        commands.place(self.spec, self.map, state, dict(game.setup.get("cells") or {}))
        copies = int(spec.options.get("food_copies", 2))
        state.data.update(
            substitutes=list(game.substitutes), depth={c: 0 for c in self.map.cells},
            buried=days.bury(state, self.food, self.map.cells, copies, rng.shuffled),
            silence=False, started_at=game.start.isoformat(), night={}, day={},
        )
        for p in state.players:
            p.extra.update(hp=self.food.hp["start"], statuses={}, last_action=None, missed_votes=0)
        self._begin_night(state, 1, game.start)
        checkin.open_window(state, game.start, float(spec.options.get("checkin_hours", 0)))

    def player_list_values(self, state: GameState) -> dict[str, Any]:
        until = checkin.deadline(state)
        return {"checkin": self.spec.later("checkin_request", until=show_for(state, until)) if until else "",
                "map": commands.map_table(self.spec, self.map)}

    def role_pm(self, state: GameState, p: Player) -> Text:
        """§7.2: camp, HP, cell and tonight's list; team-mates only with D30
        `reveal_teammates = true` (the text never says they are told)."""
        spec = self.spec
        description: str | Text = spec.role_description(p.role)
        if spec.options.get("reveal_teammates"):
            mates = [q.name for q in state.players if q.faction == p.faction and q.name != p.name]
            description = spec.later("role_teammates", names="、".join(mates))
        return spec.later("role_pm", forum_name=p.forum_name, name=p.name, alias=self.role_alias(p), title=spec.title,
                          camp=spec.role_name(p.role), description=description,
                          status=self._status_lines(state, p, with_range=True))

    def _status_block(self, state: GameState, p: Player, with_range: bool) -> str:
        """003 §6.3–6.5: HP, statuses, (at nightfall) cell and the names in range."""
        return str(self._status_lines(state, p, with_range))

    def _status_lines(self, state: GameState, p: Player, with_range: bool) -> Lines:
        """`_status_block` rendered when read (its fields taken now)."""
        spec = self.spec
        lines: list[str | Text | Lines] = [
            spec.later("pm_hp", hp=p.extra["hp"], max=self.food.hp["max"]),
            spec.later("pm_statuses", statuses=self.food.describe(p.extra["statuses"]) or spec.text("normal"))]
        if with_range:
            lines.append(spec.later("pm_cell", cell=p.extra["cell"]))
            if foods.LOST in p.extra["statuses"]:
                lines.append(spec.later("pm_range_lost"))
            else:
                lines.append(spec.later("pm_range", names="、".join(p.extra.get("range", [])) or "—"))
        return Lines("\n", lines)

    # ---- the clock (003 §7.3–7.6) -------------------------------------------------------

    # 003 §7.3–7.6: the night, the discussion until the vote thread, the vote until dusk;
    # extensions (§7.6: +12 h for a substitute; GM extend, pause) move every remaining
    # deadline of the day, the vote's change window with it (§9.4); no early end (§0.5)
    STEPS = (
        Step("night", ANY, "night_end", "_dawn", deadline_words="夜晚结束", next=("day:discussion", "day:vote")),
        Step("day", "discussion", "vote_open", "_open_vote_at", words="白天讨论", deadline_words="开投票帖",
             deadline="day.vote_opens_at", shift=("day.vote_opens_at", "day.vote_ends_at", "day.change_until"),
             next=("day:vote",)),
        Step("day", "vote", "day_end", "_dusk", words="投票", deadline_words="白天结束", deadline="day.vote_ends_at",
             shift=("day.vote_ends_at", "day.change_until"), votes=True, next=("night",)),
    )

    def _open_vote_at(self, state: GameState, at: datetime, out: Messages) -> None:
        self._open_vote(state, out)

    # ---- night (003 §4.1) -------------------------------------------------------------

    def _begin_night(self, state: GameState, number: int, at: datetime) -> None:
        """Nightfall: the attack lists are fixed for the night (positions change only at dusk)."""
        state.phase = Phase(kind="night", number=number, started_at=at,
                            ends_at=ends_after(at, self.spec.timing.night_hours))
        state.data["night"] = {"attacks": {}}
        for p in state.players:
            p.extra["range"] = nights.attack_list(self.map, state, p) if p.alive else []

    def _dawn(self, state: GameState, at: datetime, out: Messages) -> None:
        """DECISIONS §4.1.4 (003 §3.1, §4.1, §6.1–6.4)."""
        spec, k = self.spec, state.phase.number
        dawn = nights.resolve(self.food, state, state.data["night"]["attacks"], out.log)
        lines: list[str | Text | Lines] = [spec.later("dawn_header", n=k)]
        report = str(spec.options.get("attack_report", "total_damage"))
        attacked = [p for p in state.players if p.name in dawn.damage]
        for p in attacked:  # D20: total damage only (per_hit: each hit), no attacker
            if report == "per_hit":
                hits = "、".join(f"{h}点" for h in dawn.hits[p.name])
                lines.append(spec.later("dawn_attacked_hits", name=p.name, hits=hits, total=dawn.damage[p.name]))
            else:
                lines.append(spec.later("dawn_attacked", name=p.name, damage=dawn.damage[p.name]))
        if not attacked:
            lines.append(spec.later("dawn_no_attack"))
        self._deaths(state, dawn.deaths, "hp", lines, out)
        for p in state.players:
            if p.alive:
                out.pm(p.name, spec.text("dawn_pm_subject", n=k),
                       spec.later("dawn_pm", loss=dawn.loss[p.name], status=self._status_lines(state, p, False)))
        if self.announce_victory(state, at, out, lines):
            return
        self._begin_day(state, k, at)
        d = state.data["day"]
        vote_at = _ts(d["vote_opens_at"])
        lines.append(spec.later("dawn_footer", n=k, ends=show_for(state, state.phase.ends_at), vote_at=show_for(state, vote_at)))
        out.post(MAIN, Lines("\n", lines))
        if state.phase.step == "vote":
            self._open_vote(state, out)

    def _deaths(self, state: GameState, names: list[str], cause: str, lines: list[str | Text | Lines],
                out: Messages) -> None:
        """003 §6.1: deaths announced with the camp; §8.2: each may leave a will in the next
        period; §8.4: 默哀期 from four alive."""
        spec = self.spec
        for name in names:
            p = state.player(name)
            die(state, p, cause)
            lines.append(spec.later("death", name=name, camp=self._camp(p)))
            out.pm(p.name, spec.text("death_pm_subject"), spec.later("death_pm", camp=self._camp(p)))
        self._silence_check(state, lines, out)

    def _silence_check(self, state: GameState, lines: list[str | Text | Lines], out: Messages) -> None:
        threshold = int(self.spec.options.get("silence_at_alive", 4))
        alive = len(state.alive())
        if state.data.get("silence") or self.check_victory(state) is not None:
            return  # no silence for a game that ends at this announcement
        if 0 < alive <= threshold:
            state.data["silence"] = True
            lines.append(self.spec.later("silence_start", alive=alive))
            out.notes.append(self.spec.text("note_silence", alive=alive))

    def _camp(self, p: Player) -> str:
        return self.spec.factions[p.faction]

    # ---- day (003 §4.2–4.4, §7.5, §9) ---------------------------------------------------

    def _begin_day(self, state: GameState, k: int, at: datetime) -> None:
        t = self.spec.timing
        ends = ends_after(at, t.day_hours)
        opens = ends_after(at, t.vote_opens_hour)
        state.phase = Phase(kind="day", number=k, started_at=at, ends_at=ends,
                            step="vote" if opens <= at else "discussion")
        state.data["day"] = {
            "vote_opens_at": opens.isoformat(), "vote_ends_at": ends.isoformat(),
            "change_until": (ends - timedelta(hours=t.hours("change_lock_hours", 1))).isoformat(),
            "ballots": {}, "frozen": [], "actions": {}, "leave": [], "extra_changes": 0,
        }

    def _open_vote(self, state: GameState, out: Messages) -> None:
        """003 §7.5: the vote thread within an hour of dawn (default: at dawn)."""
        k, d = state.phase.number, state.data["day"]
        state.phase.step = "vote"
        out.post(f"vote:{k}", self.spec.later("vote_thread", n=k, ends=show_for(state, _ts(d["vote_ends_at"])),
                                              change_until=show_for(state, _ts(d["change_until"])),
                                              candidates="、".join(p.name for p in state.alive()),
                                              punish=self.food.hp["punish"]),
                 title=self.spec.text("vote_thread_title", n=k))

    def _dusk(self, state: GameState, at: datetime, out: Messages) -> None:
        """DECISIONS §4.1.5: vote, actions, digging and food, punishment, deaths, day
        statuses, PMs, the win check; night k+1."""
        spec, k = self.spec, state.phase.number
        d = state.data["day"]
        votes, missing = ballot.close(state)
        count = ballot.day_tally(state, votes, missing)
        punished = list(count.executed)
        record_tally(out.log, f"day {k}: votes {votes}, punished {punished}, no vote {missing}", count)
        lines: list[str | Text | Lines] = [spec.later("tally_header", n=k), spec.text("tally_columns")]
        for row in count.rows:
            voters = [b.voter + (spec.text("tally_default") if b.how == SELF else "")
                      for b in count.ballots if b.target == row.name]
            lines.append(spec.later("tally_line", name=row.name, count=row.total, voters="、".join(voters)))
        lines.append(spec.later("punished", names="、".join(punished), hp=self.food.hp["punish"]))
        # D6 `dusk_order`: food_then_punish (default) or punish_then_food, where a player
        # punished to 0 dies before his day's action and food take effect
        punish_first = str(spec.options.get("dusk_order", "food_then_punish")) == "punish_then_food"
        gone = commands.punish(self.food, state, punished) if punish_first else []
        for name in gone:
            state.player(name).alive = False  # out of the day's moves and digs
        dusk = days.resolve(self.food, self.map, state, d["actions"], out.log)
        for name in gone:
            state.player(name).alive = True  # announced below with the others
        if not punish_first:
            commands.punish(self.food, state, punished)
        dead = [p.name for p in state.players if p.alive and int(p.extra["hp"]) <= 0]
        for p in state.players:
            if p.alive:
                foods.end_of_day(self.food, p.extra["statuses"], dusk.fresh.get(p.name, set()))
        self._deaths(state, dead, "hp", lines, out)
        self._missed_votes(state, missing, at, lines, out)
        over = self.announce_victory(state, at, out, lines)
        if not over:
            self._begin_night(state, k + 1, at)
            lines.append(spec.later("night_start", n=k + 1, ends=show_for(state, state.phase.ends_at)))
            out.post(MAIN, Lines("\n", lines))
        for p in state.players:
            if p.alive:
                out.pm(p.name, spec.text("dusk_pm_subject", n=k),
                       spec.later("dusk_pm", food=commands.food_line(self.spec, self.food, p, dusk),
                                  status=self._status_lines(state, p, with_range=not over)))

    def _missed_votes(self, state: GameState, missing: list[str], at: datetime, lines: list[str | Text | Lines],
                      out: Messages) -> None:
        """003 §9.8, §10.1.5 (D17): a second day in a row without a vote (and without leave):
        a substitute if there is one, otherwise out, camp announced."""
        d = state.data["day"]
        spec = self.spec
        out_now: list[str] = []
        for p in state.players:
            if p.name in missing and p.name not in d["leave"]:
                p.extra["missed_votes"] = int(p.extra.get("missed_votes", 0)) + 1
            elif p.name not in missing:
                p.extra["missed_votes"] = 0
            if p.alive and p.extra["missed_votes"] >= 2:
                out_now.append(p.name)
        if not out_now:
            return
        if state.data.get("substitutes") and not state.data.get("substitution"):
            for name in out_now:
                state.player(name).extra["missed_votes"] = 0
            out.notes.append(spec.text("note_two_missed_sub", names="、".join(out_now)))
            lines.append(spec.later("two_missed_sub", names="、".join(out_now)))
            state.data["pending_substitution"] = out_now
            return
        for name in out_now:
            p = state.player(name)
            die(state, p, "no_vote")
            lines.append(spec.later("removed_no_vote", name=name, camp=self._camp(p)))
            out.notes.append(spec.text("note_two_missed_out", name=name))
        self._silence_check(state, lines, out)

    # ---- victory (003 §11) --------------------------------------------------------------

    def can_draw(self) -> bool:
        """003 D19: both camps wiped out at once is a draw."""
        return True

    def check_victory(self, state: GameState) -> str | None:
        return days.winner(self.spec, state)  # 003 §11

    def game_over(self, state: GameState, at: datetime, out: Messages, winner: str | None,
                  lines: list[str]) -> None:
        state.data.pop("pending_substitution", None)
        super().game_over(state, at, out, winner, lines)

    def final_line(self, state: GameState, p: Player) -> str:
        spec = self.spec
        return spec.text("final_line", name=p.label, forum_name=p.forum_name, camp=self._camp(p),
                         fate=spec.text("alive_hp", hp=p.extra["hp"]) if p.alive else spec.text("dead"))

    # ---- PMs ------------------------------------------------------------------------

    def pm_help(self, state: GameState, p: Player) -> str:
        """His actions of this phase, as the ability table words them."""
        kind = state.phase.kind if state.phase.kind == "night" else "day"
        forms = [str(a.get("help", a.name)) for a in self.abilities.held(p.role) if a.window == kind]
        return self.spec.text(f"help_{kind}", forms="；".join(forms))

    def pm_command(self, state: GameState, p: Player, cmd: Command, at: datetime, out: Messages) -> str:
        spec = self.spec
        if cmd.verb == "status":
            return spec.text("status_line", status=self._status_block(state, p, with_range=state.phase.kind == "night"))
        if not p.alive:
            raise Refused(spec.text("dead_player"))
        ph = state.phase
        if ph.ends_at and at > ph.ends_at:
            raise Refused(spec.text("phase_over"))
        if ability := self.abilities.by_command(cmd.verb):  # window and role: core.abilities, once
            abilities.check_window(spec, ability, state, at)
            abilities.check_role(spec, self.abilities, p, cmd.verb)
            return commands.attack(self.spec, state, p, cmd.arg) if ability.target != "cell" else commands.day_action(self.spec, self.map, state, p, cmd)
        if cmd.verb == "cancel":
            return self._cancel(state, p)
        if cmd.verb in ("delegate", "vote"):
            return self._delegate(state, p, cmd.arg, at, out)
        raise Refused(spec.text("not_now"))

    def _cancel(self, state: GameState, p: Player) -> str:
        """The action of this phase, while it lasts (its `cancelled` text)."""
        for ability in self.abilities.held(p.role):
            if ability.window == state.phase.kind and ability.cancel != "never" and self.actions.void(state, p):
                return self.spec.text(str(ability.get("cancelled", "cancelled")), name=ability.name)
        raise Refused(self.spec.text("nothing_to_cancel"))

    def _delegate(self, state: GameState, p: Player, written: str, at: datetime, out: Messages) -> str:
        """003 §9.9 (D15): the GM casts a delegated vote at once, noting when it was sent;
        a delegated change uses the change (and the same limits)."""
        spec = self.spec
        if state.phase.kind != "day" or state.phase.step != "vote":
            raise Refused(spec.text("delegate_not_now"))
        chosen = ballot.choose(spec, state, p, ballot.read_arg(written, state))
        if chosen.target is None:
            raise Refused(chosen.error)
        try:
            line = ballot.cast(spec, state, p, chosen.target, at, "pm")
        except VoteRefused as exc:
            raise Refused(str(exc)) from None
        out.post(f"vote:{state.phase.number}", spec.later("delegated_post", voter=p.name, target=chosen.target,
                                                         sent=show_for(state, at)))
        return line


    # ---- posts (003 §9) -----------------------------------------------------------------

    # §9.3: one change by a new reply; an edited post is judged by its first version (a hook)
    ballot_policy = BallotPolicy(change="limited", edited="own_rule", tie="all_top",
                                 refused_text="post_refused")

    def read_vote(self, state: GameState, post: PostIn) -> VotePost | None:
        original = post.original_text if post.edited else None
        return ballot.read_post(post.text, state) or ballot.read_post(original, state)

    def not_a_vote(self, state: GameState, p: Player, post: PostIn, out: Messages) -> None:
        out.log.append(f"post {post.id} by {post.author}: not a vote")
        if self.hint_no_vote(state, p, post, out):  # §9.5: without a vote he is counted for himself
            out.log.append(f"{p.name} was told that post {post.id} holds no vote")

    def vote_taken(self, state: GameState, p: Player, post: PostIn, vote: VotePost, line: str,
                   out: Messages) -> None:
        out.log.append(f"{p.name}: {line}")
        quote_note(ballot.read_post(post.text, state), out, p.name, post.text)
        if post.edited:  # the player is told how the edited post was counted
            out.pm(p.name, self.spec.text("receipt_subject"), line)

    def take_vote(self, state: GameState, p: Player, post: PostIn, read: VotePost, out: Messages) -> str:
        """003 §9.3/§9.6, issue 17: a vote or a change (改票/改投 or any new reply); an unreadable
        post is refused with the accepted form, uses no change and freezes nothing, and the GM
        is told (a player who never votes again is counted for himself, §9.5)."""
        spec = self.spec
        if post.edited:
            original = post.original_text
            if original is not None and ballot.read_post(original, state) is None:
                raise VoteRefused(spec.text("edited_into_vote"))
            first = ballot.choose(spec, state, p, ballot.read_post(original, state))
            if first.target is None and p.name not in state.data["day"]["ballots"]:
                # §9.3: 不能判断…原来一票投给了谁，这一票将被计为投给了改票者自己 — and the GM is told
                out.notes.append(spec.text("note_edited_self", name=p.name, text=short(post.text, 30)))
            return ballot.edited_post(spec, state, p, original, post.at)
        chosen = ballot.choose(spec, state, p, ballot.read_post(post.text, state))
        if chosen.ambiguous:
            raise VoteRefused(ballot.ambiguous_original(spec, state, p, chosen.error))
        if chosen.target is None and p.name not in state.data["day"]["ballots"]:
            raise VoteRefused(str(unreadable(spec, out, p.name, post.text, chosen.error)))  # GM told (§9.5)
        if chosen.target is None:  # an unreadable change: void, the first vote and the change stand
            raise VoteRefused(with_form(chosen.error, spec.text("vote_form")))
        return ballot.cast(spec, state, p, chosen.target, post.at, "post")

    # ---- activity: wills, 诈尸, 默哀期 (003 §8.2–8.4, D28, D29): day.watch -------------------------

    def watch_activity(self, state: GameState, post: PostIn, out: Messages) -> None:
        days.watch(self.spec, state, post, out)


    # ---- seats and the GM's overrides -----------------------------------------------------

    def seat_taken(self, state: GameState, p: Player) -> list[PrivateMessage]:
        """The substitute takes the seat with its camp, HP, statuses and cell (DECISIONS §0.5)."""
        p.extra["missed_votes"] = 0
        return super().seat_taken(state, p)

    def after_death(self, state: GameState, lines: list[str | Text], out: Messages) -> None:
        """§8.4: a death may start the 默哀期."""
        self._silence_check(state, lines, out)

    def after_input(self, state: GameState, event: Any, out: Messages) -> None:
        """A substitution asked for at dusk (§9.8) is opened once the input is folded."""
        pending = state.data.pop("pending_substitution", None)
        if pending and state.phase.kind != "over":
            try:
                substitution.open_period(self.spec, state, pending, event.at, out, {})
                self.shift_schedule(state, self.spec.timing.substitution_hours)
            except ValueError as exc:
                out.notes.append(str(exc))

    def gm_substitute(self, state: GameState, gm: GmIn) -> Outcome:
        """§9.4: a day extended for a substitute gives every voter one more change."""
        outcome = super().gm_substitute(state, gm)
        if state.phase.kind == "day":
            d = state.data["day"]
            d["extra_changes"] = int(d.get("extra_changes", 0)) + 1
        return outcome

    def on_leave(self, state: GameState, p: Player, until: datetime) -> None:
        """§10.2 请假: the phase is extended (core); a missed vote today does not count (§9.8)."""
        if state.phase.kind == "day":
            state.data["day"]["leave"].append(p.name)

    # ---- views ----------------------------------------------------------------------

    COUNT_NOTE = "投票帖中已投出的票（未投票者在截止时计为投给自己）"  # §9.5: only at the close

    def board_map(self, state: GameState | None, secret: bool) -> BoardMap | None:
        """003 §5: the 4×4 torus of the variant's table; with `secret`, who stands where with
        his HP, and the dig depths (§5.1: never public)."""
        people: dict[str, tuple[str, ...]] = {}
        depths: dict[str, int] = {}
        if secret and state is not None:
            for p in state.players:
                cell = str(p.extra.get("cell") or "").lower()
                if cell and p.alive:
                    people[cell] = (*people.get(cell, ()), f"{p.name} {p.extra.get('hp', '?')}")
            depths = {name.lower(): depth for name, depth in (state.data.get("depth") or {}).items()}
        return BoardMap(self.map.cells, dict(self.map.neighbours), people, depths)

    def player_notes(self, state: GameState, p: Player) -> dict[str, Any]:
        """Replay JSON and `admin status`: HP, cell, statuses with what is left of them, and
        the map's dig depths (003 §5.1: secret from the players)."""
        return {
            "hp": p.extra.get("hp"), "cell": p.extra.get("cell"),
            "statuses": {self.food.statuses[s].name: ("∞" if left is None else left)
                         for s, left in p.extra.get("statuses", {}).items()},
            "attack_list": list(p.extra.get("range", [])),
            "dig_depths": dict(state.data.get("depth", {})),
        }


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value)
