"""`game_ten` (游戏十): seed 001."""

from tianshen.core.family import Family

FAMILY = Family(
    id="game_ten",
    ruleset="tianshen.rules.game_ten.ruleset:GameTen",
    sims="tianshen.sim.game_ten:GameTenSims",
    policies={"smart": "tianshen.sim.smart:SmartGameTenSims"},
    causes={"killed": "被杀", "binder": "束魂失败", "bound": "被束魂", "implicated": "被牵连出局",
            "executed": "被投票处决", "no_vote": "未投票出局"},
    events={
        "one_hit_night": "one-hit kill night",
        "skipped_kill": "skipped kill night",
        "kill_survived": "kill survived",
        "prayer_save": "prayer save",
        "killer_immune": "killer immune (one-hit night)",
        "bind_failure": "bind failure death",
        "butterfly_voided_kill": "butterfly voided a kill",
        "conversion": "conversion",
        "summon_used": "summon used",
        "no_execution": "no execution",
    },
)
