"""Django settings for the throwaway django-spirit 0.14.3 test forum (copied in as `settings/ci.py`).

Built on the project that `spirit startproject` generates (its `settings/dev.py`: SQLite,
LocMem caches, console email, MD5 password hasher).  Toggles, all by environment:

* SPIRIT_PORT          the port the forum is served on (site URL in links and emails)
* SPIRIT_DB            the SQLite file (default BASE_DIR/db.sqlite3)
* SPIRIT_RATELIMIT     "1": Spirit's own rate limits (1 post/10 s, 5 logins/5 min per IP); default off
* SPIRIT_DOUBLE_POST_MIN  the silent duplicate-post window in minutes (Spirit's default 30)
* SPIRIT_ISO_DATES     "1" (default): ISO 8601 timestamps (µs + offset) in `title=`; "0": Spirit's
                       default "Dec. 2, 2026, 1:45 p.m." at minute precision
* SPIRIT_DEBUG         "1" (default): Django tracebacks on 500s
"""

# ruff: noqa: F403, F405
import os

from .dev import *

SPIRIT_PORT = os.getenv("SPIRIT_PORT", "8000")
DEBUG = os.getenv("SPIRIT_DEBUG", "1") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ST_SITE_URL = f"http://127.0.0.1:{SPIRIT_PORT}/"
DATABASES["default"]["NAME"] = os.getenv("SPIRIT_DB", os.path.join(BASE_DIR, "db.sqlite3"))
ST_RATELIMIT_ENABLE = os.getenv("SPIRIT_RATELIMIT", "0") == "1"
ST_DOUBLE_POST_THRESHOLD_MINUTES = int(os.getenv("SPIRIT_DOUBLE_POST_MIN", "30"))
LOGGING["loggers"][""]["level"] = "WARNING"
if os.getenv("SPIRIT_ISO_DATES", "1") == "1":
    FORMAT_MODULE_PATH = ["mafiaforum.formats"]  # formats/en/formats.py: DATETIME_FORMAT = "c"
