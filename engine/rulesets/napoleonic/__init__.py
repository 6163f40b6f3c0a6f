"""A Napoleonic grid system with formations: the rule system's package (issue 40).

A manifest, light on purpose: the registry (engine/rulesets/__init__.py) names the referee
to import (referee.py) only when a game of this system is played; its table is table.toml.
"""

SHOWCASE = "napoleonic-hougoumont"
"""The bundled scenario the README's board picture of this system shows (chosen for the most
unit types on one board)."""
