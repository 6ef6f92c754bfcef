"""`n_lives` (猫有n条命): seed 000, 5–7 players who each hold 4–5 cards.

Here: the deal and the role PMs (§2, §4), PM intake with action points (§3.3, intake.py),
discard orders and the reorder windows (§6), the night (night.py, DECISIONS 1.1.7) and the
day (day.py, 1.1.8), the announcements of 1.1.9 (never an identity, §5.8), the self-chooser
(§2, §3.4.3), victory and the draw (§10, 1.1.10).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tianshen.core import checkin
from tianshen.core.ballots import BallotPolicy
from tianshen.core.clock import ends_after, show_for
from tianshen.core.deaths import die
from tianshen.core.flow import ANY, Step
from tianshen.core.grammar import Command
from tianshen.core.model import (
    GameState,
    Phase,
    Player,
    PostIn,
    PrivateMessage,
    peek,
    put,
)
from tianshen.core.outbox import Messages
from tianshen.core.ruleset import GameSetup, Ruleset
from tianshen.core.spec import Lines, RulesetSpec, Text
from tianshen.core.tally import DayTally
from tianshen.core.vote_post import VotePost, resolve_name, unreadable
from tianshen.rules.n_lives import cards, commands, ledgers, victory
from tianshen.rules.n_lives import day as days
from tianshen.rules.n_lives import night as nights
from tianshen.rules.n_lives.abilities import abilities
from tianshen.rules.n_lives.intake import Refused

MAIN = "main"


class NLives(Ruleset):
    def __init__(self, spec: RulesetSpec) -> None:
        super().__init__(spec)
        self.actions = ledgers.Privileges(spec)
        self.ballots = ledgers.DayVotes(self._cast)

    # ---- setup (§2, §4, §5.2, §5.3) ---------------------------------------------------

    def deal(self, state: GameState, game: GameSetup) -> None:
        self.deal_roles(state, game.fixed_roles, cards.factions_for(self.spec, len(state.players)))  # §2

    def begin(self, state: GameState, game: GameSetup) -> None:
        spec = self.spec
        state.data.update(
            seq=0, actions=[], queued=[], mods=[], day_bisha=[], saint={}, saint_used=[], bisha_used=[],
            streaks={"bind": [], "heal": []}, discarded=0, windows=0, reorder_until=None, done=[], day={},
            quiet=0, substitutes=list(game.substitutes), started_at=game.start.isoformat(),
            order_until=ends_after(game.start, spec.timing.hours("order_hours", 24)).isoformat(),
        )
        if game.setup.get("hands"):
            cards.fixed_hands(self.spec, state, game.setup)
        else:
            cards.deal(spec, state)
            cards.draw_attributes(spec, state)
        for p in state.players:
            p.extra.update(escrow=None, pardoned=False, ap=0, mode=None)
        state.data["total"] = len(state.data["cards"])
        self._begin_night(state, 1, game.start, Messages())
        checkin.open_window(state, game.start, float(spec.options.get("checkin_hours", 0)))

    def player_list_values(self, state: GameState) -> dict[str, Any]:
        return {"checkin_until": show_for(state, checkin.deadline(state)),
                "order_until": show_for(state, _ts(state.data["order_until"]))}

    def role_pm(self, state: GameState, p: Player) -> Text:
        spec = self.spec
        chooser: str | Lines = ""
        if p.role == "chooser":
            restriction = spec.later("chooser_no_civilian" if len(state.players) == 7 else "chooser_default_civilian")
            chooser = Lines("", ["\n", spec.later("chooser_menu", restriction=restriction)])
        held = cards.held(p)
        lines = [spec.later("card_line", n=i + 1, card=cards.name_of(spec, state, c), abilities=self._powers(state, c))
                 for i, c in enumerate(held)]
        commoners_first = sorted(held, key=lambda c: cards.is_privilege(state, c))  # §6.2: 底牌 a privilege
        example = "、".join(cards.name_of(spec, state, c) for c in commoners_first)
        other = next(q.name for q in state.players if q.name != p.name)
        return spec.later("role_pm", forum_name=p.forum_name, name=p.name, alias=self.role_alias(p), title=spec.title,
                          faction=spec.factions[p.faction], chooser=chooser, count=len(held),
                          hand=Lines("\n", lines), ap=p.extra["ap"], order_until=show_for(state, _ts(state.data["order_until"])),
                         example=example, example_action=f"占卜 {other}",
                         min_chars=int(spec.options.get("decl_min_chars", 100)))

    def _powers(self, state: GameState, card: str) -> str:
        return self.spec.derived("n_lives.powers", _powers_by_type)[cards.card_type(state, card)]

    # ---- the clock ----------------------------------------------------------------------

    # the night and the day, each ended early by everyone's /done (DECISIONS §0.5); night
    # 1's extension moves the reorder window with it
    STEPS = (
        Step("night", ANY, "dawn", "_dawn", deadline_words="天亮", early_done=True, shift=("order_until",), number=1,
             next=("day:vote",)),
        Step("night", ANY, "dawn", "_dawn", deadline_words="天亮", early_done=True, next=("day:vote",)),
        Step("day", "vote", "dusk", "_dusk", words="投票", deadline_words="天黑", early_done=True, votes=True,
             next=("night",)),
    )

    # ---- night ------------------------------------------------------------------------

    def _begin_night(self, state: GameState, k: int, at: datetime, out: Messages) -> None:
        """§3.3.1, §3.2, A44: every living player gets 2 AP plus 1 per 庶民 he holds (escrow
        not held); night privileges sent by day are charged now (1.1.5)."""
        state.phase = Phase(kind="night", number=k, started_at=at,
                            ends_at=ends_after(at, self.spec.timing.night_hours))
        state.data.update(done=[], actions=[], day={})
        state.data.pop("early_at", None)
        for p in state.players:
            if p.alive:
                income = 2 + cards.count_commoners(state, p)
                p.extra["ap"] += income
                if k > 1:
                    out.pm(p.name, _numbered(self.spec, "ap_subject", k),
                           self.spec.later("ap_pm", n=k, income=income, ap=p.extra["ap"]))
        state.data["night_hands"] = {p.name: cards.hand(p) for p in state.players if p.alive}
        queued, state.data["queued"] = state.data["queued"], []
        for action in queued:
            commands.take_queued(self.spec, state, action, out)

    def _dawn(self, state: GameState, at: datetime, out: Messages) -> None:
        spec, k = self.spec, state.phase.number
        if k == 1:
            commands.close_first_night(self.spec, state, out)
        commands.drop_undeclared(self.spec, state, out)
        dawn = nights.resolve(spec, state, out.log)
        lines: list[str | Text | Lines] = [spec.later("dawn_header", n=k)]
        for name in dawn.pardoned:
            lines.append(spec.later("dawn_pardoned", name=name))
        for name, card in dawn.escrow_final:
            lines.append(spec.later("dawn_escrow_final", name=name, kind=cards.kind(self.spec, state, card)))
        if dawn.declarations:
            lines.append(spec.later("dawn_declaration"))
            lines += ["\n".join("> " + ln for ln in d.split("\n")) for d in dawn.declarations]
        lost_any = False
        for p in state.players:
            if lost := dawn.lost.get(p.name, []):
                lost_any = True
                lines.append(spec.later("dawn_lost", name=p.name, cards=cards.kinds(self.spec, state, lost)))
        finals = len([c for cs in dawn.lost.values() for c in cs]) + len(dawn.escrow_final)
        if dawn.saved:
            lines.append(spec.later("dawn_saved", names="、".join(dawn.saved)))
        if not lost_any:
            lines.append(spec.later("dawn_nothing"))
        dead = self._deaths(state, "night")
        lines += [spec.later("dawn_dead", name=n) for n in dead]
        self._private_dawn(state, dawn, out)
        cards.count_losses(state, finals)
        if self.announce_victory(state, at, out, lines):
            return
        cards.reorder_check(self.spec, state, at, lines)
        self._begin_day(state, at, dawn.saved)
        lines.append(spec.later("dawn_footer", n=k, ends=show_for(state, state.phase.ends_at)))
        out.post(MAIN, Lines("\n\n", lines))
        self._open_vote(state, out)

    def _private_dawn(self, state: GameState, dawn: nights.Dawn, out: Messages) -> None:
        """1.1.9: investigation answers, and every living player's hand and AP, by PM."""
        spec, k = self.spec, state.phase.number
        table = abilities(spec)
        asked = {"divine": "killer", "foresee": "werewolf", "probe_diviner": "diviner", "probe_prophet": "prophet"}
        answers: dict[str, list[str | Text | Lines]] = {}
        for actor, ability, target, yes in dawn.answers:
            key = "answer_yes" if yes else "answer_no"
            answers.setdefault(actor, []).append(spec.later(
                key, ability=table[ability].name, target=target, card=spec.later(f"answer_card_{asked[ability]}")))
        for actor, lines in answers.items():
            out.pm(actor, _numbered(spec, "answer_subject", k), Lines("\n", lines))
        for p in state.players:
            if p.alive and (peek(p.extra, "hand") or p.extra.get("escrow")):
                out.pm(p.name, _numbered(spec, "hand_subject", k), cards.hand_text(self.spec, state, p))


    # ---- day ----------------------------------------------------------------------------

    def _begin_day(self, state: GameState, at: datetime, saved: list[str]) -> None:
        k = state.phase.number
        state.phase = Phase(kind="day", number=k, started_at=at, ends_at=ends_after(at, self.spec.timing.day_hours),
                            step="vote")
        state.data.update(done=[], actions=[])
        early = state.data.pop("early_delegations", {})
        delegations = {v: t for v, t in early.items()
                       if v not in saved and state.player(v).alive and state.player(t).alive}
        state.data["day"] = {"votes": {}, "delegations": delegations, "cannot_vote": list(saved)}
        state.data.pop("early_at", None)

    def _open_vote(self, state: GameState, out: Messages) -> None:
        """§5.6: the vote thread within an hour of dawn (DECISIONS: at dawn), open to day end."""
        k = state.phase.number
        barred = "、".join(state.data["day"]["cannot_vote"]) or "无"
        out.post(f"vote:{k}", self.spec.later("vote_thread", n=k, ends=show_for(state, state.phase.ends_at), barred=barred),
                 title=_numbered(self.spec, "vote_thread_title", k))

    def _dusk(self, state: GameState, at: datetime, out: Messages) -> None:
        spec, k = self.spec, state.phase.number
        dusk = days.resolve(state, spec.options, out.log)
        lines: list[str | Text | Lines] = [spec.later("dusk_header", n=k)]
        lines += [spec.later("dusk_bisha", name=n, kind=cards.kind(self.spec, state, c)) for n, c in dusk.bisha]
        lines += days.tally_lines(self.spec, dusk.tally)
        if not dusk.executed:
            lines.append(spec.later("executed_none"))
        for name in dusk.executed:
            now = next((c for n, c in dusk.lost_now if n == name), None)
            if name in dusk.escrowed:
                lines.append(spec.later("executed_escrow", name=name))
            elif now:
                lines.append(spec.later("executed_now", name=name, kind=cards.kind(self.spec, state, now)))
        for saint, losses in dusk.revenge.items():
            if losses:
                lines.append(spec.later("saint_revenge", name=saint, names="、".join(v for v, _ in losses),
                                        losses=Lines("，", [spec.later("saint_loss", name=v, kind=cards.kind(self.spec, state, c))
                                                           for v, c in losses])))
        for name in dusk.missing:
            self._remove(state, state.player(name), "no_vote")
            lines.append(spec.later("removed_no_vote", name=name))
            out.notes.append(f"{name} 没有投票也没有委托投票，已按 000 §8.5 退出游戏")
        lines += [spec.later("dusk_dead", name=n) for n in self._deaths(state, "day")]
        finals = len(dusk.bisha) + len(dusk.lost_now) + sum(len(v) for v in dusk.revenge.values())
        cards.count_losses(state, finals)
        state.data["mods"] = []
        if self.announce_victory(state, at, out, lines):
            return
        cards.reorder_check(self.spec, state, at, lines)
        self._begin_night(state, k + 1, at, out)
        lines.append(spec.later("night_start", n=k + 1, ends=show_for(state, state.phase.ends_at)))
        out.post(MAIN, Lines("\n\n", lines))


    # ---- deaths, losses, reorder windows, victory ----------------------------------------------

    def _deaths(self, state: GameState, when: str) -> list[str]:
        """§5.8: a player is out when it is announced that he holds no card (escrow is held)."""
        dead = []
        for p in state.players:
            if p.alive and not peek(p.extra, "hand") and not p.extra.get("escrow"):  # `cards.held`, without its call
                die(state, p, "cards")
                dead.append(p.name)
        return dead

    def _remove(self, state: GameState, p: Player, cause: str) -> None:
        """Out of the game with his cards (A33: not counted for the reorder thresholds)."""
        p.extra["hand"], p.extra["escrow"] = [], None
        die(state, p, cause)

    def can_draw(self) -> bool:
        """000 §10.5: all dead, or two who cannot put each other out (victory.winner)."""
        return True

    def check_victory(self, state: GameState) -> str | None:
        return victory.winner(state, self.spec.options)

    game_over_joiner = "\n\n"

    def winner_values(self, state: GameState, winner: str) -> dict[str, Any]:
        spec = self.spec
        if winner == "draw":
            return {"members": spec.later("draw_members", factions="、".join(
                spec.factions[f] if f in spec.factions else f for f in victory.draw_factions(state)))}
        return {"members": spec.later("win_members", names="、".join(victory.members(state, winner)))}

    def final_line(self, state: GameState, p: Player) -> str:
        return self._reveal(state, p)

    def _reveal(self, state: GameState, p: Player) -> str:
        """§10, 1.1.9 "Game end: everything": faction, hand, attributes."""
        spec = self.spec
        owned = [c for c, _ in _all_cards_of(state, p)]
        attrs = {"killer": "杀手", "werewolf": "狼人", "diviner": "占卜", "prophet": "先知"}
        shown = "、".join(cards.name_of(spec, state, c) + (f"（{attrs[a]}属性）" if (a := state.data["cards"][c]["attr"])
                                                          else "") for c in owned) or "无"
        return f"{p.label}：{commands.side_text(self.spec, p)}；剩余手牌：{shown}"

    # ---- PMs ----------------------------------------------------------------------------

    def pm_command(self, state: GameState, p: Player, cmd: Command, at: datetime, out: Messages) -> str:
        verb = cmd.verb
        if verb == "help":
            return self.pm_help(state, p)
        if not p.alive:
            raise Refused(self.spec.later("dead_player"))
        if verb == "order":
            return commands.order(self.spec, state, p, cmd, at)
        if verb == "side":
            return commands.side(self.spec, state, p, cmd.arg)
        if verb in ("declaration", "story"):
            return commands.declaration(self.spec, state, p, cmd, at)
        if verb == "cancel":
            return commands.cancel(self.spec, state, p, cmd.arg, at)
        if verb == "delegate":
            return self._delegate(state, p, cmd.arg)
        if verb == "vote":
            raise Refused(self.spec.later("vote_in_thread"))
        if verb == "count":
            return self.count_reply(state, self.ballots.shown(state))
        if verb == "done":
            if p.name not in state.data["done"]:
                state.data["done"].append(p.name)
            return "本时段的行动已完成（所有人都完成后天神可以提前结束本时段）"
        return commands.take(self.spec, state, p, cmd, at)

    def pm_help(self, state: GameState, p: Player) -> str:
        return str(self.pm_help_text(state, p))

    def pm_help_text(self, state: GameState, p: Player) -> Text:
        other = next(q.name for q in state.players if q.name != p.name)
        return self.spec.later("help", example=other, min_chars=int(self.spec.options.get("decl_min_chars", 100)),
                               hand=cards.describe_hand(self.spec, state, cards.hand(p)), ap=p.extra.get("ap", 0))

    # ---- the vote (§8) --------------------------------------------------------------------

    # §8.1, §8.3, A43: one vote a day, by a post in the vote thread; the first valid one counts and
    # cannot be changed (an edited post counts as first written); a refused post gets the form
    ballot_policy = BallotPolicy(change="never", tie="top_two")

    def take_vote(self, state: GameState, p: Player, post: PostIn, vote: VotePost, out: Messages) -> str:
        if vote.name is None:  # issue 17; the GM is told: a player who never votes is out (§8.5)
            raise unreadable(self.spec, out, p.name, post.text, vote.error)
        return self._cast(state, p, vote.name, post.at, "post")

    def _cast(self, state: GameState, p: Player, written: str, at: datetime, source: str) -> str:
        d = peek(state.data, "day")  # looked at; the vote written with `put` (issue 37: no whole-day copy)
        if not p.alive:
            raise Refused(self.spec.later("dead_player"))
        if p.name in d["cannot_vote"]:
            raise Refused(self.spec.later("vote_barred"))
        if p.name in d["votes"]:
            raise Refused(self.spec.later("vote_twice", target=d["votes"][p.name]["target"]))
        target = self._living(state, written)
        put(state.data, ("day", "votes"), p.name, {"target": target, "at": at.isoformat(), "source": source})
        if p.name in d["delegations"]:  # §8.4: his own vote makes the delegation void
            del state.data["day"]["delegations"][p.name]
        return self.spec.text("vote_ok", target=target)

    def _delegate(self, state: GameState, p: Player, written: str) -> str:
        """§8.4: a definite name by PM before the end ("只要在投票结束前寄出…都视为有效": sent
        at night it is for the coming day); it can change until it is published."""
        if state.phase.kind == "night":
            target = self._living(state, written)
            state.data.setdefault("early_delegations", {})[p.name] = target
            return self.spec.text("delegate_ok", target=target) + f"（用于第{state.phase.number}天的投票）"
        d = state.data["day"]
        if p.name in d["cannot_vote"]:
            raise Refused(self.spec.later("vote_barred"))
        if p.name in d["votes"]:
            raise Refused(self.spec.later("vote_twice", target=d["votes"][p.name]["target"]))
        target = self._living(state, written)
        d["delegations"][p.name] = target
        return self.spec.text("delegate_ok", target=target)

    def _living(self, state: GameState, written: str) -> str:
        name = resolve_name(written, [q.name for q in state.players])  # issue 17: `委托投票 丙，理由`
        if not state.player(name).alive:
            raise Refused(f"{name}已经出局。")
        return name

    def count_reply(self, state: GameState, shown: DayTally | None) -> str:
        """The votes posted weighed by cards (§8.2), not the delegations (§8.4)."""
        if shown is None:
            raise Refused("现在没有进行中的投票。")
        rows = days.tally(state, {b.voter: (b.target, False) for b in shown.ballots}, [])
        lines = "\n".join(f"{r.name}：{r.raw}票" for r in rows) or "还没有人投票。"
        return self.spec.text("count_reply", lines=lines)

    # ---- seats and the GM's overrides ---------------------------------------------------

    def seat_taken(self, state: GameState, p: Player) -> list[PrivateMessage]:
        return [PrivateMessage(to=p.forum_name, subject=self.spec.text("role_pm_subject", title=self.spec.title),
                               body=Lines("\n\n", [self.role_pm(state, p), cards.hand_text(self.spec, state, p)]))]

    def remove(self, state: GameState, p: Player, cause: str, at: datetime) -> None:
        """§9.1: out at once with his cards; his identity stays secret (§5.8)."""
        self._remove(state, p, cause)

    # ---- views --------------------------------------------------------------------------

    def seat_view(self, state: GameState, name: str) -> dict[str, Any]:
        """§4, §5.3: a player is told his own cards in order and his action points (hand_pm)."""
        p = state.player(name)
        return {"cards": [cards.name_of(self.spec, state, c) for c in cards.hand(p)], "ap": p.extra.get("ap", 0)}

    def role_words(self, p: Player) -> str:
        return commands.side_text(self.spec, p)

    def player_notes(self, state: GameState, p: Player) -> dict[str, Any]:
        """The GM's view (replay `state`, `admin status`): cards in order, escrow, AP."""
        spec = self.spec
        escrow = p.extra.get("escrow")
        view: dict[str, Any] = {
            "cards": [cards.name_of(spec, state, c) for c in cards.hand(p)],
            "escrow": cards.name_of(spec, state, escrow) if escrow else None,
            "ap": p.extra.get("ap", 0),
            "pardoned": p.extra.get("pardoned", False),
        }
        if p.role == "chooser":
            view["mode"] = p.extra.get("mode")
        attrs = {cards.name_of(spec, state, c): a for c in cards.hand(p) if (a := state.data["cards"][c]["attr"])}
        if attrs:
            view["attributes"] = attrs
        if state.phase.kind == "day":
            view["can_vote"] = p.alive and p.name not in state.data["day"]["cannot_vote"]
        return view

    def public_identity(self, state: GameState, p: Player) -> str:
        """§5.8 所有死者的游戏身份都不公布."""
        return ""


def _all_cards_of(state: GameState, p: Player) -> list[tuple[str, str]]:
    held = cards.hand(p) + ([p.extra["escrow"]] if p.extra.get("escrow") else [])
    return [(c, cards.card_type(state, c)) for c in held]


def _powers_by_type(spec: RulesetSpec) -> dict[str, str]:
    """Card type -> what its role-PM line says it can do (once per spec)."""
    table = abilities(spec)
    return {ctype.id: "每夜多得1点行动点数" if ctype.is_commoner
            else "、".join(f"{table[a].name}（{table[a].cost}点）" for a in ctype.abilities)
            for ctype in cards.card_types(spec).values()}


def _numbered(spec: RulesetSpec, key: str, n: int) -> str:
    """A subject or title of the variant with its night or day number (`spec.text`), filled
    once per spec and number: every living player gets two a night."""
    done: dict[tuple[str, int], str] = spec.derived("n_lives.numbered", lambda s: {})
    text = done.get((key, n))
    if text is None:
        text = done[(key, n)] = spec.text(key, n=n)
    return text


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value)
