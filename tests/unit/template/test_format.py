"""Template text parsing with Heat's loader behaviour."""

from __future__ import annotations

import pytest

from keel_heat_core import exception
from keel_heat_core.template import format as template_format


def test_yaml_11_scalars() -> None:
    doc = template_format.parse(
        "heat_template_version: 2016-10-14\n"
        "a: yes\nb: Off\nc: 017\nd: 0o17\ne: 1_000\nf: .5\ng: ~\n"
        "h: 2001-12-14t21:59:43.10-05:00\n"
    )
    assert doc == {
        "heat_template_version": "2016-10-14",
        "a": True,
        "b": False,
        "c": 15,
        "d": "0o17",
        "e": 1000,
        "f": 0.5,
        "g": None,
        "h": "2001-12-14t21:59:43.10-05:00",
    }


def test_merge_keys_anchors_and_duplicates() -> None:
    doc = template_format.parse(
        "heat_template_version: 2016-10-14\n"
        "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\nk: first\nk: second\n"
    )
    assert doc["derived"] == {"x": 1, "y": 2}
    assert doc["k"] == "second"


def test_json_first_duplicate_keys_last_wins() -> None:
    doc = template_format.parse(
        '{"heat_template_version": "2016-10-14", "a": 1, "a": 2}'
    )
    assert doc["a"] == 2


def test_python_tags_refused_with_position() -> None:
    with pytest.raises(ValueError) as err:
        template_format.parse(
            "heat_template_version: 2018-08-31\nv: !!python/tuple [1, 2]\n"
        )
    text = str(err.value)
    assert text.startswith("Error parsing template [root stack] could not")
    assert "line 2, column 4" in text


def test_bad_yaml_message_names_url() -> None:
    with pytest.raises(ValueError) as err:
        template_format.parse("a: [\n", url="http://x/t.yaml")
    assert str(err.value).startswith(
        "Error parsing template http://x/t.yaml while parsing a flow node"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "The template is not a JSON object or YAML mapping."),
        ('"abc"', "The template is not a JSON object or YAML mapping."),
        ("", "Template format version not found."),
        ("a: 1\n", "Template format version not found."),
    ],
)
def test_not_a_template(text: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        template_format.parse(text)
    assert str(err.value) == message


def test_size_limit() -> None:
    text = "heat_template_version: 2016-10-14\n" + "#" * 100
    with pytest.raises(exception.RequestLimitExceeded) as err:
        template_format.parse(text, max_size=50)
    assert str(err.value) == (
        f"Request limit exceeded: Template size ({len(text)} bytes) "
        "exceeds maximum allowed size (50 bytes)."
    )


def test_empty_document_is_empty_map() -> None:
    assert template_format.simple_parse("") == {}
