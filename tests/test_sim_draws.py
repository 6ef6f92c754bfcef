"""The simulated players' work (issue 37): their draws are pinned by the golden games, so what
is made cheaper is what they do around the draws.  These tests count that work."""

from __future__ import annotations

import random

import pytest

from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _watch(rng: random.Random, log: list[str]) -> None:
    """Log each seeding of `rng` ("seed") and each draw from it ("draw")."""
    seed, bits, unit = rng.seed, rng.getrandbits, rng.random

    def seeding(s: object) -> None:
        log.append("seed")
        seed(s)

    def drawing_bits(k: int) -> int:
        log.append("draw")
        return bits(k)

    def drawing() -> float:
        log.append("draw")
        return unit()

    rng.seed, rng.getrandbits, rng.random = seeding, drawing_bits, drawing  # type: ignore[method-assign]


def _seedings_played(game: Game) -> tuple[int, int]:
    """Play `game`; how often its sims' one Random was seeded, and how many of those seeds
    drew nothing before the next."""
    log: list[str] = []
    _watch(game.sims._random, log)  # type: ignore[attr-defined]
    game.play()
    wasted = sum(1 for a, b in zip(log, [*log[1:], "seed"], strict=True) if a == b == "seed")
    return log.count("seed"), wasted


@pytest.mark.parametrize("players", [5, 6, 7])
def test_n_lives_sims_seed_only_for_draws(players: int) -> None:
    """A seed (sha512 and a Mersenne Twister start, about half of a whole choice's cost) is
    made only for a purpose that draws: a player with no day privilege, or whose cards
    cannot be reordered, draws nothing and is not seeded."""
    for seed in range(4):
        game = Game(load_ruleset("n_lives"), seed, players)
        seeds, wasted = _seedings_played(game)
        assert seeds > 10
        assert wasted == 0, f"{wasted} of {seeds} seeds drew nothing"


def test_monte_carlo_sims_read_the_games_own_variant(tmp_path, monkeypatch) -> None:
    """The sims read the spec the game's ruleset holds: a variant file given by path whose id
    is a shipped variant's is played with its own words, and no spec is loaded again a game
    (it was: `shared_spec` by id, about 0.2 ms a game, and the shipped file's words)."""
    import tianshen.specs

    variant = tmp_path / "classic_10.toml"
    variant.write_text('include = ["classic_10"]\n\n[abilities.divine]\nsim_forms = ["查验 {t}"]\n',
                       encoding="utf-8")
    ruleset = load_ruleset(str(variant))
    loads = []
    real = tianshen.specs.shared_spec
    monkeypatch.setattr(tianshen.specs, "shared_spec", lambda v: loads.append(v) or real(v))
    for module in ("classic", "butterfly_elder", "hex_survival"):
        monkeypatch.setattr(f"tianshen.sim.{module}.shared_spec", tianshen.specs.shared_spec)
    diviner_pms: list[str] = []
    for seed in range(3):
        game = Game(ruleset, seed, 10)
        diviner = next(p.name for p in game.state.players if p.role == "diviner")
        pm = game.board.pm

        def sent(sender: str, to: str, text: str, subject: str = "", pm=pm, diviner=diviner) -> int:
            if sender == diviner and subject == "行动":
                diviner_pms.append(text)
            return pm(sender, to, text, subject)

        game.board.pm = sent  # type: ignore[method-assign]
        game.play()
    assert diviner_pms and all(text.startswith("查验 ") for text in diviner_pms), diviner_pms[:3]
    assert loads == []


def test_pick_draws_what_choice_draws() -> None:
    """`sim.pick` is `Random.choice` without its calls: the same element and the same state
    after, for every length up to 70 (powers of two and one more, where rejection differs)."""
    from tianshen.sim import pick

    for seed in range(40):
        mine, theirs = random.Random(f"{seed}:pick"), random.Random(f"{seed}:pick")
        for n in [*range(1, 70), 128, 129, 1000]:
            items = list(range(n))
            assert pick(mine, items) == theirs.choice(items)
        assert mine.getstate() == theirs.getstate()
    with pytest.raises(IndexError):
        pick(random.Random(0), [])


