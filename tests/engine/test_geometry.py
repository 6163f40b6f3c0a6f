"""Grid topology, drawing coordinates, arcs and aspect (rules grid.distance, grid.adjacent,
grid.arc). Lines and line of sight are in test_geometry_los.py."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warlog.engine.geometry import (
    FACINGS,
    GRID_KINDS,
    Grid,
    areas,
    cube_to_oddr,
    make_grid,
    oddr_to_cube,
)

SIZE = 20
GRIDS = {kind: make_grid(kind, SIZE, SIZE) for kind in GRID_KINDS}
kinds = pytest.mark.parametrize("kind", GRID_KINDS)
cells = st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))
wide_cells = st.tuples(st.integers(-50, 50), st.integers(-50, 50))  # the grid is unbounded
fast = settings(max_examples=200, deadline=None)


def facing_of(kind):
    return st.sampled_from(FACINGS[kind])


# -- construction ------------------------------------------------------------------------------
def test_make_grid_rejects_unknown_kind_and_bad_sizes():
    with pytest.raises(ValueError, match="unknown grid kind 'hexagon'"):
        make_grid("hexagon", 5, 5)
    for w, h in ((0, 5), (5, -1), (2.5, 3), (True, 3)):
        with pytest.raises(ValueError, match="positive whole number"):
            make_grid("square", w, h)


@kinds
def test_grid_is_a_frozen_value_with_its_facings(kind):
    g = make_grid(kind, 4, 3)
    assert g == Grid(kind, 4, 3) and hash(g) == hash(Grid(kind, 4, 3))
    assert g.facings == FACINGS[kind]
    with pytest.raises(AttributeError):
        g.width = 9  # type: ignore[misc]
    assert g.cells() == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (3, 1),
                         (0, 2), (1, 2), (2, 2), (3, 2)]
    assert [g.contains(c) for c in ((0, 0), (3, 2), (4, 0), (0, 3), (-1, 0), (0, -1))] == [
        True, True, False, False, False, False]
    with pytest.raises(ValueError, match="not a side"):
        g.step((0, 0), "NNE")


# -- fixed cases from the references -----------------------------------------------------------
def test_square_neighbours_and_manhattan_distance():
    g = GRIDS["square"]
    assert g.neighbours((5, 5)) == [(6, 5), (5, 4), (4, 5), (5, 6)]  # E N W S
    assert g.neighbours((0, 0)) == [(1, 0), (0, 1)]
    assert g.distance((0, 0), (3, 2)) == 5
    assert g.distance((4, 4), (5, 5)) == 2  # a corner is not a side: two steps
    assert g.distance((7, 1), (2, 9)) == 13


def test_oddr_cube_conversions_match_redblobgames():
    known = {(0, 0): (0, 0, 0), (1, 1): (1, 1, -2), (3, 2): (2, 2, -4), (0, 3): (-1, 3, -2),
             (4, 5): (2, 5, -7), (-1, -1): (0, -1, 1)}
    for cell, cube in known.items():
        assert oddr_to_cube(cell) == cube
        assert cube_to_oddr(cube) == cell
    with pytest.raises(ValueError):
        cube_to_oddr((1, 1, 1))


@given(wide_cells)
@fast
def test_oddr_cube_round_trip(cell):
    q, r, s = oddr_to_cube(cell)
    assert q + r + s == 0 and cube_to_oddr((q, r, s)) == cell


@pytest.mark.parametrize("kind", ["hex", "brick"])
def test_oddr_neighbour_offsets_match_redblobgames_table(kind):
    g = GRIDS[kind]
    # redblobgames, "Offset coordinates", odd-r: direction differences E NE NW W SW SE
    even = [(+1, 0), (0, -1), (-1, -1), (-1, 0), (-1, +1), (0, +1)]
    odd = [(+1, 0), (+1, -1), (0, -1), (-1, 0), (0, +1), (+1, +1)]
    for (c, r), table in (((4, 6), even), ((4, 7), odd)):
        assert [g.step((c, r), f) for f in g.facings] == [(c + dc, r + dr) for dc, dr in table]


def test_hex_distances_of_known_pairs():
    g = GRIDS["hex"]
    assert g.distance((0, 0), (3, 2)) == 4
    assert g.distance((1, 1), (4, 5)) == 5
    assert g.distance((0, 0), (0, 2)) == 2  # straight down a column zig-zags: NE/NW is not N
    assert g.distance((5, 5), (5, 6)) == 1 and g.distance((5, 5), (4, 6)) == 2
    assert g.distance((5, 4), (5, 5)) == 1 and g.distance((5, 4), (4, 5)) == 1
    assert GRIDS["brick"].distance((1, 1), (4, 5)) == 5  # bricks share the hex topology


# -- topology properties -----------------------------------------------------------------------
@kinds
@given(data=st.data())
@fast
def test_distance_is_a_metric(kind, data):
    g = GRIDS[kind]
    a, b, c = data.draw(wide_cells), data.draw(wide_cells), data.draw(wide_cells)
    assert g.distance(a, a) == 0
    assert g.distance(a, b) == g.distance(b, a)
    assert (g.distance(a, b) == 0) == (a == b)
    assert g.distance(a, c) <= g.distance(a, b) + g.distance(b, c)


@kinds
@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_neighbours_are_exactly_the_on_board_cells_at_distance_one(kind, data):
    g = GRIDS[kind]
    cell = data.draw(cells)
    ring = [c for c in g.cells() if g.distance(cell, c) == 1]
    assert sorted(g.neighbours(cell)) == sorted(ring)
    assert len(g.neighbours(cell)) == len(set(g.neighbours(cell)))
    for f, n in zip(g.facings, [g.step(cell, f) for f in g.facings]):
        assert g.facing_to(cell, n) == f and g.distance(cell, n) == 1
    far = data.draw(cells.filter(lambda c: g.distance(cell, c) != 1))
    assert g.facing_to(cell, far) is None


@kinds
@given(data=st.data())
@fast
def test_stepping_back_through_the_opposite_side_returns(kind, data):
    g = GRIDS[kind]
    cell, f = data.draw(wide_cells), data.draw(facing_of(kind))
    back = g.opposite(f)
    assert back != f and g.opposite(back) == f
    assert g.step(g.step(cell, f), back) == cell
    assert g.facing_to(g.step(cell, f), cell) == back


def test_opposites():
    assert [GRIDS["square"].opposite(f) for f in "ENWS"] == list("WSEN")
    assert [GRIDS["hex"].opposite(f) for f in FACINGS["hex"]] == ["W", "SW", "SE", "E", "NE", "NW"]


@kinds
@given(data=st.data())
@fast
def test_straight_moves_one_cell_further_each_step(kind, data):
    g = GRIDS[kind]
    cell, f, n = data.draw(wide_cells), data.draw(facing_of(kind)), data.draw(st.integers(0, 30))
    path = g.straight(cell, f, n)
    assert len(path) == n
    for k, c in enumerate(path, start=1):
        assert g.distance(cell, c) == k
        assert g.facing_to(path[k - 2] if k > 1 else cell, c) == f
    if n:  # straight ahead really is straight: all centres on the facing ray
        for c in path:
            assert g.bearing(cell, c) == pytest.approx(g.facing_angle(f), abs=1e-9)


def test_straight_rejects_negative_counts():
    with pytest.raises(ValueError):
        GRIDS["hex"].straight((0, 0), "E", -1)


# -- drawing coordinates -----------------------------------------------------------------------
R = 1 / math.sqrt(3)


def test_known_centres():
    assert GRIDS["square"].centre((2, 3)) == (2.5, 3.5)
    assert GRIDS["brick"].centre((2, 3)) == (3.0, 3.5)
    assert GRIDS["brick"].centre((2, 4)) == (2.5, 4.5)
    assert GRIDS["hex"].centre((0, 0)) == pytest.approx((0.5, R))
    assert GRIDS["hex"].centre((2, 3)) == pytest.approx((3.0, R + 4.5 * R))
    hexagon = [(1, R / 2), (1, 1.5 * R), (0.5, 2 * R), (0, 1.5 * R), (0, R / 2), (0.5, 0)]
    assert [p for xy in GRIDS["hex"].corners((0, 0)) for p in xy] == pytest.approx(
        [p for xy in hexagon for p in xy])
    assert GRIDS["brick"].corners((0, 1)) == [(0.5, 1), (1.5, 1), (1.5, 2), (0.5, 2)]


def area(poly):
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))) / 2


def shared_side(g, a, b):
    """The stretch of boundary (two points) cells a and b share, or None if at most a point."""
    pa, pb = g.corners(a), g.corners(b)
    for p0, p1 in zip(pa, pa[1:] + pa[:1]):
        ux, uy = p1[0] - p0[0], p1[1] - p0[1]
        length2 = ux * ux + uy * uy
        for q0, q1 in zip(pb, pb[1:] + pb[:1]):
            if all(abs(ux * (q[1] - p0[1]) - uy * (q[0] - p0[0])) < 1e-9 for q in (q0, q1)):
                ts = sorted(((q[0] - p0[0]) * ux + (q[1] - p0[1]) * uy) / length2 for q in (q0, q1))
                lo, hi = max(ts[0], 0.0), min(ts[1], 1.0)
                if hi - lo > 1e-9:
                    return [(p0[0] + t * ux, p0[1] + t * uy) for t in (lo, hi)]
    return None


@kinds
@given(data=st.data())
@fast
def test_cells_are_convex_polygons_that_meet_neighbours_along_a_side(kind, data):
    g = GRIDS[kind]
    cell = data.draw(wide_cells)
    poly = g.corners(cell)
    assert len(poly) == (6 if kind == "hex" else 4)
    assert area(poly) == pytest.approx({"hex": math.sqrt(3) / 2}.get(kind, 1.0))
    cx, cy = g.centre(cell)
    assert (sum(x for x, _ in poly) / len(poly), sum(y for _, y in poly) / len(poly)) == \
        pytest.approx((cx, cy))
    for n in [g.step(cell, f) for f in g.facings]:
        side = shared_side(g, cell, n)
        assert side is not None  # a stretch of side, not just a corner
        mid = [(p + q) / 2 for p, q in zip(g.centre(cell), g.centre(n))]
        (x0, y0), (x1, y1) = side  # the step between centres crosses that side
        assert abs((x1 - x0) * (mid[1] - y0) - (y1 - y0) * (mid[0] - x0)) < 1e-9
        assert min(x0, x1) - 1e-9 <= mid[0] <= max(x0, x1) + 1e-9
        assert min(y0, y1) - 1e-9 <= mid[1] <= max(y0, y1) + 1e-9
    other = data.draw(wide_cells.filter(lambda c: g.distance(cell, c) > 1))
    assert shared_side(g, cell, other) is None  # grid.adjacent: a corner is not enough


def strictly_inside(poly, p, eps=1e-9):
    """Convex polygon listed clockwise on screen: p is on the same (inner) side of every edge."""
    crosses = [(x1 - x0) * (p[1] - y0) - (y1 - y0) * (p[0] - x0)
               for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1])]
    return all(c > eps for c in crosses)


@kinds
@given(x=st.floats(0.5, 8.5), y=st.floats(0.6, 8.5))
@fast
def test_cells_tile_the_plane_without_overlap(kind, x, y):
    g = GRIDS[kind]
    row = round((y - g.centre((0, 0))[1]) / (g.centre((0, 1))[1] - g.centre((0, 0))[1]))
    col = math.floor(x)
    near = [(c, r) for r in range(row - 2, row + 3) for c in range(col - 2, col + 3)]
    inside = [c for c in near if strictly_inside(g.corners(c), (x, y))]
    touching = [c for c in near if strictly_inside(g.corners(c), (x, y), eps=-1e-9)]
    assert len(inside) <= 1 and len(touching) >= 1


# -- angles and arcs (grid.arc) ----------------------------------------------------------------
@kinds
@given(data=st.data())
@fast
def test_facing_angle_points_at_the_faced_neighbour(kind, data):
    g = GRIDS[kind]
    cell, f = data.draw(wide_cells), data.draw(facing_of(kind))
    assert g.angle_off(cell, f, g.step(cell, f)) == pytest.approx(0, abs=1e-9)
    assert g.angle_off(cell, f, g.step(cell, g.opposite(f))) == pytest.approx(180, abs=1e-9)
    assert -180 < g.facing_angle(f) <= 180


def test_known_facing_angles():
    assert [GRIDS["square"].facing_angle(f) for f in "ENWS"] == [0, 90, 180, -90]
    assert [GRIDS["hex"].facing_angle(f) for f in FACINGS["hex"]] == [0, 60, 120, 180, -120, -60]
    b = math.degrees(math.atan2(1, 0.5))  # a brick's NE neighbour is half a cell right, one up
    assert [GRIDS["brick"].facing_angle(f) for f in FACINGS["brick"]] == pytest.approx(
        [0, b, 180 - b, 180, b - 180, -b])
    assert b == pytest.approx(63.4349488)


def test_bearing_convention_and_self_bearing():
    g = GRIDS["square"]
    assert g.bearing((5, 5), (6, 4)) == pytest.approx(45)
    assert g.bearing((5, 5), (4, 6)) == pytest.approx(-135)
    assert g.bearing((5, 5), (3, 5)) == pytest.approx(180)
    with pytest.raises(ValueError):
        g.bearing((5, 5), (5, 5))


def test_square_arc_cases():
    g = GRIDS["square"]
    assert g.in_arc((5, 5), "E", (7, 6))
    assert not g.in_arc((5, 5), "E", (6, 7))
    assert g.in_arc((5, 5), "E", (7, 7))  # exactly on the 45-degree line: boundary included
    assert g.in_arc((5, 5), "E", (7, 3)) and not g.in_arc((5, 5), "E", (7, 2))
    assert g.in_arc((5, 5), "N", (3, 3)) and not g.in_arc((5, 5), "N", (3, 4))
    assert not g.in_arc((5, 5), "E", (5, 5)) and not g.in_arc((5, 5), "E", (5, 4))
    assert g.in_arc((5, 5), "E", (5, 4), degrees=180)  # the flank is on the 90-degree line
    with pytest.raises(ValueError):
        g.in_arc((5, 5), "E", (7, 6), degrees=0)


def test_hex_and_brick_arc_cases():
    h, b = GRIDS["hex"], GRIDS["brick"]
    # hex: the NE neighbour is 60 degrees off east: out of a 90 arc, on the edge of a 120 arc
    assert not h.in_arc((5, 5), "E", (6, 4)) and h.in_arc((5, 5), "E", (6, 4), degrees=120)
    assert h.in_arc((5, 5), "E", (7, 4))  # 30 degrees off
    # brick (5, 4), centre (5.5, 4.5), facing E
    assert b.in_arc((5, 4), "E", (7, 3))  # centre (8.0, 3.5): 21.8 degrees off
    assert b.in_arc((5, 4), "E", (6, 3))  # centre (7.0, 3.5): 33.7 degrees off
    assert b.in_arc((5, 4), "E", (7, 2))  # centre (7.5, 2.5): exactly 45 degrees, included
    assert not b.in_arc((5, 4), "E", (6, 2))  # centre (6.5, 2.5): 63.4 degrees off
    assert not b.in_arc((5, 4), "E", (5, 3), degrees=120)  # the NE neighbour is 63.4 off


def mirror(g, cell, facing, target):
    """The cell whose centre is target's centre reflected across the facing line, if any."""
    (cx, cy), (tx, ty) = g.centre(cell), g.centre(target)
    a = math.radians(g.facing_angle(facing))
    ux, uy = math.cos(a), -math.sin(a)  # screen y points down
    along = (tx - cx) * ux + (ty - cy) * uy
    px, py = 2 * (cx + along * ux) - tx, 2 * (cy + along * uy) - ty
    row_height = g.centre((0, 1))[1] - g.centre((0, 0))[1]
    row = round((py - g.centre((0, 0))[1]) / row_height)
    for r in range(row - 1, row + 2):
        for c in range(math.floor(px) - 2, math.floor(px) + 3):
            if math.dist(g.centre((c, r)), (px, py)) < 1e-6:
                return (c, r)
    return None


