"""What several rule systems share, and no system's own: not a rule system (no table.toml).

procedures.py holds the shared procedures (today's common module, re-exported here so that
``from warlog.engine.rulesets import common`` and ``common.NAME`` read as before).
"""

from warlog.engine.rulesets.common.procedures import *  # noqa: F401,F403
