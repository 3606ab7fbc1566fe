"""The HTTP service's and the stdio protocol's JSON (embedding.wirejson, orjson) reads exactly what the strict reader
(jsonread.strict_loads) reads, refuses exactly what it refuses with the same message, and writes replies that the
standard library reads back to the same value; non-finite numbers and lone surrogates in a reply still become an
``internal`` error."""

from __future__ import annotations

import json
import math
import random

import pytest

pytest.importorskip("orjson")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bc_env.rules import Game, StateError  # noqa: E402
from bc_env.rules.jsonread import strict_loads  # noqa: E402
from embedding import wirejson  # noqa: E402


def read(raw: bytes) -> tuple[str, object]:
    """('ok', value) or ('error', message), for comparing the two readers."""
    try:
        return "ok", strict_loads(raw, "body")
    except StateError as exc:
        return "error", str(exc)


def read_wire(raw: bytes) -> tuple[str, object]:
    try:
        return "ok", wirejson.loads(raw, "body")
    except StateError as exc:
        return "error", str(exc)


def same(a: tuple[str, object], b: tuple[str, object]) -> bool:
    """Equal results, with the types of numbers compared too (1 and 1.0 are equal in Python, not on the wire)."""
    return a[0] == b[0] and json.dumps(a[1], sort_keys=False) == json.dumps(b[1], sort_keys=False)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1, "a": 2}',  # the same key twice: refused, not the last one kept
        b'{"x": {"k": "v", "k": "v"}}',
        b'{"a": 123456789012345678901234567890}',  # beyond 64 bits: an integer, not orjson's float
        b'{"a": -9223372036854775809}',
        b'{"a": 18446744073709551616}',
        b'{"a": 9223372036854775807, "b": -9223372036854775808}',
        b'{"a": 1e400}',
        b'{"a": NaN}',
        b'{"a": -Infinity}',
        b'{"id": "\\ud800"}',  # a lone surrogate, escaped
        b'{"id": "\xed\xa0\x80"}',  # a surrogate encoded as UTF-8: not UTF-8
        b'\xef\xbb\xbf{"a": 1}',  # a byte order mark
        b'{"a": "\\"", "a": 1}',  # a quote inside a string, and a duplicate
        b'{"a" : 1 , "b":\t[1.5, -0.0, 1E5, 2e-3, 0.1]}',
        b'{"a": 1,}',
        b"[1, 2",
        b"",
        b"   ",
        b'"caf\xc3\xa9 \\u00e9"',
        b"[" * 3000 + b"]" * 3000,  # deeper than either reader goes
        b"  [1, 2]  ",
        b'{"a": 1} {"b": 2}',
    ],
)
def test_the_wire_reader_agrees_with_the_strict_reader(raw: bytes) -> None:
    assert same(read_wire(raw), read(raw)), (read_wire(raw), read(raw))


def test_a_duplicate_key_is_refused_with_its_field() -> None:
    with pytest.raises(StateError, match=r"body\.x: the key 'k' appears twice"):
        wirejson.loads(b'{"x": {"k": 1, "k": 2}}', "body")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(json_values, st.integers(min_value=0, max_value=5), st.randoms(use_true_random=False))
def test_fuzz_the_wire_reader_agrees_with_the_strict_reader(value: object, mutation: int, rng: random.Random) -> None:
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5, separators=rng.choice([(",", ":"), (", ", ": ")]))
    if mutation == 1 and "{" in text:  # a key written twice
        text = text.replace("{", '{"dup": 1, "dup": 2, ', 1).replace(", }", "}")
    elif mutation == 2:
        text = text.replace("1", "1e400", 1)
    elif mutation == 3:
        text = text.replace('"', '"\\ud83d', 1)
    elif mutation == 4 and len(text) > 2:
        cut = rng.randrange(len(text))
        text = text[:cut] + text[cut + 1 :]
    raw = text.encode("utf-8", "surrogatepass")
    assert same(read_wire(raw), read(raw)), (raw, read_wire(raw), read(raw))


def test_replies_round_trip_and_what_cannot_be_written_becomes_an_internal_error() -> None:
    state = Game.new("core-2p", 5).to_dict()
    reply = {"ok": True, "id": "é", "cmd": "state", "state": state, "big": 10**30, "t": (1, 2.5)}
    assert json.loads(wirejson.encode_bytes(reply)) == json.loads(json.dumps(reply))
    for bad, where in [(math.nan, "reply.x[1]"), (math.inf, "reply.x[1]"), ("\udc00", "reply.x[1]")]:
        data = json.loads(wirejson.encode_bytes({"ok": True, "id": 3, "cmd": "state", "x": [1, bad]}))
        assert data["ok"] is False and data["error"]["code"] == "internal" and where in data["error"]["message"]
