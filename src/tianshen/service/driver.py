"""The phase driver: the one game loop, the same in `run` (real time) and in rehearsal.

One step = one input (a PM, a post, a deadline, a GM command): load the state, fold the
input through the ruleset, commit the new state, the event and the outbox in one
transaction, then send.  A PM or post seen twice is stored once (the store refuses the
duplicate, so nothing runs twice).  A crash after the commit leaves the messages pending in
the outbox; the next `flush` sends them, each with its idempotency key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import attrgetter
from typing import NoReturn

from sqlalchemy.exc import IntegrityError

from tianshen.core.clock import duration
from tianshen.core.fold import steps
from tianshen.core.model import DeadlineIn, GameState, GmIn, Input, Outcome, PmIn, PostIn
from tianshen.core.ruleset import Deadline, GameSetup, Ruleset
from tianshen.core.spec import RulesetSpec
from tianshen.forum.base import Forum, ForumError, ForumPm, ForumPost, LoginRefused
from tianshen.gmwords import without_citations
from tianshen.rules import game_ruleset
from tianshen.service import crash, identity
from tianshen.service.sender import OutboxSender, in_queue_order, is_reply
from tianshen.store import GameRecord, InboundRecord, OutboxItem, OutboxRecord, StaleState, Step, Store
from tianshen.store.store import row_says

log = logging.getLogger(__name__)

StepHook = Callable[[str, Input | GameSetup, Outcome], None]
STALE_RETRIES = 5
# a rehearsal writes its state at least every so many seqs (and at the end): a reader folds
# at most these events after the stored one (`GameDriver._state_behind`)
STATE_EVERY = 64


def default_owner() -> str:
    """This process, as a lease owner: host and pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


