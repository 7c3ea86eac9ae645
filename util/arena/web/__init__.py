"""The browser app: play any game against any agent, see what the agent thinks, browse the
tournament store. ``python -m util.arena.web --help``. The server owns every game's state (the page
only asks), enforces turns and legality, and answers a wrong request with a 4xx and a message."""
