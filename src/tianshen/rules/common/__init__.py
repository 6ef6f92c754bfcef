"""Mechanics shared by the rulesets of one author's family (seeds 001 and 002): roles and
groups, PM intake, the day vote chain (001 §5), and the game loop around them.  A family
(`classic`, `game_ten`) subclasses `common.game.ForumGame` and supplies its night."""