class GameDriver:
    def __init__(self, store: Store, forum: Forum, game_id: int, on_step: StepHook | None = None,
                 owner: str | None = None, sender: OutboxSender | None = None,
                 record: GameRecord | None = None, ruleset: Ruleset | None = None) -> None:
        """`record`: the game's row as its sign-up just wrote it (`create`), not read back;
        `ruleset`: the one that sign-up built from that row's ruleset and config (not again)."""
        self.store, self.forum, self.game_id = store, forum, game_id
        record = record or store.load_game(game_id)
        self.name = record.name
        self.board = record.board
        self._others: tuple[set[str], set[str]] | None = None  # who plays in the board's other games
        self._game_start = datetime.fromisoformat(record.config["setup"]["start"])
        self.gm_contact: str | None = record.config["setup"].get("gm_contact")
        self._signed_up = signed_up(record.config)
        self._record: GameRecord | None = record if record.step_seq == 0 else None  # for `create`'s start
        events = store.events(game_id, limit=1) if record.step_seq else []
        if events and events[0].kind == "setup":  # started, perhaps earlier than planned
            self._game_start = GameSetup.model_validate_json(events[0].payload_json).start
        self.ruleset: Ruleset = ruleset or game_ruleset(record.ruleset, record.config)  # see register
        options = self.ruleset.spec.options
        self.watch_board = bool(options.get("analysis_quota") or options.get("watch_board"))
        self.on_step = on_step
        self.after_commit: Callable[[], None] | None = None  # test hook: a crash right after commit
        self.outage_extension_after = timedelta(minutes=30)
        self.pm_settle_time = timedelta(minutes=10)
        self.reads_pms = True  # False when the board reads the GM's PMs for every game (the daemon)
        self.alone = False  # True: no other game is played on its board (a rehearsal's own board)
        self._state_at: int | None = None  # the seq the stored state is the state after, when known
        self._clock_hint: datetime | None = None  # `now` of the current advance
        self.owner = owner or default_owner()
        self.sender = sender or OutboxSender(store, forum, self.owner)
        self._cached: tuple[int, GameState] | None = None  # (step seq, state)
        self._seen: set[tuple[str, str]] | None = None  # inputs already folded
        self._texts: dict[str, list[str]] | None = None  # the folded posts' texts by post id (`_edits`)
        self._marks: dict[str, str] | None = None  # the stored marks (None: not read); this driver writes them
        # marks decided and not yet written: they go with this driver's next commit (issue 37),
        # or at the end of the advance; lost in a crash, they are decided again the same way
        self._unsaved: dict[str, str] = {}
        self._fresh = False  # signed up by `create` a moment ago: nothing stored but its row
        # True while the daemon vouches that `_cached` is the newest (it read every game's head
        # this tick, `note_head`): no read of the seq; a step committed elsewhere meanwhile is
        # still caught by the commit's seq check (StaleState)
        self.trust_cache = False
        self._head_status: str | None = None  # the game's status as the daemon read it
        self._maybe_pending = True  # False after a flush that sent everything, until the next commit
        # inputs folded in memory, not yet written (an advance's run of inputs: `_commit_deferred`)
        # (seq before, phase label before, input, outcome, step); the run is folded in place into a
        # copy of `_run_from`, the state it started from (committed, never changed)
        self._deferred: list[tuple[int, str, Input, Outcome, Step]] | None = None
        self._run_from: GameState | None = None
        self._rows: tuple[GameState, list[tuple]] | None = None  # a state and its players' rows (`_player_changes`)
        self.late_window_policy = "extend"  # issue 22 item 7: "extend" or "none" ([run] late_window)
        self.late_window_grace = timedelta(minutes=10)  # later than this, the window is extended
        self._window_open: bool | None = None  # a window's opening not yet checked (None: unknown)
        self._window: tuple[int, list[OutboxRecord]] | None = None  # (step seq, its posts) as written here
        # a deadline is folded this long after its time ([run] deadline_grace_seconds): PMs sent
        # before it that a lagging board shows late are read and counted first (issue 27 item 1)
        self.deadline_grace = timedelta(0)

    # ---- creating a game ------------------------------------------------------------

    @classmethod
    def create(cls, store: Store, forum: Forum, name: str, variant: str, setup: GameSetup,
               on_step: StepHook | None = None, alone: bool = False, spec: RulesetSpec | None = None) -> GameDriver:
        """Sign the game up and start it at once (`alone`: see `self.alone`; `spec`: the
        variant's shared spec when the caller has just had it from `shared_spec`)."""
        made: list[tuple[GameDriver, _Deal]] = []

        def deal(record: GameRecord, dealt: Outcome, ruleset: Ruleset, setup: GameSetup) -> Step:
            """The deal's step, written in the sign-up's own transaction (issue 37: one commit
            fewer; a game is signed up and dealt, or neither)."""
            driver = cls(store, forum, record.id, on_step, record=record, ruleset=ruleset)
            driver.alone = alone
            # a game signed up and dealt here has no inputs, threads nor marks yet: not read back
            driver._seen, driver._texts = set(), {}
            driver.sender.none_opened(record.id)
            driver._fresh, driver.trust_cache = True, True  # the deal's commit is the newest: not read back
            driver._record = None
            made[:] = [(driver, driver._deal(record, dealt, setup=setup))]  # the deal tried at sign-up is the deal
            return made[0][1].step

        cls._register(store, name, variant, setup, deal=deal, spec=spec)
        driver, dealt = made[0]
        driver._dealt(1, dealt)  # (the first seq of a game)
        driver.trust_cache = False
        return driver

    @staticmethod
    def register(store: Store, name: str, variant: str, setup: GameSetup, board: str = "",
                 signed_up_at: datetime | None = None) -> int:
        """A game signed up, to be dealt at `setup.start` (`tianshen admin new-game`).  The
        setup is tried once here, so a bad role list is refused now, not at the start.  A
        setup without a salt gets a secret random one (core.rng: the seed commitment).
        `variant` is an id or a .toml file; the record keeps the id.  `signed_up_at`, the
        moment of the sign-up by the forum's clock: no PM sent before it is the game's."""
        return GameDriver._register(store, name, variant, setup, board, signed_up_at)[0]

    @staticmethod
    def _register(store: Store, name: str, variant: str, setup: GameSetup, board: str = "",
                  signed_up_at: datetime | None = None,
                  deal: Callable[[GameRecord, Outcome, Ruleset, GameSetup], Step] | None = None,
                  spec: RulesetSpec | None = None) -> tuple[int, Outcome, Ruleset]:
        """`register`, the deal it tried (the same `start` would make: setup and seed
        alike) and the ruleset it tried it with (the game's: its id and config as stored).
        `deal`: the deal's step from the game's row as written, the deal tried, the ruleset
        and the setup, written in the sign-up's transaction (`create`)."""
        from tianshen.core.rng import new_salt
        from tianshen.specs import game_file, shared_spec

        if setup.salt is None:
            setup = setup.model_copy(update={"salt": new_salt()})
        spec = spec or shared_spec(variant)  # `variant`: an id or a .toml file
        config: dict[str, object] = {"setup": setup.model_dump(mode="json")}
        if file := game_file(variant, spec):
            config["ruleset_file"] = file  # reloaded from this file, not by id (GameDriver.__init__)
        if signed_up_at is not None:
            config["signed_up_at"] = signed_up_at.isoformat()
        # the ruleset the game's driver will have (its GM account's name in the texts): its deal
        ruleset = game_ruleset(spec.id, config)
        dealt = ruleset.setup(setup)
        def signed(game_id: int) -> Step:
            assert deal is not None  # (the config is JSON's own types, as the store gives it back)
            return deal(GameRecord(id=game_id, name=name, ruleset=spec.id, seed=setup.seed, status="new",
                                   phase_label="setup", deadline_at=setup.start, winner=None, state_json="{}",
                                   config=config, board=board, step_seq=0), dealt, ruleset, setup)

        game_id = store.create_game(
            name=name, ruleset=spec.id, seed=setup.seed, config=config,
            state_json="{}", phase_label="setup", deadline_at=setup.start, players=[], at=setup.start,
            status="new", board=board, deal=signed if deal is not None else None,
        )
        return game_id, dealt, ruleset

    def is_started(self) -> bool:
        if self._cached is not None:  # a game once dealt stays dealt
            return True
        if self.trust_cache and self._head_status is not None:
            return self._head_status != "new"
        return self.store.load_game(self.game_id).status != "new"

    def note_head(self, step_seq: int, status: str) -> None:
        """The game's newest seq as the daemon read it this tick: a cache of an older step is
        dropped (another process or a GM command committed), a cache of this one is trusted
        until `trust_cache` is unset."""
        if self._cached is not None and self._cached[0] != step_seq:
            self._forget()
        self._head_status = status
        self.trust_cache = True

    def start(self, at: datetime | None = None, send: bool = True, record: GameRecord | None = None,
              dealt: Outcome | None = None) -> Outcome:
        """Deal: role PMs, the player list; night 1 begins (at `at`, default the set start).
        `record`: the game's row as just read (its commit checks it is still the newest);
        `dealt`: this setup's outcome as sign-up tried it (not made twice)."""
        record = record or self.store.load_game(self.game_id)
        self._record = None
        deal = self._deal(record, dealt, at)
        s = deal.step
        seq = self.store.commit_step(
            self.game_id, inbound=None, event_kind=s.event_kind, event_payload=s.event_payload,
            phase_label=s.phase_label, state_json=s.state_json, status=s.status, deadline_at=s.deadline_at,
            winner=None, players=s.players, outbox=s.outbox, at=s.at, expected_seq=record.step_seq, marks=s.marks,
            head=(record.name, record.phase_label),
        )
        assert seq is not None
        self._dealt(seq, deal, send)
        return deal.outcome

    def _deal(self, record: GameRecord, dealt: Outcome | None = None, at: datetime | None = None,
              setup: GameSetup | None = None) -> _Deal:
        """The deal's step on the game's row as `record` has it (`start`; `create` writes it
        in the sign-up's transaction, with the `setup` its config was made from)."""
        if record.status != "new":
            raise ValueError(f"game {record.name} has already started")
        setup = setup or GameSetup.model_validate(record.config["setup"])
        if at is not None:
            setup = setup.model_copy(update={"start": at})
        marks = self._old_marks() if self.reads_pms or self.watch_board else {}
        # read again: another driver may have dealt it before (the commit fails then); none
        # when this driver signed it up (`create`): it has none
        self._marks = {} if self._fresh else None
        outcome = dealt if dealt is not None and at is None else self.ruleset.setup(setup)
        self._others = None
        state = outcome.state
        dl = self.next_deadline(state)
        marks.update(self._window_mark(setup.start, record.step_seq + 1, outcome, dl))
        step = Step(inbound=None, event_kind="setup", event_payload=setup.model_dump_json(),
                    phase_label=state.phase.label, state_json=state.model_dump_json(), status="running",
                    deadline_at=dl.at if dl else None, winner=None, players=_player_rows(state),
                    outbox=self._marked(_outbox(outcome)), at=setup.start, marks=marks)
        return _Deal(step, outcome, setup)

    def _dealt(self, seq: int, deal: _Deal, send: bool = True) -> None:
        """The deal is committed as step `seq`: kept, logged, told to the hook and sent."""
        state = deal.outcome.state
        self._cached = (seq, state)
        self._state_at = seq
        self._stored_marks().update(deal.step.marks)
        if "window" in deal.step.marks:
            self._opened(seq)
        self._game_start = deal.setup.start
        log.info("game=%s started seed=%s players=%d", self.name, deal.setup.seed, len(state.players))
        if self.on_step:
            self.on_step("setup", deal.setup, deal.outcome)
        if send:
            self.flush()
            self.check_window(self.forum_now(deal.setup.start))

    def _old_marks(self) -> dict[str, str]:
        """PMs the GM account had before the game are not the game's (nor, when the ruleset
        reads the whole board, its older posts): marks past them, stored with the deal."""
        marks: dict[str, str] = {}
        try:
            if self.reads_pms:
                newest = max((pm.id for pm in self.forum.fetch_pms(None)), default=None)
                if newest is not None:
                    marks["pm"] = str(newest)
            if self.watch_board:
                last = max((post.id for post in self.forum.board_posts(None)), default=None)
                if last is not None:
                    marks["board"] = str(last)
        except ForumError as exc:
            log.warning("game=%s could not read the forum before the start: %s", self.name, exc)
        return marks

    # ---- reading ----------------------------------------------------------------------

    def state(self) -> GameState:
        """The newest state (cached by step seq: one small query when nothing changed, none
        while the daemon vouches for the cache)."""
        if self._cached is not None and self.trust_cache:
            return self._cached[1]
        seq = self.store.step_seq(self.game_id)
        if self._cached is None or self._cached[0] != seq:
            self._forget()
            record = self.store.load_game(self.game_id)
            self._cached = (record.step_seq, GameState.model_validate_json(record.state_json))
        return self._cached[1]

    def _forget(self) -> None:
        """Committed elsewhere (a GM command, another process): the state and the marks are
        read again, and it may have queued messages."""
        self._cached = None
        self._state_at = None
        self._rows = None
        self._marks = None
        self._window = None
        self._texts = None
        self._maybe_pending = True
        self.sender.forget(self.game_id)

    def next_deadline(self, state: GameState) -> Deadline | None:
        """The ruleset's next deadline of `state` (worked out once for a state as it is:
        `GameState.due`, which every fold drops; the store's deadline column, the advance
        loop and the caller all ask it)."""
        return self.ruleset.next_deadline(state)

    def _current(self) -> GameState:
        """The state as this driver last read or made it (a step's commit checks it is newest)."""
        return self._cached[1] if self._cached is not None else self.state()

    def is_over(self) -> bool:
        return self.state().phase.kind == "over"

    # ---- one step -----------------------------------------------------------------------

    def handle(self, event: Input, send: bool = True) -> bool:
        """Fold one input and commit it; False when it was a duplicate (nothing done)."""
        return self.step(event, send) is not None

    def gm(self, command: str, reason: str, at: datetime, marks: dict[str, str] | None = None,
           **args: object) -> Outcome:
        """A GM override, folded and logged like any input (the replay shows it)."""
        event = GmIn(id=f"gm:{uuid.uuid4().hex}", at=at, command=command, args=dict(args), reason=reason)
        outcome = self.step(event, marks=marks)
        assert outcome is not None  # GM inputs are never duplicates
        return outcome

    def _notes(self, outcome: Outcome) -> list[OutboxItem]:
        """What the human GM should know goes to his forum account by PM (and to the log)."""
        for note in outcome.notes:
            log.info("game=%s note for the GM: %s", self.name, note)
        if not self.gm_contact:
            return []
        return [OutboxItem(kind="pm", target=self.gm_contact, subject="天神通报", body=without_citations(note))
                for note in outcome.notes]  # read on the forum: no clause numbers (issue 32 item 9)

    def _marked(self, items: list[OutboxItem]) -> list[OutboxItem]:
        """Each row naming its game where it must (issue 27, `service.identity`)."""
        if self._others is None and self.alone:
            self._others = (set(), set())
        if self._others is None and any(item.kind == "pm" for item in items):
            self._others = identity.elsewhere(self.store.live_configs(self.board), self.game_id)
        return identity.mark_game(items, self.name, self.game_id, self._others)

    def last_seen(self) -> dict[str, str]:
        """When each seat last sent a PM or a post, by forum time (for 交替期 ordering)."""
        seen: dict[str, str] = {}
        for record in self.store.inbound(self.game_id):
            if record.source in ("pm", "post"):
                seen[record.sender] = max(seen.get(record.sender, ""), record.sent_at.isoformat())
        return seen

    def judged(self, phase_label: str) -> list[tuple[InboundRecord, str, str]]:
        """How each PM and post of the phase was judged (issue 23 item 13): (input, verdict,
        detail), verdict one of "accepted", "refused", "not a vote", "not folded" and the
        detail the receipt, the reason or the GM log line.  The event log is folded again
        from the setup (it gives the same states byte for byte), so each input is judged by
        the same code on the same state as when it arrived."""
        inputs = [i for i in self.store.inbound(self.game_id, phase_label) if i.source in ("pm", "post")]
        wanted = {i.event_seq for i in inputs if i.event_seq is not None}
        outcomes: dict[int, Outcome] = {}
        for step in steps(self.ruleset, self.store.events(self.game_id)):
            if wanted <= set(outcomes):
                break
            if step.seq in wanted:
                outcomes[step.seq] = step.outcome
        return [(i, *_verdict(i, outcomes.get(i.event_seq) if i.event_seq is not None else None)) for i in inputs]

    def preview(self) -> tuple[Deadline, Outcome] | None:
        """What the next deadline would do now, without committing anything."""
        state = self.state()
        if self.next_deadline(state) is None:
            return None
        moved = state.copy()  # the cached state stays as it is
        due = self.ruleset.phase_end(moved)  # past any reminder: preview what ends the phase
        assert due is not None
        return due, self.ruleset.apply(moved, DeadlineIn(id="preview", at=due.at, kind=due.kind))

    def _already(self, inbound: InboundRecord | None) -> bool:
        if inbound is None:
            return False
        if self._seen is None:
            self._seen = self.store.inbound_keys(self.game_id)
        return (inbound.source, inbound.forum_id) in self._seen

    def _took(self, inbound: InboundRecord | None) -> None:
        """An input folded here (or found stored already): not folded again; a post's text known."""
        if inbound is None:
            return
        if self._seen is not None:
            self._seen.add((inbound.source, inbound.forum_id))
        if self._texts is not None and inbound.source == "post":
            self._texts.setdefault(inbound.forum_id.split("~")[0], []).append(inbound.text)

    def _post_texts(self) -> dict[str, list[str]]:
        """The texts of the posts stored, by post id (an edit adds one), read once."""
        if self._texts is None:
            texts: dict[str, list[str]] = {}
            for fid, text in self.store.inbound_texts(self.game_id).items():
                texts.setdefault(fid.split("~")[0], []).append(text)
            self._texts = texts
            for b in self._deferred or []:  # folded, not yet written
                self._took(b[4].inbound)
        return self._texts

    def step(self, event: Input, send: bool = True, marks: dict[str, str] | None = None) -> Outcome | None:
        """Fold one input and commit it (then send, unless `send` is False); the outcome,
        or None for a duplicate.  A commit that finds a newer state (another process, a GM
        command) is dropped, and the input folded again on the newest state."""
        inbound = _inbound(event)
        if self._already(inbound):
            return None  # read again (the marks trail the newest input): already folded
        if self._deferred is not None and marks is None:
            return self._fold_later(event, inbound)
        for _ in range(STALE_RETRIES):
            try:
                outcome = self._fold(event, inbound, marks)
                break
            except StaleState as exc:
                log.info("game=%s %s: folding again", self.name, exc)
                self._forget()
                self.trust_cache = False
                if isinstance(event, DeadlineIn) and not self._still_due(event):
                    return None  # the newer state moved it (a GM extend): the advance looks again
        else:
            raise StaleState(f"game {self.name}: the state kept changing under {getattr(event, 'id', '?')}")
        if outcome is None:
            return None
        if self.after_commit:
            self.after_commit()
        crash.point("after-commit")
        if send:
            self.flush()
        return outcome

    def _still_due(self, event: DeadlineIn) -> bool:
        due = self.next_deadline(self.state())
        return due is not None and due.kind == event.kind and due.at == event.at

    def _step_of(self, state: GameState, event: Input, inbound: InboundRecord | None, outcome: Outcome,
                 marks: dict[str, str] | None = None, whole: bool = True) -> Step:
        """What the store writes for one fold of `event` on `state`.  Not `whole`: without
        the state and the players' rows (a run in memory: only its last state is written,
        `_commit_deferred`)."""
        new = outcome.state
        dl = self.next_deadline(new)
        players, changed = self._player_changes(state, new) if whole else (None, None)
        # no payload when the inbound row says all of the input (issue 37: stored once, made when read)
        payload = None if inbound is not None and row_says(event, inbound) else event.model_dump_json()
        return Step(inbound=inbound, event_kind=event.type, event_payload=payload,
                    phase_label=new.phase.label, state_json=new.model_dump_json() if whole else "",
                    status="over" if new.phase.kind == "over" else "running", deadline_at=dl.at if dl else None,
                    winner=new.winner, players=players, players_changed=changed,
                    outbox=self._marked(_outbox(outcome) + self._notes(outcome)), at=event.at, marks=marks or {})

    def _player_changes(self, old: GameState, new: GameState) -> tuple[list[dict] | None, list[str] | None]:
        """`_changed_players`; the rows of `old` not made again when they were made for that
        very object (the committed state is never changed in place: a run folds a copy), and
        those of `new` kept for the step after it (issue 37)."""
        kept = self._rows
        before = kept[1] if kept is not None and kept[0] is old else _rows_of(old)
        rows = _rows_of(new)
        self._rows = (new, rows)
        return _compared(before, rows)

    def _fold(self, event: Input, inbound: InboundRecord | None, marks: dict[str, str] | None) -> Outcome | None:
        state = self._current()
        seq_before = self._cached[0] if self._cached else 0
        outcome = self.ruleset.apply(state, event)
        step = self._step_of(state, event, inbound, outcome, marks)
        if isinstance(event, DeadlineIn):  # the window it opens, marked in its own commit
            marks = {**(marks or {}), **self._window_mark(event.at, seq_before + 1, outcome, step.deadline_at)}
        marks = self._changed({**self._unsaved, **(marks or {})})
        seq = self.store.commit_step(
            self.game_id, inbound=inbound, event_kind=step.event_kind, event_payload=step.event_payload,
            phase_label=step.phase_label, state_json=step.state_json, status=step.status,
            deadline_at=step.deadline_at, winner=step.winner, players=step.players, outbox=step.outbox, at=step.at,
            expected_seq=seq_before, marks=marks, head=(self.name, state.phase.label) if self._cached else None,
            players_changed=step.players_changed,
        )
        self._took(inbound)
        if seq is None:
            log.info("game=%s duplicate input %s ignored", self.name, getattr(event, "id", "?"))
            return None
        self._cached = (seq, outcome.state)
        self._state_at = seq
        self._maybe_pending = True
        self._unsaved = {}
        if marks:
            self._saved(marks)
            if marks.get("window"):
                self._opened(seq)
        self._folded(seq, state.phase.label, event, outcome, outcome.state.phase.label)
        return outcome

    def _folded(self, seq: int, label: str, event: Input, outcome: Outcome, after: str) -> None:
        """A step is committed: logged, and told to the hook (`label`, `after`: the phase it was
        folded in and the one it left; a run's outcomes share one state, folded in place)."""
        if log.isEnabledFor(logging.INFO):  # (its nine values made only for a line that is written)
            log.info("game=%s seq=%s input=%s id=%s phase=%s->%s posts=%d pms=%d refusals=%d", self.name, seq,
                     event.type, getattr(event, "id", ""), label, after,
                     len(outcome.posts), len(outcome.pms), len(outcome.refusals))
        if self.on_step:
            self.on_step(label, event, outcome)

    # ---- several inputs in one transaction (issue 26) ------------------------------------

    def _to_settle(self) -> bool:
        """Whether something must be written before a deadline is folded: a post (queued, or
        in the run folded in memory: only what is committed is sent), a write whose try is on
        record, or a window whose check may extend the phase (a step of its own)."""
        if self._window_open is not False:
            return True
        if any(item.kind == "post" for b in self._deferred or [] for item in b[4].outbox):
            return True
        return any(row.kind == "post" or row.attempt_part is not None for row in self.store.queued(self.game_id))

    def _fold_later(self, event: Input, inbound: InboundRecord | None) -> Outcome:
        """Fold `event` in memory; `_commit_deferred` writes it with the others of the run."""
        assert self._deferred is not None
        state = self._current()
        seq = self._cached[0] if self._cached else 0
        label = state.phase.label
        if not self._deferred:  # the run's first input: the state it starts from stays as it is
            self._run_from, state = state, state.copy()
        try:  # in place (issue 37): the run's own copy, one copy a run rather than one a step
            outcome = self.ruleset.apply_in_place(state, event)
            step = self._step_of(state, event, inbound, outcome, whole=False)
            if isinstance(event, DeadlineIn):  # the window it opens, marked in the same commit
                step.marks = self._window_mark(event.at, seq + 1, outcome, step.deadline_at)
        except BaseException:  # (the board's other games read for `_marked`: the store may be down)
            self._rebuild_run()
            raise
        self._deferred.append((seq, label, event, outcome, step))
        self._cached = (seq + 1, outcome.state)
        self._took(inbound)
        return outcome

    def _rebuild_run(self) -> None:
        """A fold of the run failed half-way through the run's state (or after it, before
        its step was kept): the state after the inputs folded before it, folded again from
        the one the run started from (the rules are deterministic), so they are written as
        they were folded."""
        if not self._deferred:
            return  # the first fold failed on the run's copy: the state it started from is intact
        state = self._run_from.copy()
        for _, _, event, _, _ in self._deferred:
            self.ruleset.apply_in_place(state, event)
        self._cached = (self._cached[0] if self._cached else 0, state)

    def _commit_deferred(self, marks: dict[str, str] | None = None) -> int:
        """Write the inputs folded in memory (`_fold_later`) in one transaction, with the
        marks not yet written and `marks` (read positions past nothing but these inputs); the
        steps committed.  When the state moved meanwhile or one of them was stored already,
        they are folded again one by one on the newest state, as `step` does."""
        batch, self._deferred = self._deferred or [], None
        if not batch:
            return 0
        first_seq, first_state, first = batch[0][0], self._run_from, batch[0][4]
        assert first_state is not None
        self._run_from = None
        last, newest = batch[-1][4], self._current()  # the run's own state (rebuilt when a fold failed)
        end = first_seq + len(batch)
        last.state_json = None if self._state_behind(newest, end) else newest.model_dump_json()
        last.players, last.players_changed = self._player_changes(first_state, newest)
        lead = self._changed({**self._unsaved, **(marks or {}), **first.marks})  # the steps' own marks win
        try:
            seq = self.store.commit_step(
                self.game_id, inbound=first.inbound, event_kind=first.event_kind, event_payload=first.event_payload,
                phase_label=first.phase_label, state_json=first.state_json, status=first.status,
                deadline_at=first.deadline_at, winner=first.winner, players=first.players, outbox=first.outbox,
                at=first.at, expected_seq=first_seq, head=(self.name, first_state.phase.label),
                marks=lead, then=[b[4] for b in batch[1:]], players_changed=first.players_changed)
        except (StaleState, IntegrityError) as exc:
            log.info("game=%s %d inputs not written together (%s)", self.name, len(batch), type(exc).__name__)
            seq = None
        except BaseException:
            self._forget()
            self._seen = self._texts = None
            raise
        if seq is None:  # folded again one by one on the newest state, as `step` does
            self._forget()
            self.trust_cache, self._seen, self._texts = False, None, None
            return sum(self.handle(b[2], send=False) for b in batch
                       if not isinstance(b[2], DeadlineIn) or self._still_due(b[2]))  # (a GM extend moved it)
        self._maybe_pending = True
        if last.state_json is not None:
            self._state_at = seq
        self._unsaved = {}
        self._saved(lead)
        for before, *_, step in batch:
            if step.marks:
                self._saved(step.marks)
                if step.marks.get("window"):
                    self._opened(before + 1)
        for before, label, event, outcome, step in batch:
            self._folded(before + 1, label, event, outcome, step.phase_label)
        for _ in batch:  # each step's point after its commit, as when they were written one by one
            if self.after_commit:
                self.after_commit()
            crash.point("after-commit")
        return len(batch)

    def _state_behind(self, state: GameState, seq: int) -> bool:
        """Whether a commit up to `seq` leaves the stored state as it is (issue 37): a
        rehearsal's own game while it goes on, up to `STATE_EVERY` seqs behind its events
        (its driver reads its own; `Store.load_game` folds the events after the stored one
        for every other reader, and for this driver after a crash).  Its JSON is about a
        twentieth of a rehearsal's CPU when written with every commit."""
        return (self.alone and state.phase.kind != "over" and self._state_at is not None
                and seq - self._state_at < STATE_EVERY)

    # ---- the loop body ----------------------------------------------------------------

    def advance(self, now: datetime, pms: list[ForumPm] | None = None, send: bool = True,
                reachable: bool = True) -> int:
        """Take every new PM and post, and fire every deadline due by `now`, in time order;
        then send, once, what all of it put in the outbox.

        Inputs are judged by forum server time: those stamped before a deadline are folded
        before it fires.  `pms` are this game's PMs when the board read them for every game
        (`reachable` False: the board could not read them).  Returns the number of steps.
        """
        steps = 0
        self._others = None  # read again once an advance: games come and end
        self._clock_hint = now
        self.sender.clock_hint = now
        self.state()  # once: the steps below fold on it and check it is still the newest
        # High-water marks move in memory while reading and are stored with the steps they
        # lead to, or at the end: a crash in between re-reads them (the store dedupes).
        marks: dict[str, str] = {}
        pending, read_ok = self._collect(marks, pms)
        crash.point("after-read")
        if not self._forum_reachable(read_ok and reachable, now):
            return steps  # deadlines wait: nobody could post while the board was down
        hold_marks = False
        # the inputs and deadlines folded below are written in one transaction (issue 37), and
        # before a deadline only when something must reach the board before its count
        self._deferred = []
        done = False
        try:
            while True:
                dl = self.next_deadline(self._current())
                due = dl is not None and dl.at + self.deadline_grace <= now
                while pending and (not due or pending[0].at <= dl.at):  # type: ignore[union-attr]
                    if dl is not None and pending[0].at > dl.at:
                        # in the deadline's grace: what came after it waits for the fold, and is
                        # read again then (the marks stay; the store drops what was folded)
                        hold_marks = True
                        break
                    self.handle(pending.pop(0), send=False)
                    dl = self.next_deadline(self._current())
                    due = dl is not None and dl.at + self.deadline_grace <= now
                if not due or dl is None:
                    break
                settled = None
                if self._to_settle():
                    # read positions go with the run when it holds everything read so far
                    steps += self._commit_deferred(dict(marks) if not pending and not hold_marks else None)
                    self._deferred = []
                    dl = self.next_deadline(self._current())  # as written (folded again if the state moved)
                    if dl is None or dl.at + self.deadline_grace > now:
                        break
                    settled = self._settle_writes()
                    if settled is False:
                        break  # what it wrote is not on the board yet: the deadline waits
                    if self.check_window(now):
                        continue  # the window opened late and was extended: the deadline moved
                if settled:  # threads just found or written: read them before the count
                    more, _ = self._collect(marks, None if pms is None else [])
                    pending = sorted(pending + more, key=lambda e: e.at)
                pending = sorted(pending + self._edits(), key=lambda e: e.at)  # 13: edits seen before the count
                if pending and pending[0].at <= dl.at:
                    continue
                self.handle(DeadlineIn(id=f"{dl.kind}@{dl.at.isoformat()}", at=dl.at, kind=dl.kind), send=False)
                more, _ = self._collect(marks, None if pms is None else [])
                pending = sorted(pending + more, key=lambda e: e.at)
            done = True
        finally:
            # read positions go with the run when it holds everything read so far (not after
            # a fold that failed: its input is read again)
            steps += self._commit_deferred(dict(marks) if done and not pending and not hold_marks else None)
        if not hold_marks:  # held: read again after the fold (the store drops what was folded)
            self._store_marks(marks)
        if self._unsaved:
            self._store_marks({})
        if send:
            self.flush()
            self.check_window(now)
        return steps

    # ---- windows that opened late on the board (issue 22 items 1 and 7) -----------------

    def _settle_writes(self) -> bool | None:
        """Before a deadline is folded, everything the game wrote must be on the board and
        known, so the posts in its threads are read (a vote posted before the deadline always
        counts).  Receipts may wait (the burst of PMs before a deadline is folded first); posts
        and any write whose try is on record may not.  None: nothing needed sending; True:
        sent now; False: a post is still not on the board (the forum failed): the deadline waits."""
        rows = self.store.queued(self.game_id)
        if not any(row.kind == "post" or row.attempt_part is not None for row in rows):
            return None
        self._maybe_pending = True
        # the replies wait, and the PMs after them (issue 32 item 2: a flood holds back no post)
        queue = in_queue_order(rows)
        cut = next((i for i, row in enumerate(queue) if is_reply(row)), len(queue))
        self.sender.send(queue[:cut] + [row for row in queue[cut:] if row.attempt_part is not None],
                         later=self._record_later())
        return not any(row.kind == "post" for row in self.store.queued(self.game_id))

    def _window_mark(self, at: datetime, seq: int, outcome: Outcome, dl: object) -> dict[str, str]:
        """A deadline (or the deal) that opened a window: its opening posts (the posts of step
        `seq`) are checked once on the board for when they reached it.  The mark is stored in
        the step's own commit, so a crash right after the fold cannot lose the check (a
        window that opened late after a restart is still extended)."""
        if not outcome.posts or dl is None:
            return {}
        self._window_open = True
        return {"window": json.dumps({"at": at.isoformat(), "seq": seq})}

    def _window_rows(self, window: dict) -> list[OutboxRecord]:
        """The window's opening posts: as this process wrote them (the queue's own rows, which
        its sender keeps up to date), else the database's rows of that window only."""
        if "rows" in window:  # a mark written before the step's seq was kept
            return self.store.outbox_rows(self.game_id, list(window["rows"]))
        if self._window is not None and self._window[0] == window["seq"]:
            return self._window[1]
        return self.store.window_posts(self.game_id, f"{self.name}:{window['seq']}:")

    def _opened(self, seq: int) -> None:
        """Step `seq` opened a window: its posts, as just written, kept for `check_window`."""
        prefix = f"{self.name}:{seq}:"
        self._window = (seq, [r for r in self.store.queued(self.game_id) if r.kind == "post"
                              and r.key.startswith(prefix)])

    def check_window(self, now: datetime) -> bool:
        """Issue 22 item 7: a window that players could not use, because its opening post or
        thread was not on the board, is extended by the time it was missing (003 §12.4 for
        an outage of the board; the same for the daemon's own downtime).  Checked once its
        opening posts are all sent; True when the phase was extended."""
        if self._window_open is False:
            return False
        raw = self.mark("window")
        window = json.loads(raw) if raw else None
        if not window:
            self._window_open = False
            return False
        rows = self._window_rows(window)
        if any(row.status == "pending" for row in rows):
            return False  # not all on the board yet: checked after the next flush
        self._window_open = False
        opened = datetime.fromisoformat(window["at"])
        late = max((self._posted_at(row, now) for row in rows if row.status == "sent"), default=opened) - opened
        if self.late_window_policy != "extend" or late <= self.late_window_grace or self.is_over():
            if self.is_over():
                self.set_mark("window", "")
            else:  # written with the next commit (a crash before it: checked again, alike)
                self._unsaved["window"] = ""
            return False
        hours = late / timedelta(hours=1)  # the time lost, whole (the core rounds the end up to a minute)
        log.warning("game=%s the window opened at %s reached the board %s late: extended", self.name,
                    opened.isoformat(), late)
        # the mark is cleared in the extension's own commit: a crash cannot extend twice
        self.gm("extend", f"本时段的开始公告迟了{duration(late)}才出现在论坛上，时段相应顺延", now,
                marks={"window": ""}, hours=hours)
        return True

    def _posted_at(self, row: OutboxRecord, now: datetime) -> datetime:
        """When an outbox post reached the board, by the board's time (now when unknown)."""
        ref, thread_id = row.forum_ref, self.sender.thread_id(self.game_id, row.target)
        if not ref or thread_id is None:
            return now
        try:
            if ref == thread_id:  # the row opened the thread: its first post
                posts = self.forum.read_thread(thread_id, None)[:1]
            elif ref.isdigit():  # a reply: the post of that id
                posts = [p for p in self.forum.read_thread(thread_id, int(ref) - 1) if str(p.id) == ref]
            else:
                return now
        except ForumError:
            return now
        return posts[0].posted_at if posts else now

    def forum_now(self, fallback: datetime) -> datetime:
        """The forum's clock, or `fallback` when it cannot be read."""
        try:
            return self.forum.now()
        except ForumError:
            return fallback

    def _stored_marks(self) -> dict[str, str]:
        """The game's marks as stored, read once: only the game's owner (this driver) writes them."""
        if self._marks is None:
            self._marks = self.store.marks(self.game_id)
        return self._marks

    def mark(self, name: str) -> str | None:
        return self._unsaved[name] if name in self._unsaved else self._stored_marks().get(name)

    def set_mark(self, name: str, value: str) -> None:
        self._store_marks({name: value})

    def _store_marks(self, marks: dict[str, str]) -> None:
        """`marks` and those not yet written, now (what changed)."""
        stored = self._stored_marks()
        changed = {k: v for k, v in {**self._unsaved, **marks}.items() if stored.get(k) != v}
        if changed:
            self.store.set_marks(self.game_id, changed)
            stored.update(changed)
        self._unsaved = {}

    def _changed(self, marks: dict[str, str]) -> dict[str, str]:
        """Those of `marks` the store does not hold already (all when its marks are not read)."""
        if self._marks is None:
            return marks
        return {k: v for k, v in marks.items() if self._marks.get(k) != v}

    def _saved(self, marks: dict[str, str]) -> None:
        """`marks` were written with a step."""
        if self._marks is not None:
            self._marks.update(marks)

    def _forum_reachable(self, reachable: bool, now: datetime) -> bool:
        """003 §12.4: when the board was unreachable longer than `outage_extension_after`,
        the current phase is extended by the outage, as a logged GM override."""
        down = self.mark("forum_down_since")
        if not reachable:
            if not down:
                self.set_mark("forum_down_since", now.isoformat())
            log.warning("game=%s forum unreachable since %s; deadlines held", self.name, down or now.isoformat())
            return False
        if down:
            self.set_mark("forum_down_since", "")
            outage = now - datetime.fromisoformat(down)
            if outage >= self.outage_extension_after and self.next_deadline(self._current()) is not None:
                hours = outage / timedelta(hours=1)
                reason = f"论坛无法访问{duration(outage)}，时段顺延"  # 003 §12.4 (a public post: no citation)
                log.warning("game=%s forum back after %s: phase extended by as much", self.name, outage)
                self.gm("extend", reason, now, hours=hours)
        return True

    def give_back(self, since: datetime, now: datetime) -> float:
        """Issue 32 item 5: the time the game was held because its database could not be
        used, given back as a forum outage is (003 §12.4): longer than
        `outage_extension_after`, the current phase is extended by it (a logged GM override);
        shorter, its deadline is only late.  The hours given back (0: none)."""
        lost = now - since
        if lost < self.outage_extension_after or self.ruleset.next_deadline(self.state()) is None:
            return 0.0
        hours = round(lost.total_seconds() / 3600, 2)
        log.warning("game=%s held %s while the database could not be used: phase extended by %s h", self.name,
                    lost, hours)
        self.gm("extend", f"天神的数据库故障约{hours:g}小时，时段顺延", now, hours=hours,
                marks={"store_down_given": since.isoformat()})  # with the step: never given twice
        return hours

    def _collect(self, marks: dict[str, str], pms: list[ForumPm] | None) -> tuple[list[PmIn | PostIn], bool]:
        """New PMs to the GM and new posts in the threads the ruleset watches.

        `marks` holds the high-water marks read so far in this round (ahead of the store's)."""
        found: list[PmIn | PostIn] = []
        try:
            if pms is None and self.reads_pms:
                found += self._own_pms(marks)
            else:
                found += [self.pm_input(pm) for pm in pms or [] if self.is_game_pm(pm)]
            for key in self._watched():
                thread_id = self.sender.thread_id(self.game_id, key)
                if thread_id is None:
                    continue
                name = f"thread:{key}"
                after = marks.get(name) or self.mark(name)
                for post in self.forum.read_thread(thread_id, int(after) if after else None):
                    marks[name] = str(max(post.id, int(marks.get(name) or after or 0)))
                    if post.author != self.forum.account:  # not the GM's own posts
                        found.append(_post_input(post, key))
            if self.watch_board:
                found += self._board_posts(marks)
        except LoginRefused:
            raise  # not "will retry": the daemon holds the clock and stops (issue 22)
        except ForumError as exc:
            log.warning("game=%s reading the forum failed, will retry: %s", self.name, exc)
            return sorted(found, key=lambda e: e.at), False
        return sorted(found, key=lambda e: e.at), True

    def is_game_pm(self, pm: ForumPm) -> bool:
        """PMs sent before the game (2 minutes' grace) are not the game's, nor any sent before
        it was signed up (issue 31 item 6: the board answers those as a stranger's)."""
        return takes_pm(self._game_start, self._signed_up, pm)

    @staticmethod
    def pm_input(pm: ForumPm) -> PmIn:
        return PmIn(id=str(pm.id), sender=pm.sender, at=pm.sent_at, text=pm.text)

    def _own_pms(self, marks: dict[str, str]) -> list[PmIn | PostIn]:
        after = marks.get("pm") or self.mark("pm")
        settled = self.forum_time_settled()
        found: list[PmIn | PostIn] = []
        for pm in self.forum.fetch_pms(int(after) if after else None):
            if self.is_game_pm(pm):
                found.append(self.pm_input(pm))
            if pm.sent_at <= settled:
                # The mark trails the newest PMs: a forum that files PMs per conversation can
                # show a lower id after a higher one; what is read twice the store drops.
                marks["pm"] = str(max(pm.id, int(marks.get("pm") or after or 0)))
        return found

    def _edits(self) -> list[PmIn | PostIn]:
        """Issue 13: vote posts edited after they were read.  Each open vote thread is read
        whole again before a deadline fires; a post whose text changed comes back as an
        edited post (its first text as `original_text`), and the ruleset's edit policy
        judges it (001 §5.1, 003 §9.3, 004 补充 一 6)."""
        keys = [k for k in self._watched() if k.startswith("vote:")]
        if not keys:
            return []
        known: dict[str, list[str]] | None = None
        found: list[PmIn | PostIn] = []
        try:
            for key in keys:
                thread_id = self.sender.thread_id(self.game_id, key)
                if thread_id is None:
                    continue
                for post in self.forum.read_thread(thread_id, None):
                    if post.author == self.forum.account:
                        continue
                    if known is None:  # only when there are players' posts
                        known = self._post_texts()
                    texts = known.get(str(post.id))
                    if post.author == self.forum.account or not texts or post.text in texts \
                            or getattr(post, "full_text", None) in texts:  # stored with its quotes: not an edit
                        continue
                    digest = hashlib.sha256(post.text.encode()).hexdigest()[:12]
                    found.append(PostIn(id=f"{post.id}~{digest}", thread=key, author=post.author, at=post.posted_at,
                                        text=post.text, edited=True, original_text=texts[0]))
        except LoginRefused:
            raise  # the deadline must not fire without the edits (issue 22)
        except ForumError as exc:
            log.warning("game=%s re-reading the vote thread failed: %s", self.name, exc)
        return [e for e in found if not self._already(_inbound(e))]

    def forum_time_settled(self) -> datetime:
        """PMs older than this are assumed all visible (see `_collect`)."""
        newest = self._clock_hint or datetime.max.replace(tzinfo=UTC)
        return newest - self.pm_settle_time

    def _board_posts(self, marks: dict[str, str]) -> list[PmIn | PostIn]:
        """Every post on the game board (activity rules, 诈尸).  A post in one of the game's
        own threads keeps that thread's key, so a vote read here is still a vote (and the
        store folds it once, whichever way it came)."""
        keys = self.store.threads(self.game_id)
        after = marks.get("board") or self.mark("board")
        found: list[PmIn | PostIn] = []
        theirs: tuple[dict[str, int], set[str]] | None = None
        for post in self.forum.board_posts(int(after) if after else None):
            marks["board"] = str(post.id)
            if post.author == self.forum.account or post.posted_at < self._game_start:
                continue
            if post.thread_id not in keys and self.board:
                theirs = theirs or self._other_games()
                if not self._is_ours(post, *theirs):
                    continue
            found.append(_post_input(post, keys.get(post.thread_id, f"board:{post.thread_id}")))
        return found

    def _other_games(self) -> tuple[dict[str, int], set[str]]:
        """The threads of the board's other games, and who plays in them and not here."""
        threads = {t: g for t, g in self.store.board_threads(self.board).items() if g != self.game_id}
        configs = self.store.live_configs(self.board)
        own = next((identity.seat_names(c) for gid, _, c in configs if gid == self.game_id), set())
        return threads, identity.elsewhere(configs, self.game_id)[0] - own

    @staticmethod
    def _is_ours(post: ForumPost, threads: dict[str, int], strangers: set[str]) -> bool:
        """A post on a board of several games belongs to the game whose thread it is in, or
        whose player wrote it (issue 38 item 2): not to this one when either is another's."""
        return post.thread_id not in threads and post.author not in strangers

    def _watched(self) -> list[str]:
        """Today's vote thread; at night the last one, so a late vote still gets its refusal."""
        state = self._current()
        watched = ["main"] if state.data.get("checkin") else []  # 签到: replies to the player list
        if state.phase.kind == "day":
            return watched + [f"vote:{state.phase.number}"]
        if state.phase.kind == "night" and state.phase.number > 1:
            return watched + [f"vote:{state.phase.number - 1}"]
        return watched

    # ---- sending --------------------------------------------------------------------

    def flush(self, budget_s: float | None = None) -> int:
        """Send what the outbox holds, in order; stop at the first forum failure."""
        if self._cached is not None and not self.trust_cache and self.store.step_seq(self.game_id) != self._cached[0]:
            self._forget()  # committed elsewhere (a GM command): its rows are read too
        if not self._maybe_pending and self._cached is not None:
            return 0  # nothing committed since everything went out
        rows = self.store.queued(self.game_id)  # what this process wrote: not read again (`Store.queued`)
        sent = self.sender.send(rows, budget_s, later=self._record_later())
        self._maybe_pending = sent < len(rows)
        return sent

    def _record_later(self) -> bool:
        """What a flush sent is recorded with the next step's transaction, not in one of its
        own (issue 37): a rehearsal's own board (which drops a repeated key: a crash before
        that step sends it again for nothing), while the game goes on (the last flush is
        recorded at once: no step comes after it)."""
        return self.alone and self._current().phase.kind != "over"