@kinds
@given(data=st.data())
@fast
def test_arcs_are_mirror_symmetric_about_the_facing_line(kind, data):
    g = GRIDS[kind]
    cell, f, target = data.draw(cells), data.draw(facing_of(kind)), data.draw(wide_cells)
    degrees = data.draw(st.sampled_from([60, 90, 120, 180, 270]))
    image = mirror(g, cell, f, target)
    if kind != "brick" or f in ("E", "W"):  # brick centres are symmetric about E-W lines only
        assert image is not None
    if image is not None:
        assert g.in_arc(cell, f, image, degrees) == g.in_arc(cell, f, target, degrees)
        if target != cell:
            assert g.angle_off(cell, f, image) == pytest.approx(g.angle_off(cell, f, target))


@kinds
@given(data=st.data())
@fast
def test_arc_contains_the_front_never_the_rear_and_180_is_a_half_plane(kind, data):
    g = GRIDS[kind]
    cell, f, target = data.draw(cells), data.draw(facing_of(kind)), data.draw(wide_cells)
    degrees = data.draw(st.floats(1, 359))
    assert g.in_arc(cell, f, g.step(cell, f), degrees)
    assert not g.in_arc(cell, f, g.step(cell, g.opposite(f)), degrees)
    a = math.radians(g.facing_angle(f))
    (cx, cy), (tx, ty) = g.centre(cell), g.centre(target)
    ahead = (tx - cx) * math.cos(a) - (ty - cy) * math.sin(a)
    assert g.in_arc(cell, f, target, 180) == (target != cell and ahead > -1e-9)
    if kind == "square":  # grid.arc: between the 45-degree lines from the front corners
        dx, dy = target[0] - cell[0], target[1] - cell[1]
        forward, sideways = {"E": (dx, dy), "W": (-dx, dy), "N": (-dy, dx), "S": (dy, dx)}[f]
        assert g.in_arc(cell, f, target) == (target != cell and abs(sideways) <= forward)


