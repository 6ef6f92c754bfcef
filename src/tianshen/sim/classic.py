"""Simulated players for `classic`: they write the PMs and vote posts a person would.

They play legally and plausibly: killers agree on one victim and write a declaration of
more than 100 characters, the binder sometimes binds the same player twice, commoners
sometimes pray together, voters follow the leading candidate or their own suspicion.
Their choices come from a RNG seeded by the game seed and the phase, so a rehearsal is
repeatable.
"""

from __future__ import annotations

import random
from datetime import datetime

from tianshen.core.abilities import table
from tianshen.core.model import GameState, Player, peek
from tianshen.core.spec import RulesetSpec
from tianshen.forum.base import PlayerSide
from tianshen.rules.common.roles import KILLERS, acts_alone, group_of, groups, is_killer, on_duty_killer
from tianshen.sim import ThreadLookup, check_in, in_draw_order, pick, pick_index, unseeded
from tianshen.specs import shared_spec

# the forms of each spec object's roles, shared by the sims that know it (the spec held so
# its id stays its own); bounded: a daemon's games may each load their spec again
_FORMS: dict[int, tuple[RulesetSpec, dict[tuple[str, str], tuple[str, ...]]]] = {}
_FORMS_MAX = 64
VOTE_FORMS = ("投票 {t}", "投票：{t}", "投 {t}", "投票　{t}")
STORY = (
    "夜色像墨一样泼在小镇上，{t}独自走在回家的石板路上，脚步声在空巷里回荡。",
    "路灯一盏接一盏地熄灭，风里带着潮湿的铁锈味，{t}回头看了一眼，却什么也没有看见。",
    "就在拐角处，一只冰冷的手捂住了他的嘴，另一只手里的刀已经悄无声息地落下。",
    "第二天清晨，人们只在井边找到一顶被露水打湿的帽子，和一张写着“下一个是谁”的纸条。",
    "杀手早已混进人群，和大家一起叹息、一起猜测，仿佛什么都没有发生过。",
)


