"""Property tests (hypothesis) of the collection and string functions."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.template.helpers import evaluate

KEY_CHARS = "$%@#"
# Text that contains none of the placeholder characters.
plain = st.text(
    alphabet=st.characters(blacklist_characters=KEY_CHARS), max_size=12
)
scalars = st.one_of(plain, st.integers(-5, 5), st.booleans(), st.none())
#: Applied to each test (not a global profile: other suites keep theirs).
QUICK = settings(max_examples=60, deadline=None)


@QUICK
@given(
    template=st.text(alphabet=KEY_CHARS + "ab ", max_size=20),
    params=st.dictionaries(
        st.sampled_from(list(KEY_CHARS)), st.text(max_size=5), max_size=4
    ),
)
def test_str_replace_single_char_keys(
    template: str, params: dict[str, str]
) -> None:
    """With one-character keys, each occurrence is replaced once and the
    replacements are never scanned again."""
    result = evaluate(
        {"str_replace": {"template": template, "params": params}}
    )
    assert result == "".join(params.get(c, c) for c in template)


@QUICK
@given(
    template=plain,
    params=st.dictionaries(st.sampled_from(list(KEY_CHARS)), plain),
)
def test_str_replace_strict_reports_missing_keys(
    template: str, params: dict[str, str]
) -> None:
    snippet = {"str_replace_strict": {"template": template, "params": params}}
    if not params:
        assert evaluate(snippet) == template
        return
    # No key can occur in ``template`` (plain text has no key character).
    with pytest.raises(ValueError) as err:
        evaluate(snippet)
    missing = ",".join(sorted(sorted(params), key=len, reverse=True))
    assert str(err.value) == (
        f"The following params were not found in the template: {missing}"
    )


@QUICK
@given(
    value=st.one_of(
        st.just(""), st.none(), st.just([]), st.just({}), st.text(min_size=1)
    )
)
def test_str_replace_vstrict_refuses_empty_values(value: Any) -> None:
    snippet = {
        "str_replace_vstrict": {"template": "x$", "params": {"$": value}}
    }
    if value in ("", None, [], {}):
        with pytest.raises(ValueError, match="undefined or empty value"):
            evaluate(snippet)
    else:
        assert evaluate(snippet) == "x" + value


@QUICK
@given(
    delim=st.text(max_size=3),
    lists=st.lists(
        st.lists(st.one_of(plain, st.none()), max_size=4),
        min_size=1,
        max_size=3,
    ),
)
def test_list_join_joins_every_list(
    delim: str, lists: list[list[Any]]
) -> None:
    result = evaluate({"list_join": [delim, *lists]})
    items = [item or "" for joined in lists for item in joined]
    assert result == delim.join(items)


@QUICK
@given(
    maps=st.lists(
        # keys that are never a function's name: a one-key map such as
        # {"if": None} is a function call, not data
        st.one_of(
            st.none(),
            st.dictionaries(plain.map("k_".__add__), scalars, max_size=4),
        ),
        max_size=4,
    )
)
def test_map_merge_later_maps_win(maps: list[dict[str, Any] | None]) -> None:
    expected: dict[str, Any] = {}
    for item in maps:
        expected.update(item or {})
    assert evaluate({"map_merge": maps}) == expected


@QUICK
@given(
    source=st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 3)),
    values=st.dictionaries(st.integers(0, 3), st.integers(10, 13)),
)
def test_map_replace_values(
    source: dict[str, int], values: dict[int, int]
) -> None:
    result = evaluate({"map_replace": [source, {"values": values}]})
    assert result == {k: values.get(v, v) for k, v in source.items()}


@QUICK
@given(source=st.dictionaries(st.sampled_from("abc"), st.integers()))
def test_map_replace_keys_renames(source: dict[str, int]) -> None:
    renames = {k: k.upper() for k in source}
    result = evaluate({"map_replace": [source, {"keys": renames}]})
    assert result == {k.upper(): v for k, v in source.items()}


@QUICK
@given(
    for_each=st.dictionaries(
        st.sampled_from(["%a%", "%b%", "%c%"]),
        st.lists(plain, max_size=3),
        min_size=1,
    ),
    permutations=st.booleans(),
)
def test_repeat_sizes(
    for_each: dict[str, list[str]], permutations: bool
) -> None:
    template = "-".join(for_each)
    snippet = {
        "repeat": {
            "template": template,
            "for_each": for_each,
            "permutations": permutations,
        }
    }
    lengths = [len(v) for v in for_each.values()]
    if not permutations and len(set(lengths)) > 1:
        with pytest.raises(ValueError):
            evaluate(snippet)
        return
    result = evaluate(snippet)
    combos = (
        itertools.product(*for_each.values())
        if permutations
        else zip(*for_each.values(), strict=True)
    )
    assert result == ["-".join(combo) for combo in combos]
    if permutations:
        assert len(result) == functools.reduce(lambda a, b: a * b, lengths, 1)


@QUICK
@given(
    items=st.lists(
        st.text(alphabet="abc", max_size=4), min_size=1, max_size=5
    ),
    delim=st.sampled_from([",", ";", "--"]),
)
def test_str_split_inverts_join(items: list[str], delim: str) -> None:
    text = delim.join(items)
    assert evaluate({"str_split": [delim, text]}) == items
    for index in range(-len(items), len(items)):
        assert evaluate({"str_split": [delim, text, index]}) == items[index]


@QUICK
@given(
    lists=st.lists(
        st.one_of(st.none(), st.lists(scalars, max_size=4)), max_size=4
    )
)
def test_list_concat(lists: list[list[Any] | None]) -> None:
    flat = [item for joined in lists for item in (joined or [])]
    assert evaluate({"list_concat": lists}) == flat
    unique = evaluate({"list_concat_unique": lists})
    assert all(unique.count(item) == 1 for item in unique)
    first = []
    for item in flat:
        if item not in first:
            first.append(item)
    assert unique == first


def _expr(draw: Any, depth: int) -> tuple[Any, bool]:
    if depth <= 0 or draw(st.booleans()):
        value = draw(st.booleans())
        return value, value
    kind = draw(st.sampled_from(["not", "and", "or", "equals"]))
    if kind == "not":
        inner, value = _expr(draw, depth - 1)
        return {"not": inner}, not value
    if kind == "equals":
        a, b = draw(scalars), draw(scalars)
        return {"equals": [a, b]}, bool(a == b)
    parts = [_expr(draw, depth - 1) for _ in range(draw(st.integers(2, 3)))]
    combine = all if kind == "and" else any
    return {kind: [p[0] for p in parts]}, combine(p[1] for p in parts)


@st.composite
def condition_expressions(draw: Any) -> tuple[Any, bool]:
    return _expr(draw, 3)


@QUICK
@given(expr=condition_expressions())
def test_condition_functions(expr: tuple[Any, bool]) -> None:
    definition, expected = expr
    snippet = {"if": ["c", "yes", "no"]}
    result = evaluate(snippet, conditions={"c": definition})
    assert result == ("yes" if expected else "no")
