"""One ballot policy (issue 34): how a family takes the votes posted in its vote thread, and
the one `on_vote_post` every family uses.

A post is read in one order: a player's? in a vote thread? (a family may take the post
first: butterfly's wills, 诈尸, mutes) → read (an edited post as the policy says) → not a
vote: the GM's log and a hint once → the thread closed → a dead voter → the family casts it
(unreadable, no change, a change used…) → the log, a quote note, an edited note.  A refused
vote post gets one reply; nothing else in the order answers the player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tianshen.core.intake import Refused, reason_of
from tianshen.core.model import GameState, Outcome, Player, PostIn
from tianshen.core.names import seat_names
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec
from tianshen.core.vote_post import VotePost, not_a_vote, quote_note, read_vote_post

if TYPE_CHECKING:
    from tianshen.core.ledgers import Ballots

Change = Literal["never", "limited", "last_post"]
Edited = Literal["original", "own_rule"]


@dataclass(frozen=True)
class BallotPolicy:
    """A family's vote rules, as the vote posts meet them."""

    change: Change  # never: the first valid vote stands (001 §5.1, 000 A43); limited: 003 §9.3; last_post: 004
    edited: Edited = "original"  # original: counted as first written, when the forum shows it; own_rule: a hook
    dead_may_vote: bool = False  # 001 §5.5 / §2.7: the summoned and revived dead vote (a hook says who)
    delegation: bool = True  # 委托投票 by PM (001 §5.3, 000 §8.4, 003 §9.9); 004 has none
    tie: str = ""  # how a tie ends: runoff (001 生死投票), top_two (000 §8.3), all_top (003), lot (004)
    refused_text: str = "vote_refused"  # the text of a refused vote post ({text}, {reason})
    short: int = 20  # how much of the post that text quotes


def short(text: str, n: int = 20) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "…"


class VotePosts:
    """`on_vote_post` once; a family sets `ballot_policy` and fills the hooks it needs."""

    spec: RulesetSpec
    ballot_policy: BallotPolicy
    ballots: Ballots | None
    # whether the family has its own `post_taken` (else it is not called: it takes nothing);
    # set by `core.ruleset.Ruleset`, asked by default
    _own_post_taken = True

    def on_vote_post(self, state: GameState, post: PostIn) -> Outcome:
        out = Messages()
        p = state.find(post.author)
        if self._own_post_taken and self.post_taken(state, p, post, out):
            return out.outcome(state)
        if p is None or not post.thread.startswith("vote:"):
            out.log.append(f"post {post.id} by {post.author} in {post.thread}: not a vote, ignored")
            return out.outcome(state)
        vote = self.read_vote(state, post)
        if vote is None:
            self.not_a_vote(state, p, post, out)
            return out.outcome(state)
        try:
            if self.vote_closed(state, post):
                raise Refused(self.spec.later("vote_closed"))
            if not p.alive and not self.dead_may_vote(state, p):
                raise Refused(self.spec.later("dead_player"))
            line = self.take_vote(state, p, post, vote, out)
            self.vote_taken(state, p, post, vote, line, out)
        except Refused as exc:
            policy = self.ballot_policy
            out.refuse(p.name, post.text, self.spec.later(policy.refused_text, text=short(post.text, policy.short),
                                                          reason=reason_of(exc)), reply_to=p.name)
        self.vote_post_done(state, post)
        return out.outcome(state)

    # ---- hooks ---------------------------------------------------------------------------

    def post_taken(self, state: GameState, p: Player | None, post: PostIn, out: Messages) -> bool:
        """A post the family takes before the vote thread's rules (True: nothing more)."""
        return False

    def read_vote(self, state: GameState, post: PostIn) -> VotePost | None:
        """The vote the post holds (a reason may follow the name, issue 17); an edited post as
        first written when the forum shows it."""
        text = post.original_text if post.edited and post.original_text is not None else post.text
        return read_vote_post(text, seat_names(state))

    def not_a_vote(self, state: GameState, p: Player, post: PostIn, out: Messages) -> None:
        """A post in the vote thread with no vote: the log, and the voter told once."""
        out.log.append(f"post {post.id} by {post.author} in {post.thread}: not a vote, ignored")
        if self.hint_no_vote(state, p, post, out):
            out.log.append(f"{p.name} was told that post {post.id} holds no vote")

    def hint_no_vote(self, state: GameState, p: Player, post: PostIn, out: Messages) -> bool:
        """Issue 23 item 10: a voter of the running count with no ballot yet whose post in
        today's vote thread holds no vote is told once a vote (a player who never votes is
        counted for himself or leaves the game; a chat post must not be taken for a vote).
        True when told."""
        ballots = self.ballots
        if ballots is None or state.phase.kind != "day" or post.thread != f"vote:{state.phase.number}" \
                or not ballots.open(state) or not ballots.may_vote(state, p) or ballots.ballot(state, p) is not None:
            return False
        return not_a_vote(self.spec, state.data, out, p.name, self.hint_key(state, post), post.text)

    def hint_key(self, state: GameState, post: PostIn) -> str:
        """The vote a hint is once for (`vote_hints` in the state)."""
        return post.thread

    def vote_closed(self, state: GameState, post: PostIn) -> bool:
        phase = state.phase
        if phase.kind != "day":
            return True
        number = phase.number  # (the thread's name made once per number: `vote_thread`)
        return post.thread != (_VOTE_THREADS.get((number, number.__class__)) or vote_thread(number))

    def dead_may_vote(self, state: GameState, p: Player) -> bool:
        return False

    def take_vote(self, state: GameState, p: Player, post: PostIn, vote: VotePost, out: Messages) -> str:
        """Cast it by the family's rules (a `Refused` says why not); the log line."""
        raise NotImplementedError

    def vote_taken(self, state: GameState, p: Player, post: PostIn, vote: VotePost, line: str,
                   out: Messages) -> None:
        out.log.append(line)
        if vote.after_quote:  # (seldom: no call otherwise)
            quote_note(vote, out, p.name, post.text)

    def vote_post_done(self, state: GameState, post: PostIn) -> None:
        """After a vote post was taken or refused (001/000: an early end when all are in)."""


# each day's vote thread by its number and the number's class (an f-string of an int a vote
# post cost ~700 instructions; 1 and True are one key alone, two names), bounded
_VOTE_THREADS: dict[tuple[int, type], str] = {}


def vote_thread(number: int) -> str:
    """`f"vote:{number}"`, the vote thread of day `number`, made once (`_VOTE_THREADS`)."""
    if len(_VOTE_THREADS) >= 1024:
        _VOTE_THREADS.clear()
    found = _VOTE_THREADS[number, number.__class__] = f"vote:{number}"
    return found