# -- aspect ------------------------------------------------------------------------------------
def test_known_aspects():
    s, h = GRIDS["square"], GRIDS["hex"]
    assert [s.aspect((5, 5), "E", n) for n in s.neighbours((5, 5))] == [
        "front", "flank", "rear", "flank"]
    assert [h.aspect((5, 5), "E", n) for n in h.neighbours((5, 5))] == [
        "front", "front", "flank", "rear", "flank", "front"]
    assert [h.aspect((5, 5), "NW", n) for n in h.neighbours((5, 5))] == [
        "flank", "front", "front", "front", "flank", "rear"]
    with pytest.raises(ValueError, match="does not share a side"):
        s.aspect((5, 5), "E", (6, 6))


@kinds
@given(data=st.data())
@fast
def test_aspect_follows_the_angle_off_the_facing(kind, data):
    g = GRIDS[kind]
    cell, f = data.draw(wide_cells), data.draw(facing_of(kind))
    seen = []
    for n in [g.step(cell, side) for side in g.facings]:
        off = g.angle_off(cell, f, n)
        expected = "front" if off < 90 - 1e-9 else "rear" if off > 150 - 1e-9 else "flank"
        assert g.aspect(cell, f, n) == expected
        seen.append(expected)
    fronts = {"square": 1, "hex": 3, "brick": 3}[kind]
    assert (seen.count("front"), seen.count("flank"), seen.count("rear")) == (fronts, 2, 1)


