"""Terminal commands for users and agents: ``resolve`` and ``new``."""
