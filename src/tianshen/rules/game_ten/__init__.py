"""`game_ten` (游戏十): seed 001."""