def _groups(numbered):
    by_number = {}
    for cell, number in numbered.items():
        by_number.setdefault(number, set()).add(cell)
    return sorted(sorted(g) for g in by_number.values())


def test_areas_join_touching_cells_of_one_kind_and_nothing_else():
    board = {(1, 1): "woods", (1, 2): "woods", (2, 2): "woods",  # one wood of three cells
             (2, 1): "hill",  # touches the wood, but another kind: an area of its own
             (4, 4): "woods",  # a second wood
             (5, 5): "marsh", (6, 6): "marsh"}  # corner to corner on squares; sides on odd-r hexes
    square = areas(make_grid("square", 8, 8), board)
    assert _groups(square) == [[(1, 1), (1, 2), (2, 2)], [(2, 1)], [(4, 4)], [(5, 5)], [(6, 6)]]
    hexes = areas(make_grid("hex", 8, 8), board)  # (6, 6) is (5, 5)'s south-east neighbour
    assert [(5, 5), (6, 6)] in _groups(hexes)
    assert sorted(set(square.values())) == list(range(5))  # numbered 0, 1, ... in cell order
    assert square == areas(make_grid("square", 8, 8), dict(reversed(board.items())))


@pytest.mark.parametrize("kind", ["square", "hex", "brick"])
def test_neighbours_asked_again_are_the_same_and_a_new_list(kind):
    """Found once per cell: asking again gives the same cells, in facings order, as a list the
    caller may change without changing the next answer."""
    grid = Grid(kind, 5, 4)
    for cell in grid.cells():
        first = grid.neighbours(cell)
        expected = [n for n in (grid.step(cell, f) for f in grid.facings) if grid.contains(n)]
        assert first == expected
        first.append((99, 99))
        assert grid.neighbours(list(cell)) == expected
