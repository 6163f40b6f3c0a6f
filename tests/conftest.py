"""The whole suite: the long seeded sweeps (marked ``slow``) are collected first.

``./dev test`` runs two pytest-xdist workers with ``--dist worksteal``: each takes half the
tests, and one that runs out takes half of what the other has left. With xdist's default
``load`` scheduling, tests already queued on a busy worker stay there: measured here, one worker
finished after 107 s and the other after 287 s. Collected first, the sweeps of many seconds are
split between the workers at the start, and the short tests stolen at the end even things out
(both finish within seconds of each other)."""

from __future__ import annotations


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow first
