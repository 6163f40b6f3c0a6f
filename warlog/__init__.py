"""warlog: grid wargames recorded as append-only event logs."""

__version__ = "0.1.0"
