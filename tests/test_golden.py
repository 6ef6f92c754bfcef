"""Pinned outputs (issue 15: "the replay JSON of every test script is unchanged").

Speed work must not change what a game does.  These files were written before it:
- `golden/replay/<script>.json`: `tianshen replay --json` of every script in tests/scripts
  (or its error line, for the scripts that must be refused);
- `golden/core.json`: a digest of every message and the final state of pure-core games
  (every ruleset, four seeds, both the copying `apply` and `apply_in_place`, and the smart
  policy where there is one);
- `golden/rehearsal.json`: a digest of the transcript of one rehearsal per ruleset.

A deliberate change of behaviour rewrites them: `python tests/test_golden.py --write`,
and the diff of the golden files is reviewed with it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tianshen.core.model import DeadlineIn, GameState, Outcome, PmIn, PostIn
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
SCRIPTS = sorted((HERE / "scripts").glob("*.toml"))
VARIANTS = (("classic_8", None), ("classic_10", None), ("classic_13", None), ("game_ten", None),
            ("n_lives", 5), ("n_lives", 6), ("n_lives", 7), ("hex_survival_12", None), ("hex_survival_14", None),
            ("butterfly_elder", None))
SMART = ("classic_10", "game_ten")
SEEDS = (1, 2, 3, 4)
REHEARSALS = ("classic_8", "classic_10", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder")


def _pinned(returncode: int, stdout: str, stderr: str) -> str:
    out = stdout if returncode == 0 else f"exit {returncode}\n{stdout}{stderr}"
    return out.replace(str(HERE), "tests")  # the same in every checkout


def replay_output(script: Path) -> str:
    """`tianshen replay --json SCRIPT`, run in this process through the CLI's own command."""
    from typer.testing import CliRunner

    from tianshen.cli import app

    done = CliRunner().invoke(app, ["replay", "--json", str(script)], env={"COLUMNS": "1000"})
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return _pinned(done.exit_code, done.stdout, done.stderr)


def replay_subprocess(script: Path) -> str:
    """The same, as the installed `tianshen` command in a child process."""
    done = subprocess.run([str(Path(sys.executable).parent / "tianshen"), "replay", "--json", str(script)],
                          capture_output=True, text=True, encoding="utf-8",
                          env={**os.environ, "COLUMNS": "1000"})  # no wrapping at the path's length
    return _pinned(done.returncode, done.stdout, done.stderr)


class _DigestingGame(Game):
    """A pure-core game that digests every message as its step gives it (in place, the
    state of an outcome moves on, so messages are read at once)."""

    def __init__(self, *args, **kwargs) -> None:
        self.digest = hashlib.sha256()
        self.steps = 0
        super().__init__(*args, **kwargs)

    def _took(self, outcome: Outcome) -> GameState:
        self.steps += 1
        for part in (outcome.posts, outcome.pms, outcome.refusals):
            for item in part:
                self.digest.update(item.model_dump_json().encode())
        self.digest.update(json.dumps([outcome.log, outcome.notes], ensure_ascii=False).encode())
        return super()._took(outcome)


class _CopyingGame(_DigestingGame):
    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        self.state = self._took(self.ruleset.apply(self.state, event))


def core_digest(variant: str, players: int | None, seed: int, policy: str, copying: bool) -> str:
    ruleset = load_ruleset(variant)
    game = (_CopyingGame if copying else _DigestingGame)(ruleset, seed, players or ruleset.spec.players, policy)
    state = game.play()
    game.digest.update(state.model_dump_json().encode())
    return f"{game.steps}:{game.digest.hexdigest()[:32]}"


def core_cases() -> list[tuple[str, int | None, int, str, bool]]:
    cases = []
    for variant, players in VARIANTS:
        for seed in SEEDS:
            for copying in (True, False):
                cases.append((variant, players, seed, "default", copying))
            if variant in SMART:
                cases.append((variant, players, seed, "smart", False))
    return cases


def case_key(case: tuple[str, int | None, int, str, bool]) -> str:
    variant, players, seed, policy, copying = case
    return f"{variant}/{players or '-'}/seed{seed}/{policy}/{'apply' if copying else 'in-place'}"


def rehearsal_digest(variant: str) -> str:
    from tianshen.sim.rehearsal import rehearse

    with tempfile.TemporaryDirectory() as tmp:
        result = rehearse(variant, 1, f"sqlite:///{tmp}/g.db")
    text = "".join(result.transcript)
    return f"{len(result.transcript)}:{hashlib.sha256(text.encode()).hexdigest()[:32]}:{result.winner}"


def _load(name: str) -> dict[str, str]:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_the_replay_of_every_script_is_unchanged(script: Path) -> None:
    expected = (GOLDEN / "replay" / f"{script.stem}.json").read_text(encoding="utf-8")
    assert replay_output(script) == expected


@pytest.mark.parametrize("name", ["bind_save", "bad_phase"])
def test_the_command_itself_gives_the_pinned_replay(name: str) -> None:
    """The in-process replays above go through the CLI's function; this proves the command."""
    script = HERE / "scripts" / f"{name}.toml"
    assert replay_subprocess(script) == (GOLDEN / "replay" / f"{name}.json").read_text(encoding="utf-8")


def test_every_script_has_a_pinned_replay() -> None:
    pinned = {p.stem for p in (GOLDEN / "replay").glob("*.json")}
    assert pinned == {s.stem for s in SCRIPTS}


@pytest.mark.parametrize("case", core_cases(), ids=case_key)
def test_pure_core_games_are_unchanged(case: tuple[str, int | None, int, str, bool]) -> None:
    assert core_digest(*case) == _load("core.json")[case_key(case)]


def test_in_place_and_copying_games_agree() -> None:
    golden = _load("core.json")
    for variant, players in VARIANTS:
        for seed in SEEDS:
            key = f"{variant}/{players or '-'}/seed{seed}/default"
            assert golden[f"{key}/apply"] == golden[f"{key}/in-place"], key


@pytest.mark.parametrize("variant", REHEARSALS)
def test_rehearsal_transcripts_are_unchanged(variant: str) -> None:
    assert rehearsal_digest(variant) == _load("rehearsal.json")[variant]


def write() -> None:
    (GOLDEN / "replay").mkdir(parents=True, exist_ok=True)
    for script in SCRIPTS:
        (GOLDEN / "replay" / f"{script.stem}.json").write_text(replay_output(script), encoding="utf-8")
    core = {case_key(c): core_digest(*c) for c in core_cases()}
    (GOLDEN / "core.json").write_text(json.dumps(core, indent=1) + "\n", encoding="utf-8")
    rehearsals = {v: rehearsal_digest(v) for v in REHEARSALS}
    (GOLDEN / "rehearsal.json").write_text(json.dumps(rehearsals, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_golden.py --write")
    write()
