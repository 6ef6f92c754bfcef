"""The PHPWind 9 adapter (`kind = "phpwind"`): see `forum.py` for what it does and
`docs/forums.md` for how a GM points it at a board."""

from tianshen.forum.phpwind.client import LostAnswer, PhpwindClient
from tianshen.forum.phpwind.forum import PhpwindForum, PhpwindPm, PhpwindPost

__all__ = ["LostAnswer", "PhpwindClient", "PhpwindForum", "PhpwindPm", "PhpwindPost"]
