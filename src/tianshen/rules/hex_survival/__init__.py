"""`hex_survival`: the hex-map survival game of seed 003 (12 or 14 players, HP and food)."""
