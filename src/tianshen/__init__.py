"""tianshen (天神): an automatic game master for forum Mafia games."""
