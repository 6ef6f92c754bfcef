"""`hex_survival`: the hex-map survival game of seed 003 (12 or 14 players, HP and food)."""

from tianshen.core.family import Family

FAMILY = Family(
    id="hex_survival",
    ruleset="tianshen.rules.hex_survival.ruleset:HexSurvival",
    sims="tianshen.sim.hex_survival:HexSims",
    causes={"hp": "血量耗尽", "poisoned": "中毒", "no_vote": "未投票出局", "vote": "被投票出局"},
    events={"attack": "attack", "dig": "dig"},
)
