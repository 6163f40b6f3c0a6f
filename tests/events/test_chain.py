"""Canonical JSON and the hash chain: the bytes every hash is computed over."""

from __future__ import annotations

from hashlib import sha256

import pytest
from hypothesis import given
from hypothesis import strategies as st

from warlog.events.chain import GENESIS, CanonicalError, canonical, chain_of, link


def test_canonical_sorts_keys_at_every_level_and_has_no_spaces():
    assert canonical({"b": 1, "a": {"d": [1, 2], "c": None}}) == b'{"a":{"c":null,"d":[1,2]},"b":1}'


def test_canonical_ignores_insertion_order_and_writes_tuples_as_lists():
    assert canonical({"x": (1, 2), "y": "z"}) == canonical({"y": "z", "x": [1, 2]})


def test_canonical_is_utf8_not_escaped():
    assert canonical({"name": "Général Ney"}) == '{"name":"Général Ney"}'.encode()


@pytest.mark.parametrize("bad", [{1, 2}, {1: "a"}, object(), 2**70])
def test_canonical_refuses_values_without_a_canonical_form(bad):
    with pytest.raises(CanonicalError, match="canonical JSON"):
        canonical({"value": bad})


def test_genesis_is_64_hex_zeros():
    assert GENESIS == "0" * 64


def test_link_is_sha256_of_previous_hex_then_body():
    assert link(GENESIS, b"{}") == sha256(b"0" * 64 + b"{}").hexdigest()


def test_chain_of_links_each_body_to_the_one_before():
    bodies = [b'{"seq":1}', b'{"seq":2}', b'{"seq":3}']
    links = chain_of(bodies)
    assert links[0] == link(GENESIS, bodies[0])
    assert links[2] == link(links[1], bodies[2])


@given(st.lists(st.binary(max_size=40), min_size=1, max_size=8), st.data())
def test_changing_any_body_changes_its_link_and_every_later_one(bodies, data):
    i = data.draw(st.integers(0, len(bodies) - 1))
    edited = list(bodies)
    edited[i] = bodies[i] + b"!"
    before, after = chain_of(bodies), chain_of(edited)
    assert before[:i] == after[:i]
    assert all(b != a for b, a in zip(before[i:], after[i:]))