def test_sims_draw_without_random_choice(monkeypatch) -> None:
    """The classic and n_lives sims draw their choices through `pick` (about 500 a 7-player
    n_lives game went through `Random.choice` and `_randbelow`)."""
    calls = 0
    real = random.Random.choice

    def counting(self: random.Random, seq):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return real(self, seq)

    monkeypatch.setattr(random.Random, "choice", counting)
    for variant, players in (("n_lives", 7), ("classic_10", 10)):
        Game(load_ruleset(variant), 1, players).play()
    assert calls == 0


def test_every_sims_takes_the_games_spec() -> None:
    """`Sims.know` is met by every family's default sims and by the `Finishing` wrapper."""
    from tianshen.rules import families
    from tianshen.sim import sims_for
    from tianshen.sim.montecarlo import CoreBoard

    for family in families():
        spec = next(load_ruleset(v).spec for v in ("classic_10", "game_ten", "n_lives", "hex_survival_12",
                                                     "butterfly_elder") if load_ruleset(v).spec.ruleset == family)
        for done in (False, True):
            sims = sims_for(family, CoreBoard(lambda: None), "神的使者", 1, done=done, spec=spec)  # type: ignore[arg-type,return-value]
            sims.know(spec)


@pytest.mark.parametrize("variant", ["classic_10", "n_lives"])
def test_monte_carlo_asks_the_next_deadline_at_most_once_a_fold(variant: str) -> None:
    """The loop asks for the next deadline at the start and at most once after a fold (an
    input may move it; a fold that kept the state's answer, `GameState.due`, is not asked),
    not again at the top of each step for the state `advance` just left."""
    ruleset = load_ruleset(variant)
    asked: list[int] = []

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(ruleset, name)

        def next_deadline(self, state):  # type: ignore[no-untyped-def]
            asked.append(1)
            return ruleset.next_deadline(state)

    for seed in range(3):
        game = Game(ruleset, seed, ruleset.spec.players)
        game.ruleset = Counting()  # type: ignore[assignment]
        asked.clear()
        game.play()
        folds = len(game.outcomes) - 1  # the setup's outcome is no fold
        assert 1 <= len(asked) <= folds + 1, (len(asked), folds)


@pytest.mark.parametrize("variant", ["classic_10", "game_ten"])
def test_classic_sims_seed_one_random_only_for_draws(variant: str) -> None:
    """The classic sims re-seed one `random.Random` a purpose (not a new one each), and the
    wills of a night nobody died are not seeded (they draw nothing)."""
    for seed in range(4):
        game = Game(load_ruleset(variant), seed, load_ruleset(variant).spec.players)
        seeds, wasted = _seedings_played(game)
        assert seeds > 5
        assert wasted == 0, f"{wasted} of {seeds} seeds drew nothing"


def test_sims_start_without_reading_the_system_entropy(monkeypatch) -> None:
    """A game's sims are made once a game: their one Random, re-seeded for every use, is not
    first seeded from the system's entropy (`Random()`: about 60 µs a game)."""
    from tianshen.sim import sims_for
    from tianshen.sim.montecarlo import CoreBoard

    seeds: list[object] = []
    real = random.Random.seed
    monkeypatch.setattr(random.Random, "seed", lambda self, a=None, version=2: seeds.append(a) or real(self, a, version))
    for family in ("classic", "n_lives", "game_ten", "hex_survival", "butterfly_elder"):
        sims_for(family, CoreBoard(lambda: None), "神的使者", 1)  # type: ignore[arg-type]
    assert None not in seeds


def test_the_sims_one_random_is_made_without_a_seeding(monkeypatch) -> None:
    """The classic and n_lives sims' one Random is seeded by `_rng` before every use: it is made
    unseeded (`Random(0)` ran the Mersenne Twister's seeding once a game for nothing), and a
    seeding of it sets the state `Random(s)` has, whatever it held before."""
    from tianshen.sim import sims_for, unseeded
    from tianshen.sim.montecarlo import CoreBoard

    seeds: list[object] = []
    real = random.Random.seed
    monkeypatch.setattr(random.Random, "seed", lambda self, a=None, version=2: seeds.append(a) or real(self, a, version))
    for family in ("classic", "n_lives", "game_ten"):
        sims_for(family, CoreBoard([None]), "神的使者", 1)  # type: ignore[arg-type]
    assert seeds == []
    monkeypatch.undo()
    fresh, used = unseeded(), random.Random(5)
    used.random()
    for s in ("1:night 1:night:night", "12:day 3:vote:vote", "0:"):
        fresh.seed(s)
        used.seed(s)
        assert fresh.getstate() == used.getstate() == random.Random(s).getstate()
        assert [fresh.random() for _ in range(3)] == [used.random() for _ in range(3)]


