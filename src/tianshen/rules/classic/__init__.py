"""The classic 8/10/13-player rules (seed 002_4048099b330b552e.txt)."""

from tianshen.core.family import Family

FAMILY = Family(
    id="classic",
    ruleset="tianshen.rules.classic.ruleset:Classic",
    sims="tianshen.sim.classic:ClassicSims",
    policies={"smart": "tianshen.sim.smart:SmartClassicSims"},
    steps={"discussion": "白天讨论", "vote": "投票", "ld": "生死投票", "summon": "招魂"},
    deadlines={"night_end": "夜晚结束", "vote_open": "开投票帖", "vote_end": "投票截止", "ld_end": "生死投票截止",
               "summon_end": "招魂截止"},  # the shared 001 day (rules.common) can summon
    causes={"killed": "被杀", "binder": "束魂失败", "executed": "被投票处决", "no_vote": "未投票出局"},
    events={
        "kill_survived": "kill survived (束魂/祈祷)",
        "bind_failure": "bind failure death",
        "prayer_protected": "prayer protected someone",
        "kill_forfeited": "kill forfeited (declaration)",
        "killer_targeted_killer": "killer targeted killer",
        "no_execution": "no execution",
    },
)