class ClassicSims:
    def __init__(self, board: PlayerSide, gm_account: str, seed: int) -> None:
        self.board, self.gm, self.seed = board, gm_account, seed
        self.last_bind: str | None = None
        self.checked_in: set[str] = set()
        self._specs: dict[str, RulesetSpec] = {}
        self._forms: dict[tuple[str, str], tuple[str, ...]] = {}  # (variant, role) -> forms
        self._killers: set[str] = set()  # the killers' names, while `vote` runs
        # (the vote's candidates, those not killers, those killers), while `vote` runs
        self._sides: tuple[list[str], list[str], list[str]] | None = None
        self._of: dict[str, str | None] | None = None  # each player's acting group, while `night` runs
        self._seat: dict[str, int] | None = None  # each living player's place in the night's list, while `night` runs
        self._random = unseeded()  # seeded by `_rng` for every use, never drawn from before

    @property
    def seed(self) -> int:
        return self._seed

    @seed.setter
    def seed(self, value: int) -> None:
        # its text kept with it: every seeding string starts with it (an f-string makes an int's
        # decimal text anew each time, about 10 seedings a game)
        self._seed, self._seed_text = value, str(value)

    # ---- the ability table (core.abilities): who holds what, and the words to write ----

    def know(self, spec: RulesetSpec) -> None:
        """The variant the game is played by, as its ruleset holds it (read only); the forms
        written down for that spec object by earlier games (a Monte Carlo run's games share it)."""
        self._specs[spec.id] = spec
        kept = _FORMS.get(id(spec))
        if kept is None or kept[0] is not spec:
            if len(_FORMS) >= _FORMS_MAX:
                _FORMS.clear()
            kept = _FORMS[id(spec)] = (spec, {})
        kept[1].update(self._forms)
        self._forms = kept[1]

    def spec(self, state: GameState) -> RulesetSpec:
        if state.variant not in self._specs:
            self._specs[state.variant] = shared_spec(state.variant)
        return self._specs[state.variant]

    def group(self, state: GameState, p: Player) -> str:
        of = self._of
        if of is not None and p.name in of:  # while `night` runs
            return of[p.name] or p.name
        return group_of(self.spec(state), state, p) or p.name

    def alone(self, state: GameState, p: Player) -> bool:
        """`roles.acts_alone`, from the groups of the night while `night` runs."""
        of = self._of
        if of is None or p.name not in of:
            return acts_alone(self.spec(state), state, p)
        group = of[p.name]
        return group is None or group.endswith(":" + p.name)

    def forms(self, state: GameState, p: Player) -> tuple[str, ...]:
        """How this player writes his ability: its `sim_forms`, else its first word (once a
        role: the spec does not change)."""
        key = (state.variant, p.role)
        found = self._forms.get(key)
        if found is None:
            ability = table(self.spec(state)).first(p.role)
            found = () if ability is None else tuple(ability.get("sim_forms") or [ability.words[0] + " {t}"])
            self._forms[key] = found
        return found

    def act(self, state: GameState, at: datetime, thread: ThreadLookup) -> None:
        """What the simulated players do at this point of the game."""
        ph = state.phase
        main = thread("main")
        if state.data.get("checkin") and main:
            check_in(self.board, state, main, self.checked_in)
        if ph.kind == "night":
            self.night(state)
        elif ph.kind == "day" and ph.step == "discussion":
            self.wills(state)
        elif ph.kind == "day" and (vote := thread(f"vote:{ph.number}")) is not None:
            self.vote(state, vote)

    def _rng(self, state: GameState, what: str) -> random.Random:
        """The draws of one purpose: the one Random re-seeded (the draws of a new
        `random.Random` of the string; each caller is done with the previous purpose's)."""
        self._random.seed(f"{self._seed_text}:{state.phase.label}:{state.phase.step}:{what}")
        return self._random

    # ---- nights -----------------------------------------------------------------------

    def night(self, state: GameState) -> None:
        rng = self._rng(state, "night")
        alive = [p for p in state.players if p.alive]
        chosen: dict[str, str] = {}  # group -> agreed target
        self._of = groups(self.spec(state), state)  # the roles do not change during a night's acts
        self._seat = {p.name: i for i, p in enumerate(alive)}  # where each is in `alive`
        try:
            forms, variant = self._forms, state.variant
            for p in alive:
                if p.faction == KILLERS:  # is_killer
                    self._kill(state, p, alive, chosen, rng)
                elif forms.get((variant, p.role)) or self.forms(state, p):  # `forms` inline once known
                    self._power(state, p, alive, chosen, rng)
        finally:
            self._of = self._seat = None

    def _kill(self, state: GameState, p: Player, alive: list[Player], chosen: dict[str, str],
              rng: random.Random) -> None:
        of = self._of
        group = (of[p.name] or p.name) if of is not None and p.name in of else self.group(state, p)
        if group.startswith("killer:") and on_duty_killer(state, state.phase.number) != p.name:
            return  # 8p: not my night
        if group not in chosen:
            victims = [q for q in alive if not is_killer(q)] or alive
            chosen[group] = pick(rng, victims).name
        target = chosen[group]
        form = fill(pick(rng, self._forms.get((state.variant, p.role)) or self.forms(state, p)), target)
        self.board.pm(p.name, self.gm, form + "\n" + declaration(target, rng), "行动")  # (the subject: no keyword)

    def _power(self, state: GameState, p: Player, alive: list[Player], chosen: dict[str, str],
               rng: random.Random) -> None:
        of, name, role = self._of, p.name, p.role
        if of is not None and name in of:  # `group` and `alone` inline while `night` runs
            acting = of[name]
            group = acting or name
            alone = acting is None or acting.endswith(":" + name)
        else:
            group, alone = self.group(state, p), self.alone(state, p)
        if group in chosen:
            target = chosen[group]  # partners (13p diviners/binders) agree
        elif role == "binder" and self.last_bind and state.find(self.last_bind) and rng.random() < 0.3:
            target = self.last_bind
        elif role == "commoner" and rng.random() < 0.4:
            target = chosen.setdefault("prayer", pick(rng, alive).name)
        else:
            target = self._anyone_but(rng, alive, p).name
        if not alone:
            chosen[group] = target
        if role == "binder":
            self.last_bind = target
        forms = self._forms.get((state.variant, role)) or self.forms(state, p)
        self.board.pm(name, self.gm, fill(pick(rng, forms), target), "行动")

    def _anyone_but(self, rng: random.Random, alive: list[Player], p: Player) -> Player:
        """`pick(rng, [q for q in alive if q.name != p.name] or alive)`, the same draw, without
        the list: `alive` is the night's, whose seats `night` wrote down once."""
        seat = self._seat
        i = seat.get(p.name) if seat is not None and len(seat) == len(alive) else None
        if i is None or alive[i] is not p:  # not the night's list: the list, as written
            return pick(rng, [q for q in alive if q.name != p.name] or alive)
        n = len(alive) - 1
        if not n:
            return pick(rng, alive)
        r = pick_index(rng, n)
        return alive[r + 1 if r >= i else r]

    # ---- days -------------------------------------------------------------------------

    def wills(self, state: GameState) -> None:
        """Last night's dead accuse someone (001 §4.2), by PM."""
        dead = state.data.get("day", {}).get("night_dead", [])
        if not dead:
            return  # draws nothing: not seeded
        rng = self._rng(state, "wills")
        for name in dead:
            suspects = [p.name for p in state.players if p.alive]
            if suspects and rng.random() < 0.7:
                self.board.pm(name, self.gm, f"指控 {pick(rng, suspects)}", "遗言")

    def vote(self, state: GameState, thread_id: str) -> None:
        rng = self._rng(state, "vote")
        d = peek(state.data, "day")  # looked at only (a state `apply` made copies what is read through `data`)
        step = state.phase.step
        if step == "vote":
            voters = [p for p in state.players if p.alive and p.name not in d["cannot_vote"]]
            candidates = [p.name for p in state.players if p.alive]
        elif step == "ld":
            voters = [p for p in state.players if p.alive and p.name not in d["cannot_vote"]]
            candidates = list(d["candidates"])
        else:
            voters = [state.player(n) for n in d["summoned"]]
            candidates = list(d["candidates"])
        counts: dict[str, int] = {}
        killers = self._killers = {q.name for q in state.players if q.faction == KILLERS}
        # the candidates who are killers and those who are not, once a vote: a killer voter is
        # never among the first, a civilian never among the second, so leaving him out of the
        # candidates leaves them as they are
        self._sides = (candidates, [c for c in candidates if c not in killers], [c for c in candidates if c in killers])
        post, forms, choose = self.board.post, _VOTE_PARTS, self._choose_vote
        n, bits, draw = len(VOTE_FORMS), len(VOTE_FORMS).bit_length(), rng.getrandbits  # `pick` inline
        try:
            for p in in_draw_order(rng, voters):
                target = choose(p, candidates, counts, state, rng)
                counts[target] = counts.get(target, 0) + 1
                r = draw(bits)
                while r >= n:
                    r = draw(bits)
                post(p.name, thread_id, target.join(forms[r]))  # VOTE_FORMS[r].format(t=target)
        finally:
            self._killers, self._sides = set(), None

    def _choose_vote(self, p: Player, candidates: list[str], counts: dict[str, int], state: GameState,
                     rng: random.Random) -> str:
        name = p.name
        sides = self._sides
        if sides is None or sides[0] is not candidates or candidates.count(name) != 1 or len(candidates) < 2:
            return self._choose_among([c for c in candidates if c != name] or candidates, p, counts, state, rng)
        # the vote's own candidates, the voter among them once: his options are the
        # candidates but him, drawn by index (`pick` of the list without him, the same draw)
        if counts and rng.random() < 0.5:
            leader = max(counts, key=counts.__getitem__)
            if leader != name and leader in candidates:
                return leader
        civilians, killers = sides[1], sides[2]
        if p.faction == KILLERS:  # is_killer
            if civilians:
                return pick(rng, civilians)
        elif killers and rng.random() < 0.3:
            return pick(rng, killers)  # a good read
        r = pick_index(rng, len(candidates) - 1)
        return candidates[r + 1 if r >= candidates.index(name) else r]

    def _choose_among(self, options: list[str], p: Player, counts: dict[str, int], state: GameState,
                      rng: random.Random) -> str:
        """`_choose_vote` from the voter's options as a list (candidates not the vote's own)."""
        if counts and rng.random() < 0.5:
            leader = max(counts, key=counts.__getitem__)
            if leader in options:
                return leader
        killer_names = self._killers or {q.name for q in state.players if is_killer(q)}
        civilians = [c for c in options if c not in killer_names]
        killers = [c for c in options if c in killer_names]
        if p.faction == KILLERS:  # is_killer
            return pick(rng, civilians or options)
        if killers and rng.random() < 0.3:
            return pick(rng, killers)  # a good read
        return pick(rng, options)


