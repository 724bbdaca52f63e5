"""Vectors where keel-heat deliberately differs from Heat 27.

Each entry says why and how the outcome is checked instead (see
``docs/compat.md``).  They are left out of the pass rate but must hold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests.conformance.outcome import Outcome


@dataclass(frozen=True)
class Deliberate:
    reason: str
    check: Callable[[Outcome], bool]


def validation_error(fragment: str) -> Callable[[Outcome], bool]:
    """A Heat-shaped validation error whose message holds ``fragment``."""

    def check(got: Outcome) -> bool:
        return (
            not got.valid
            and got.error_type == "StackValidationFailed"
            and fragment in (got.error_message or "")
        )

    return check


def output_error(key: str, fragment: str) -> Callable[[Outcome], bool]:
    """The stack is created and output ``key`` has an error with
    ``fragment``."""

    def check(got: Outcome) -> bool:
        return got.valid and fragment in got.output_errors.get(key, "")

    return check


_REPEAT = "may only hold strings"
_FACADE = "can only be used in a template that defines a template"

DELIBERATE: dict[str, Deliberate] = {
    "fn/get_resource/non_string": Deliberate(
        "Heat answers 500 TypeError (unhashable list); a reference error",
        validation_error("The specified reference \"['vs']\""),
    ),
    "fn/digest/unicode": Deliberate(
        "Heat leaks the latin-1 codec error; say what is wrong",
        output_error("o", "must be Latin-1 text"),
    ),
    "fn/repeat/non_string_items": Deliberate(
        "Heat leaks replace() argument 2 must be str",
        output_error("o", _REPEAT),
    ),
    "cfn/aws/Fn::FindInMap_missing": Deliberate(
        "Heat leaks a bare KeyError ('other')",
        output_error("o", "found no key 'other' in Mappings.Region"),
    ),
    "cfn/heatcfn/Fn::FindInMap_missing": Deliberate(
        "Heat leaks a bare KeyError ('other')",
        output_error("o", "found no key 'other' in Mappings.Region"),
    ),
    "fn/resource_facade/deletion_policy_top_level": Deliberate(
        "Heat leaks 'NoneType' object has no attribute 't'",
        output_error("o", _FACADE),
    ),
    "runtime/get_attr_dynamic_attribute": Deliberate(
        "Heat answers 500 TypeError; a function as attribute name is "
        "checked once it has a value",
        lambda got: got.valid or got.error_type == "StackValidationFailed",
    ),
    "runtime/get_attr_dynamic_bad_attribute": Deliberate(
        "Heat answers 500 TypeError; a function as attribute name is "
        "checked once it has a value",
        lambda got: got.valid or got.error_type == "StackValidationFailed",
    ),
    "fn/map_replace/args_not_list": Deliberate(
        "Heat leaks a bare KeyError ('0') for a map argument",
        output_error("o", 'Incorrect arguments to "map_replace"'),
    ),
    "cfn/aws/Fn::MemberListToMap_bad": Deliberate(
        "Heat leaks a dict() error for a string member list",
        output_error("o", "Member list must be a list"),
    ),
    "cfn/heatcfn/Fn::MemberListToMap_bad": Deliberate(
        "Heat leaks a dict() error for a string member list",
        output_error("o", "Member list must be a list"),
    ),
    "fn/hot20130523/Fn::ResourceFacade": Deliberate(
        "Heat leaks 'NoneType' object has no attribute 'metadata_get'",
        output_error("o", _FACADE),
    ),
    "cfn/aws/Fn::ResourceFacade": Deliberate(
        "Heat leaks 'NoneType' object has no attribute 'metadata_get'",
        output_error("o", _FACADE),
    ),
    "cfn/heatcfn/Fn::ResourceFacade": Deliberate(
        "Heat leaks 'NoneType' object has no attribute 'metadata_get'",
        output_error("o", _FACADE),
    ),
    "param/parameters_not_map": Deliberate(
        "Heat answers 400 AttributeError without a message",
        validation_error("must be a map"),
    ),
}

for _version in (
    "20130523",
    "20141016",
    "20151015",
    "20160408",
    "20161014",
    "20170224",
    "20170901",
    "20180302",
    "20180831",
    "20210416",
):
    DELIBERATE[f"matrix/hot{_version}/resource_facade.top_level"] = Deliberate(
        "Heat leaks 'NoneType' object has no attribute 'metadata_get'",
        output_error("o", _FACADE),
    )
for _version in (
    "20150430",
    "20160408",
    "20161014",
    "20170901",
    "20180302",
    "20180831",
    "20210416",
):
    DELIBERATE[f"matrix/hot{_version}/repeat.map_template"] = Deliberate(
        "Heat leaks replace() argument 2 must be str, not int",
        output_error("o", _REPEAT),
    )
