"""XML and JSON bodies as Heat's serializers write them."""

from __future__ import annotations

import json
from typing import Any

from keel_heat_api.cfn import aws_errors, serializers


def test_xml_root_is_first_key_and_values_are_python_text() -> None:
    data: dict[str, Any] = {
        "R": {
            "none": None,
            "yes": True,
            "no": False,
            "n": 3,
            "empty_list": [],
            "empty_dict": {},
            "empty_str": "",
            "items": ["a", {"k": "v"}],
        }
    }
    assert serializers.to_xml(data) == (
        "<R><none>None</none><yes>True</yes><no>False</no><n>3</n>"
        "<empty_list/><empty_dict/><empty_str></empty_str>"
        "<items><member>a</member><member><k>v</k></member></items></R>"
    )


def test_xml_keeps_only_the_first_top_key() -> None:
    data = {"resource": "WaitHandle", "metadata": {"1": "x"}}
    assert serializers.to_xml(data) == "<resource>WaitHandle</resource>"


def test_xml_escapes_text() -> None:
    assert serializers.to_xml({"a": "<b>&'\""}) == "<a>&lt;b&gt;&amp;'\"</a>"


def test_template_body_and_metadata_are_json_text() -> None:
    data = {
        "X": {
            "TemplateBody": {"a": [1, "<"]},
            "Metadata": {},
            "Other": {"a": 1},
        }
    }
    assert serializers.to_xml(data) == (
        '<X><TemplateBody>{"a": [1, "&lt;"]}</TemplateBody><Metadata/>'
        "<Other><a>1</a></Other></X>"
    )


def test_xml_refuses_names_that_are_not_xml() -> None:
    try:
        serializers.to_xml({"a": {"b c": 1}})
    except ValueError:
        return
    raise AssertionError("an invalid element name was written")


def test_json_writes_non_json_values_as_text() -> None:
    assert json.loads(serializers.to_json({"a": {1}})) == {"a": "{1}"}
    assert serializers.to_json({"a": None}) == '{"a": null}'


def test_response_content_types() -> None:
    xml = serializers.response({"A": "b"}, as_json=False)
    assert xml.headers["Content-Type"] == "application/xml; charset=UTF-8"
    assert xml.text == "<A>b</A>"
    js = serializers.response({"A": "b"}, as_json=True)
    assert js.headers["Content-Type"] == "application/json"
    assert js.json == {"A": "b"}


def test_error_response_reason_phrase_is_the_aws_code() -> None:
    err = aws_errors.AccessDenied("Action X not allowed for user")
    resp = serializers.error_response(err, as_json=False)
    assert resp.status == "403 AccessDenied"
    assert resp.text == (
        "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
        "<Message>User is not authorized to perform action:Action X not "
        "allowed for user</Message></Error></ErrorResponse>"
    )
    resp = serializers.error_response(err, as_json=True)
    assert resp.status == "403 AccessDenied"
    assert resp.json["ErrorResponse"]["Error"]["Code"] == "AccessDenied"


def test_format_result() -> None:
    assert serializers.format_result("GetTemplate", {"a": 1}) == {
        "GetTemplateResponse": {"GetTemplateResult": {"a": 1}}
    }
