"""Seats: the one interface the match talks to, for bot processes (ICGA protocol) and built-in policies."""
