"""What several rule systems share, and no system's own: not a rule system (no table.toml).

procedures.py holds the shared procedures (today's common module, re-exported here so that
``from warlog.engine.rulesets import common`` and ``common.NAME`` read as before). legacy.py holds
the records the five built-in systems share (``LegacyState``, ``LegacyUnit``: their fields beyond
the core's, with the checksum and public view every stored game was written with), imported from
``common.legacy`` by the referees that name them.
"""

from warlog.engine.rulesets.common.procedures import *  # noqa: F401,F403
