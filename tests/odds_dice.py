"""The hand computations' arithmetic shared by the odds tests: one d6, face by face."""

from __future__ import annotations

import math
from fractions import Fraction as F

SIXTH = F(1, 6)
FACES = range(1, 7)


def per_face(values) -> dict[int, F]:
    """The distribution of a value worked out for each face of one d6."""
    dist: dict[int, F] = {}
    for v in values:
        dist[v] = dist.get(v, F(0)) + SIXTH
    return dict(sorted(dist.items()))


def up(x: int) -> int:
    """ohw.halving: divide by 2 and round up."""
    return math.ceil(x / 2)
