"""The order in which pytest-xdist hands tests to its workers (`make test`: `-n 2`).

Long tests first, each on its own: the live Spirit games and the crash tests wait on a forum
and a daemon for minutes, so they start at once, one per worker, and the short tests fill
the workers around them; the run ends when the last short test does, not when a live game
that started late does.  A test's weight is what it took in the last run on this machine
(pytest's cache, `tianshen/durations`), else the estimate of its file below, else 0: a new
test file needs no entry here, it runs among the short ones in collection order until it
has been timed once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdist.scheduler import LoadScheduling
from xdist.workermanage import WorkerController

# seconds a test of these files (or a test by its node id, any parameters) takes on an idle
# machine: the first run's guess (the CI run of 2026-12-06, suite3's and suite4's runs)
KNOWN_LONG = {
    "tests/crash/test_crash_spirit.py": 70.0,  # 18-24 kills, was 38 (suite7): about 14 restarts of 1-1.5 s fewer
    "tests/forums/test_spirit_game.py": 60.0,  # a seed whose game ends after night 2 (suite5)
    "tests/crash/test_two_processes_pg.py": 95.0,
    "tests/forums/test_spirit_two_games.py": 40.0,
    "tests/test_fuzz_inputs.py": 8.0,
    "tests/web/test_web_follow.py": 8.0,
    "tests/web/test_web_words.py": 4.0,  # 2-5 s a variant since the CLI runner keeps its command tree (suite4)
    "tests/forums/test_spirit_adapter.py": 5.0,
    "tests/forums/test_spirit_adapter.py::test_throttled_reply_is_waited_out_and_not_duplicated": 8.0,
    "tests/test_upgrade_kill.py": 8.0,
    "tests/test_exactly_once.py": 10.0,
    "tests/forums/test_discuz_parse_speed.py::test_a_500_post_thread_reads_the_same_as_with_beautifulsoup": 5.0,
}
ALONE_S = 5.0  # a test at least this long is sent to a worker on its own
CHUNK = 25  # short tests sent to a worker at a time (neighbours share module fixtures)
DURATIONS_KEY = "tianshen/durations"


def weight(nodeid: str, durations: Mapping[str, float]) -> float:
    if nodeid in durations:
        return durations[nodeid]
    for key in (nodeid, nodeid.split("[", 1)[0], nodeid.split("::", 1)[0]):  # the test, its function, its file
        if key in KNOWN_LONG:
            return KNOWN_LONG[key]
    return 0.0


class LongFirst(LoadScheduling):
    """`--dist load`, ordered: the long tests (by weight, longest first) one at a time, then
    the rest in collection order, in chunks; a worker gets more when it has fewer than two
    waiting (it runs a test only once it knows the next one)."""

    def __init__(self, config, log=None, durations: Mapping[str, float] | None = None) -> None:
        super().__init__(config, log)
        self.durations = dict(durations or {})

    def schedule(self) -> None:
        assert self.collection_is_completed
        if self.collection is None:
            if not self._check_nodes_have_same_collection():
                self.log("**Different tests collected, aborting run**")
                return
            self.collection = next(iter(self.node2collection.values()))
            self.pending[:] = self.order(self.collection)
        for node in self.nodes:
            self.check_schedule(node)

    def order(self, collection: Sequence[str]) -> list[int]:
        weights = [weight(nodeid, self.durations) for nodeid in collection]
        long = sorted((i for i, w in enumerate(weights) if w >= ALONE_S), key=lambda i: -weights[i])
        return long + [i for i, w in enumerate(weights) if w < ALONE_S]

    def check_schedule(self, node: WorkerController, duration: float = 0) -> None:
        if node.shutting_down:
            return
        node_pending = self.node2pending[node]
        while self.pending and len(node_pending) < 2:
            self._send_tests(node, self._next_batch())
        if not self.pending:
            node.shutdown()

    def _next_batch(self) -> int:
        """How many of the next pending tests go together: one long test, or a run of short ones."""
        assert self.collection is not None
        n = 0
        for i in self.pending[:CHUNK]:
            if weight(self.collection[i], self.durations) >= ALONE_S:
                return max(n, 1)
            n += 1
        return max(n, 1)