_STORY = "".join(STORY)
# a form's text around each of its `{t}` (`target.join(parts)` is `form.format(t=target)`:
# str.format parses the form at every call, ~1,600 instructions a vote form, ~8,000 the story)
_FILLS: dict[str, tuple[str, ...] | None] = {}  # `_parts` of the forms met (a variant's few)
_FILLS_MAX = 256
_UNSEEN = ("",)  # (a form not split yet)


def _parts(form: str) -> tuple[str, ...] | None:
    """The text around each `{t}` of `form`; None when it has other fields or braces."""
    parts = tuple(form.split("{t}"))
    return None if any("{" in part or "}" in part for part in parts) else parts


def _split(form: str) -> tuple[str, ...]:
    """`_parts` of one of this module's own forms, which have no field but `{t}`."""
    parts = _parts(form)
    if parts is None:
        raise ValueError(f"a simulated player's form with a field other than {{t}}: {form!r}")
    return parts


_STORY_PARTS = _split(_STORY)
_VOTE_PARTS = tuple(_split(form) for form in VOTE_FORMS)


def fill(form: str, target: str) -> str:
    """`form.format(t=target)`, the form split once (a form with other fields is formatted)."""
    parts = _FILLS.get(form, _UNSEEN)
    if parts is _UNSEEN:
        if len(_FILLS) >= _FILLS_MAX:
            _FILLS.clear()
        parts = _FILLS[form] = _parts(form)
    return form.format(t=target) if parts is None else target.join(parts)


def declaration(target: str, rng: random.Random) -> str:
    """A declaration of more than 100 characters (002 杀人宣言).  The story is told in its
    order: its middle lines were shuffled as a copy (`lines[1:4]`), which left them as they
    were; that shuffle's two draws are still made, as `shuffle` of three draws them (an index
    below 3, then below 2, each `_randbelow`'s getrandbits loop), without its calls."""
    draw = rng.getrandbits
    while draw(2) >= 3:  # below 3
        pass
    while draw(2) >= 2:  # below 2 (2's bit length is 2 as well)
        pass
    return target.join(_STORY_PARTS)  # _STORY.format(t=target)
