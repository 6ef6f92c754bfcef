"""A GM adapter on the memory board that behaves like a real forum after a crash: it keeps
no idempotency keys (Discuz keeps none, Spirit only for 30 minutes), so a write made twice
arrives twice, and `find_written` must look at what is on the board."""

from __future__ import annotations

from tianshen.forum.base import Write, look_back_from
from tianshen.forum.memory import MemoryForum


class ForgetfulForum(MemoryForum):
    remembers_keys = False

    def create_thread(self, title: str, body: str, key: str) -> str:
        self._require_login()
        return self.board._gm_call("create_thread", None, lambda: self.board.new_thread(self.account, title, body))

    def reply(self, thread_id: str, body: str, key: str) -> int:
        self._require_login()
        return self.board._gm_call("reply", None, lambda: self.board.post(self.account, thread_id, body))

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        self._require_login()
        self.board._gm_call("send_pm", None, lambda: self.board.pm(self.account, to, body, subject))

    def find_written(self, write: Write) -> str | None:
        """What a real adapter does: the GM's writes since `since` with the same text."""
        self._require_login()
        assert write.since is not None, "the sender always says since when"
        since = look_back_from(write.since)
        found: list[str] = []
        if write.kind == "pm":
            found = [str(pm.id) for pm in self.board._pms.values()
                     if (pm.sender, pm.recipient, pm.text, pm.subject) == (self.account, write.to, write.body,
                                                                           write.subject) and pm.sent_at >= since]
        elif write.kind == "thread":
            for thread_id, title in self.board.threads():
                first = self.board.thread_posts(thread_id)[0]
                if title == write.title and first.author == self.account and first.text == write.body \
                        and first.posted_at >= since:
                    found.append(thread_id)
        else:
            found = [str(p.id) for p in self.board.thread_posts(write.thread_id)
                     if p.author == self.account and p.text == write.body and p.posted_at >= since]
        return found[-1] if len(found) > write.known else None  # more copies than other writes made
