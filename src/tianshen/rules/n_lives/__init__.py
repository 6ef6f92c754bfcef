"""`n_lives` (N条命): seed 000, the card game of lives, action points and abilities."""

from tianshen.core.family import Family

FAMILY = Family(
    id="n_lives",
    ruleset="tianshen.rules.n_lives.ruleset:NLives",
    sims="tianshen.sim.n_lives:NLivesSims",
    causes={"cards": "失去全部牌", "vote": "被投票出局", "executed": "被投票处决", "no_vote": "未投票出局"},
    events={"imprisonment": "imprisonment night"},
)
