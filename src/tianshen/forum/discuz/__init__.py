"""The Discuz! X3.4/X3.5 adapter (`kind = "discuz"`): see `forum.py` for what it does and
`docs/forums.md` for how a GM points it at a board."""

from tianshen.forum.discuz.client import DiscuzClient, LostAnswer
from tianshen.forum.discuz.forum import DiscuzForum, DiscuzPm, DiscuzPost

__all__ = ["DiscuzClient", "DiscuzForum", "DiscuzPm", "DiscuzPost", "LostAnswer"]