def test_in_draw_order_draws_what_sample_of_the_whole_drew() -> None:
    """`in_draw_order(rng, seq)` is `rng.sample(seq, len(seq))`: the same order, the same
    generator state after (sizes 0 to 40: both of sample's set sizes)."""
    from tianshen.sim import in_draw_order

    for seed in range(300):
        seq = list(range(seed % 41))
        a, b = random.Random(seed), random.Random(seed)
        assert in_draw_order(a, seq) == b.sample(seq, len(seq))
        assert a.getstate() == b.getstate()


@pytest.mark.parametrize("variant", ["classic_10", "n_lives", "butterfly_elder", "hex_survival_12"])
def test_the_votes_order_is_drawn_without_random_sample(variant: str, monkeypatch) -> None:
    """The voters' order (and the others' acting order) is drawn by `in_draw_order`, not by
    `Random.sample` (its checks and a `_randbelow` call a voter)."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("Random.sample called")

    monkeypatch.setattr(random.Random, "sample", refuse)
    for seed in range(3):
        ruleset = load_ruleset(variant)
        Game(ruleset, seed, ruleset.spec.players).play()


def test_the_night_picks_anyone_but_oneself_as_the_list_did() -> None:
    """`ClassicSims._anyone_but` draws from the night's living players without the list of the
    others it built for every player: the same player and the same state after, for every seat,
    also for a list that is not the night's (then it builds the list)."""
    from tianshen.core.model import Player
    from tianshen.sim import pick, pick_index
    from tianshen.sim.classic import ClassicSims
    from tianshen.sim.montecarlo import CoreBoard

    sims = ClassicSims(CoreBoard(lambda: None), "神的使者", 1)  # type: ignore[arg-type]
    for n in (1, 2, 3, 5, 9, 10, 17):
        alive = [Player(name=f"p{i}", forum_name=f"f{i}", seat=i + 1) for i in range(n)]
        for seed in range(5):
            for i, p in enumerate(alive):
                for seat in ({q.name: k for k, q in enumerate(alive)}, None):
                    sims._seat = seat
                    mine, theirs = random.Random(f"{seed}:{i}"), random.Random(f"{seed}:{i}")
                    got = sims._anyone_but(mine, alive, p)
                    assert got is pick(theirs, [q for q in alive if q.name != p.name] or alive)
                    assert mine.getstate() == theirs.getstate()
        mine, theirs = random.Random(n), random.Random(n)
        assert pick_index(mine, n) == theirs.choice(range(n)) and mine.getstate() == theirs.getstate()


def test_a_declaration_says_and_draws_what_the_shuffled_copy_did() -> None:
    """The declaration shuffled a copy of the story's middle lines (the story kept its order):
    the text is the story in order, and the shuffle's draws are still made."""
    from tianshen.sim.classic import STORY, declaration

    def before(target: str, rng: random.Random) -> str:
        lines = list(STORY)
        rng.shuffle(lines[1:4])
        return "".join(line.format(t=target) for line in lines)

    for seed in range(20):
        mine, theirs = random.Random(seed), random.Random(seed)
        assert declaration("白狐", mine) == before("白狐", theirs)
        assert mine.getstate() == theirs.getstate()


def test_a_declaration_draws_without_random_shuffle(monkeypatch) -> None:
    """The declaration's two draws are made inline, not by `Random.shuffle` of a list of three
    (its call and two `_randbelow` calls, a killer a night)."""
    from tianshen.sim.classic import declaration

    def refuse(*args: object) -> None:
        raise AssertionError("Random.shuffle called")

    monkeypatch.setattr(random.Random, "shuffle", refuse)
    assert "白狐" in declaration("白狐", random.Random(1))
