"""Read-only web pages: the public page of each game and the GM's (issue 16)."""
