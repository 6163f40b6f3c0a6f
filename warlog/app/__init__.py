"""The application layer: what the two faces (the command line and the dashboard) do to a game.

A face parses what a person typed or clicked, calls this layer and shows what comes back; this
layer holds the one way of each thing: starting a game (start.py), seating people and bots
(seats.py), giving, undoing, noting and conceding through one order writer (recorder.py), forking
(forking.py), the session a face holds for a game (session.py), and the dice a person rolls at
the table (table_dice.py). It reaches the rules only through warlog.engine and the log only
through warlog.events; it imports no face (the import contracts in pyproject.toml say so, and
tests/test_layers.py checks them).
"""
