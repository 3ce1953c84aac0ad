"""The pieces of scripts/match.py: statistics, engines, one game (see match.py)."""
