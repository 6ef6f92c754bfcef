"""`butterfly_elder`: seed 004 (16 players, killers, police, sniper, doctor, 花蝴蝶, 森林老人)."""
