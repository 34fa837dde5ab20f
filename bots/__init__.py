"""Built-in policies.  Each module also runs as an ICGA protocol executable: ``python -m bots.greedy``."""