@dataclass
class _Deal:
    """A deal made for a game's row: its step, its outcome, the setup it was dealt with."""

    step: Step
    outcome: Outcome
    setup: GameSetup


def signed_up(config: dict) -> datetime | None:
    """When the game was signed up (forum time), if the record says."""
    value = config.get("signed_up_at")
    return datetime.fromisoformat(value) if value else None


def takes_pm(start: datetime, signed: datetime | None, pm: ForumPm) -> bool:
    """Whether a PM is a game's input by its time: not older than the game's sign-up, nor
    than its start less 2 minutes."""
    if signed is not None and pm.sent_at < signed:
        return False
    return pm.sent_at >= start - _PM_GRACE


_PM_GRACE = timedelta(minutes=2)  # a PM this much older than the start is still the game's


def _post_input(post: ForumPost, key: str) -> PostIn:
    return PostIn(id=str(post.id), thread=key, author=post.author, at=post.posted_at, text=post.text,
                  edited=post.edited, original_text=post.original_text)


NOT_A_VOTE = ("not a vote", "not a player's")  # what the families log for a post that is no vote


def _verdict(record: InboundRecord, outcome: Outcome | None) -> tuple[str, str]:
    """(verdict, detail) of one input from the outcome it had (`GameDriver.judged`)."""
    if outcome is None:
        return "not folded", "duplicate, or not read into the game"
    if record.source == "post" and any(m in line for line in outcome.log for m in NOT_A_VOTE):
        told = "; the player was told once this vote: " + outcome.refusals[0].reason if outcome.refusals else ""
        return "not a vote", "no vote line in the post" + told
    if outcome.refusals:
        return "refused", outcome.refusals[0].reason
    receipt = next((m.body for m in outcome.pms if m.to == record.sender), "")
    return "accepted", receipt or "; ".join(outcome.log) or "—"


