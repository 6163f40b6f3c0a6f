"""Every unit type of every rule system has a counter of its own (dashboard/unit_symbols.toml,
drawn by warlog/app/pictures/counters.py). The types come from the rule systems' tables, never from a
list here: a type added to a table without a symbol fails the first test."""

from __future__ import annotations

import pytest

from warlog.app.pictures import counters
from warlog.engine.rulesets.tables import periods, systems, unit_types


def every_type() -> dict[str, list[str]]:
    """Each rule system's unit types over all its periods, in the tables' order, once each."""
    return {system: list(dict.fromkeys(t for period in periods(system)
                                       for t in unit_types(system, period)))
            for system in systems()}


def test_the_tables_name_the_types_the_symbols_cover():
    found = every_type()
    assert set(found) == {"ohw", "portable", "frontier", "napoleonic", "density"}
    assert {"Machine guns", "Tanks", "Anti-tank guns", "Men-at-arms"} <= set(found["ohw"])
    assert "War Elephants" in found["portable"]


@pytest.mark.parametrize("system", systems())
def test_every_unit_type_has_a_symbol(system):
    table = counters.symbol_table()
    missing = [t for t in every_type()[system] if t not in table.get(system, {})]
    assert not missing, f"unit_symbols.toml has no [{system}] line for {missing}"


@pytest.mark.parametrize("system", systems())
def test_no_two_types_of_a_system_draw_the_same_counter(system):
    drawn: dict[tuple, str] = {}
    for unit_type in every_type()[system]:
        symbol = counters.unit_symbol(system, unit_type)
        key = (symbol.parts, symbol.code)
        assert key not in drawn, f"{system}: {unit_type} is drawn as {drawn.get(key)} is: {key}"
        drawn[key] = unit_type


def test_the_symbols_name_no_type_the_tables_lack():
    """A line for a type no table has (a renamed type) would leave the renamed one without."""
    found = every_type()
    for system, types in counters.symbol_table().items():
        assert system in found, f"unit_symbols.toml names a system {system!r} with no table"
        assert not set(types) - set(found[system]), (system, sorted(set(types) - set(found[system])))


@pytest.mark.parametrize("system", systems())
def test_each_symbol_is_drawn_inside_its_counter_with_a_short_code(system):
    for unit_type in every_type()[system]:
        symbol = counters.unit_symbol(system, unit_type)
        assert symbol.parts or symbol.code, f"{unit_type}: neither a symbol nor a code"
        assert symbol.code == "" or (2 <= len(symbol.code) <= 3 and symbol.code.isupper())
        lines, fills = counters._drawing(symbol)
        assert len(lines) >= 1 + len([p for p in symbol.parts if p != "dot"])  # frame + parts
        for shape in lines + fills:
            for x, y in shape:
                assert abs(x) <= counters.HALF_W and abs(y) <= counters.HALF_H, (unit_type, x, y)


def test_the_parts_draw_what_the_map_symbols_show():
    """Infantry: both diagonals of its frame; cavalry: the one from lower left to upper right
    (y points down); artillery: a filled dot; heavy troops: each line doubled; light: dashed."""
    def lines(parts: tuple[str, ...]):
        return counters._drawing(counters.Symbol(parts, ""))

    w, h = counters.FRAME_HALF
    y0 = counters.FRAME_Y
    frame, *x = lines(("x",))[0]
    assert frame[0] == (-w, y0 - h) and len(frame) == 5
    assert sorted(map(tuple, x)) == sorted([((-w, y0 - h), (w, y0 + h)), ((-w, y0 + h), (w, y0 - h))])
    assert lines(("diagonal",))[0][1:] == [[(-w, y0 + h), (w, y0 - h)]]
    dot_lines, dot_fills = lines(("dot",))
    assert len(dot_lines) == 1 and len(dot_fills) == 1  # the frame, and the dot filled
    assert len(lines(("x_double",))[0]) == 1 + 4 and len(lines(("x_dashed",))[0]) == 1 + 6
    assert len(lines(("diagonal_double",))[0]) == 1 + 2


def test_a_type_the_table_does_not_know_still_gets_a_counter():
    symbol = counters.unit_symbol("ohw", "Zeppelins")
    assert symbol == counters.Symbol((), "ZEP")
    assert counters._drawing(symbol) == ([], [])  # no frame: the code alone, centred


def test_an_unknown_part_is_refused_when_the_table_is_read(monkeypatch, tmp_path):
    """A misspelt part fails at the first board, naming the type, not as a half-drawn one."""
    class Folder:
        def joinpath(self, name):
            return tmp_path / name

    (tmp_path / "unit_symbols.toml").write_text('[ohw]\nInfantry = { parts = ["xx"], code = "" }\n')
    monkeypatch.setattr(counters, "files", lambda package: Folder())
    counters.symbol_table.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"ohw\.Infantry.*'xx'"):
            counters.symbol_table()
    finally:
        counters.symbol_table.cache_clear()
