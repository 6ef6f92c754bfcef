"""The classic 8/10/13-player rules (seed 002_4048099b330b552e.txt)."""

from tianshen.core.family import Family

FAMILY = Family(
    id="classic",
    ruleset="tianshen.rules.classic.ruleset:Classic",
    sims="tianshen.sim.classic:ClassicSims",
    policies={"smart": "tianshen.sim.smart:SmartClassicSims"},
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