def _inbound(event: Input) -> InboundRecord | None:
    if isinstance(event, PmIn):
        return InboundRecord(source="pm", forum_id=event.id, sender=event.sender, sent_at=event.at, text=event.text)
    if isinstance(event, PostIn):
        return InboundRecord(source="post", forum_id=event.id, sender=event.author, sent_at=event.at,
                             text=event.text, thread_key=event.thread, edited=event.edited)
    if isinstance(event, DeadlineIn):  # a deadline is folded once, whichever process fires it
        return InboundRecord(source="deadline", forum_id=event.id, sender="", sent_at=event.at, text=event.kind)
    return None


def _outbox(outcome: Outcome) -> list[OutboxItem]:
    # (by position: a dataclass's `__init__` by keyword costs about twice as much, issue 37)
    items = [OutboxItem("post", p.thread, p.body, p.title) for p in outcome.posts]
    items += [OutboxItem("pm", m.to, m.body, None, m.subject) for m in outcome.pms]
    return items


def _changed_players(old: GameState, new: GameState) -> tuple[list[dict] | None, list[str] | None]:
    """The players' rows when a step changed them (None: the stored rows still hold), and
    the names of the seats changed when the seats are the same (None: write them all).
    Compared as tuples; the rows made only when written (issue 37)."""
    return _compared(_rows_of(old), _rows_of(new))


