"""`butterfly_elder`: seed 004 (16 players, killers, police, sniper, doctor, 花蝴蝶, 森林老人)."""

from tianshen.core.family import Family

FAMILY = Family(
    id="butterfly_elder",
    ruleset="tianshen.rules.butterfly_elder.ruleset:ButterflyElder",
    sims="tianshen.sim.butterfly_elder:ButterflySims",
    causes={"killed": "被杀", "shot": "被狙", "sniped": "被狙", "needles": "双针孔", "executed": "被投票处决",
            "lurking": "潜水出局"},
    events={"will_posted": "will posted"},
    rounds=True,  # 004 counts rounds: 第2轮权力行使, 第2轮投票帖
)
