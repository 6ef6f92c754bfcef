"""`game_ten` (游戏十): seed 001."""

from tianshen.core.family import Family

FAMILY = Family(
    id="game_ten",
    ruleset="tianshen.rules.game_ten.ruleset:GameTen",
    sims="tianshen.sim.game_ten:GameTenSims",
    policies={"smart": "tianshen.sim.smart:SmartGameTenSims"},
    steps={"discussion": "白天讨论", "vote": "投票", "ld": "生死投票", "summon": "招魂"},
    deadlines={"night_end": "夜晚结束", "vote_open": "开投票帖", "vote_end": "投票截止", "ld_end": "生死投票截止",
               "summon_end": "招魂截止"},
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