def _rows_of(state: GameState) -> list[tuple]:
    return [_row_values(p) for p in state.players]


def _compared(before: list[tuple], rows: list[tuple]) -> tuple[list[dict] | None, list[str] | None]:
    """`_changed_players` of the two states' rows as tuples."""
    if rows == before:
        return None, None
    dicts = [_row_dict(r) for r in rows]
    if [r[0] for r in rows] != [b[0] for b in before]:
        return dicts, None
    return dicts, [r[0] for r, b in zip(rows, before, strict=True) if r != b]


_ROW = ("name", "forum_name", "seat", "role", "faction", "alive")  # a player's row in the store ("name" first)
_row_values = attrgetter(*_ROW)


def _row_dict(values: tuple) -> dict:
    """A player's row (`_ROW`'s values) as the store takes it: a literal, about a third of
    `dict(zip(_ROW, values))`'s cost (ten rows a step that changed a seat, issue 37)."""
    name, forum_name, seat, role, faction, alive = values
    return {"name": name, "forum_name": forum_name, "seat": seat, "role": role, "faction": faction, "alive": alive}


def _player_rows(state: GameState) -> list[dict]:
    return [_row_dict(_row_values(p)) for p in state.players]


class OfflineForum:
    """For `tianshen admin` beside a running daemon: commits go to the store, and the
    daemon's next tick sends what they put in the outbox."""

    markup = "plain"
    max_post_chars = None

    def __init__(self, account: str = "神的使者") -> None:
        self.account = account

    def _offline(self, *_: object) -> NoReturn:
        raise ForumError("no forum connection here: the running daemon sends it")

    remembers_keys = False
    offline = True  # the sender leaves the outbox to the daemon: no claim, no try on record
    login = now = fetch_pms = read_thread = board_posts = create_thread = reply = send_pm = _offline
    find_written = note_last_write = user_exists = check_board = _offline
