"""The HOT template classes, 2013-05-23 to 2021-04-16 (wallaby)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from keel_heat_core import exception
from keel_heat_core.template import cfn_functions as cfn
from keel_heat_core.template import collection_functions as coll
from keel_heat_core.template import condition_functions as cond
from keel_heat_core.template import function
from keel_heat_core.template import hot_functions as hot
from keel_heat_core.template import string_functions as strings
from keel_heat_core.template.base import FunctionTable, Template
from keel_heat_core.template.make_url import MakeURL
from keel_heat_core.template.rsrc_defn import ResourceDefinition
from keel_heat_core.template.yaql_function import Yaql

if TYPE_CHECKING:
    from keel_heat_core.template.stack_definition import StackDefinition

_BASE_KEYS = (
    "type",
    "properties",
    "metadata",
    "depends_on",
    "deletion_policy",
    "update_policy",
    "description",
)
_NEW_KEYS = ("condition", "external_id")
_DELETION_POLICIES = {
    "Delete": "Delete",
    "Retain": "Retain",
    "Snapshot": "Snapshot",
}
_LOWER_POLICIES = {
    key.lower(): value for key, value in _DELETION_POLICIES.items()
}

R = function.Removed
_REMOVED_2014 = dict.fromkeys(
    (
        "Fn::GetAZs",
        "Fn::Join",
        "Fn::Split",
        "Fn::Replace",
        "Fn::Base64",
        "Fn::MemberListToMap",
        "Fn::ResourceFacade",
        "Ref",
    ),
    R,
)


def _condition_table(
    functions: FunctionTable, extra: FunctionTable
) -> FunctionTable:
    """Every function is Invalid in conditions, except removed ones and
    the condition functions."""
    table: FunctionTable = {
        name: (R if fn is R else function.Invalid)
        for name, fn in functions.items()
    }
    table.update(extra)
    return table


class HOTemplate20130523(Template):
    """``heat_template_version: 2013-05-23`` (Icehouse)."""

    family = "hot"
    VERSION_KEY = "heat_template_version"
    VERSION_DATE = "2013-05-23"
    SECTIONS: ClassVar[tuple[str, ...]] = (
        "heat_template_version",
        "description",
        "parameter_groups",
        "parameters",
        "resources",
        "outputs",
        "__undefined__",
    )
    RESOURCE_KEYS: ClassVar[tuple[str, ...]] = _BASE_KEYS
    DELETION_POLICIES: ClassVar[dict[str, str]] = _DELETION_POLICIES
    _SECTION_NAMES: ClassVar[dict[str, str]] = {
        "Properties": "properties",
        "Metadata": "metadata",
        "Value": "value",
        "Resources": "resources",
        "Outputs": "outputs",
        "Parameters": "parameters",
        "Conditions": "conditions",
        "Condition": "condition",
        "Description": "description",
        "DeletionPolicy": "deletion_policy",
        "UpdatePolicy": "update_policy",
        "DependsOn": "depends_on",
        "Type": "type",
    }

    functions: ClassVar[FunctionTable] = {
        "Fn::GetAZs": cfn.GetAZs,
        "get_param": hot.GetParam,
        "get_resource": hot.GetResource,
        "Ref": cfn.Ref,
        "get_attr": hot.GetAttThenSelect,
        "Fn::Select": cfn.Select,
        "Fn::Join": cfn.Join,
        "list_join": strings.Join,
        "Fn::Split": cfn.Split,
        "str_replace": strings.Replace,
        "Fn::Replace": cfn.Replace,
        "Fn::Base64": cfn.Base64,
        "Fn::MemberListToMap": cfn.MemberListToMap,
        "resource_facade": hot.ResourceFacade,
        "Fn::ResourceFacade": cfn.ResourceFacade,
        "get_file": hot.GetFile,
    }

    def _validate_resource_shape(self, name: Any, data: Any) -> None:
        if data is not None and not isinstance(data, Mapping):
            raise exception.StackValidationFailed(
                message=(
                    '"resources" must contain a map of resource maps. '
                    f"Found a [{type(data)}] instead"
                )
            )
        if not data or "type" not in data:
            raise exception.StackValidationFailed(
                message="Each resource must contain a type key."
            )
        for key in data:
            if key not in _BASE_KEYS + _NEW_KEYS:
                raise exception.StackValidationFailed(
                    message=(
                        f'"{key}" is not a valid keyword inside a resource '
                        "definition"
                    )
                )
        if not data.get("type"):
            raise exception.StackValidationFailed(
                message="Each Resource must contain a Type key."
            )

    def resource_definition(
        self, stack: StackDefinition, name: str, data: Any
    ) -> ResourceDefinition:
        invalid = [key for key in data if key not in self.RESOURCE_KEYS]
        if invalid:
            raise ValueError(
                "Invalid keyword(s) inside a resource definition: "
                + ", ".join(str(key) for key in invalid)
            )
        rtype = data.get("type")
        if not isinstance(rtype, str):
            raise TypeError(f"Resource {name} type type must be string")
        obj = (Mapping, function.Function)
        field = self._field
        return ResourceDefinition(
            name,
            rtype,
            properties=field(
                stack, name, data, "properties", obj, "object", True
            ),
            metadata=field(stack, name, data, "metadata", obj, "object", True),
            depends=self._depends(stack, name, data),
            deletion_policy=self._deletion_policy(stack, name, data),
            update_policy=field(
                stack, name, data, "update_policy", obj, "object", True
            ),
            description=field(
                stack, name, data, "description", (str,), "string", False
            ),
            **self._new_fields(stack, name, data),
        )

    def _new_fields(
        self, stack: StackDefinition, name: str, data: Any
    ) -> dict[str, Any]:
        return {}

    def _depends(
        self, stack: StackDefinition, name: str, data: Any
    ) -> list[str] | None:
        key = "depends_on" if self.family == "hot" else "DependsOn"
        depends = self._field(
            stack, name, data, key, (str, list), "list or string", False
        )
        if isinstance(depends, str):
            return [depends]
        for dep in depends or []:
            if not isinstance(dep, str):
                raise TypeError(
                    f"Resource {name} {key} must be a list of strings"
                )
        return list(depends) if depends is not None else None

    def _deletion_policy(
        self, stack: StackDefinition, name: str, data: Any
    ) -> str | None:
        key = "deletion_policy" if self.family == "hot" else "DeletionPolicy"
        value = self._field(
            stack, name, data, key, (str, function.Function), "string", True
        )
        policy = function.resolve(value)
        if policy is None:
            return None
        if not isinstance(policy, str) or policy not in self.DELETION_POLICIES:
            raise ValueError(f'Invalid deletion policy "{policy}"')
        return self.DELETION_POLICIES[policy]


class HOTemplate20141016(HOTemplate20130523):
    """``heat_template_version: 2014-10-16`` (Juno)."""

    VERSION_DATE = "2014-10-16"
    functions: ClassVar[FunctionTable] = {
        "get_param": hot.GetParam,
        "get_resource": hot.GetResource,
        "get_attr": hot.GetAtt,
        "get_file": hot.GetFile,
        "list_join": strings.Join,
        "str_replace": strings.Replace,
        "resource_facade": hot.ResourceFacade,
        "Fn::Select": cfn.Select,
        **_REMOVED_2014,
    }


class HOTemplate20150430(HOTemplate20141016):
    """``heat_template_version: 2015-04-30`` (Kilo)."""

    VERSION_DATE = "2015-04-30"
    functions: ClassVar[FunctionTable] = {
        **HOTemplate20141016.functions,
        "digest": strings.Digest,
        "repeat": coll.Repeat,
    }


class HOTemplate20151015(HOTemplate20150430):
    """``heat_template_version: 2015-10-15`` (Liberty)."""

    VERSION_DATE = "2015-10-15"
    functions: ClassVar[FunctionTable] = {
        **HOTemplate20150430.functions,
        "get_attr": hot.GetAttAllAttributes,
        "list_join": strings.JoinMultiple,
        "str_replace": strings.ReplaceJson,
        "str_split": strings.StrSplit,
        "Fn::Select": R,
    }


class HOTemplate20160408(HOTemplate20151015):
    """``heat_template_version: 2016-04-08`` (Mitaka)."""

    VERSION_DATE = "2016-04-08"
    functions: ClassVar[FunctionTable] = {
        **HOTemplate20151015.functions,
        "map_merge": coll.MapMerge,
    }


_CONDITIONS_2016 = {
    "get_param": hot.GetParam,
    "equals": cond.Equals,
    "not": cond.Not,
    "and": cond.And,
    "or": cond.Or,
}


class HOTemplate20161014(HOTemplate20160408):
    """``heat_template_version: 2016-10-14`` (newton): conditions."""

    VERSION_DATE = "2016-10-14"
    ALIASES = ("newton",)
    SECTIONS = (*HOTemplate20160408.SECTIONS, "conditions")
    HAS_CONDITIONS = True
    RESOURCE_KEYS = _BASE_KEYS + _NEW_KEYS
    DELETION_POLICIES = {**_DELETION_POLICIES, **_LOWER_POLICIES}
    functions: ClassVar[FunctionTable] = {
        **HOTemplate20160408.functions,
        "map_replace": coll.MapReplace,
        "repeat": coll.RepeatWithMap,
        "yaql": Yaql,
        "if": cond.If,
    }
    condition_functions = _condition_table(functions, _CONDITIONS_2016)

    def _new_fields(
        self, stack: StackDefinition, name: str, data: Any
    ) -> dict[str, Any]:
        external_id = self._field(
            stack,
            name,
            data,
            "external_id",
            (str, function.Function),
            "string",
            True,
        )
        condition = None
        if "condition" in data:
            condition = self.parse_condition(
                stack, data["condition"], f"{self.RESOURCES}.{name}.condition"
            )
            if not isinstance(condition, (str, bool, function.Function)):
                raise TypeError(
                    f"Resource {name} condition type must be string_or_boolean"
                )
        return {"external_id": external_id, "condition": condition}


class HOTemplate20170224(HOTemplate20161014):
    """``heat_template_version: 2017-02-24`` (ocata)."""

    VERSION_DATE = "2017-02-24"
    ALIASES = ("ocata",)
    functions: ClassVar[FunctionTable] = {
        **HOTemplate20161014.functions,
        "filter": coll.Filter,
        "str_replace_strict": strings.ReplaceJsonStrict,
    }
    condition_functions = _condition_table(functions, _CONDITIONS_2016)


_CONDITIONS_2017 = {
    **_CONDITIONS_2016,
    "yaql": Yaql,
    "contains": coll.Contains,
}


class HOTemplate20170901(HOTemplate20170224):
    """``heat_template_version: 2017-09-01`` (pike)."""

    VERSION_DATE = "2017-09-01"
    ALIASES = ("pike",)
    functions: ClassVar[FunctionTable] = {
        **HOTemplate20170224.functions,
        "make_url": MakeURL,
        "list_concat": coll.ListConcat,
        "list_concat_unique": coll.ListConcatUnique,
        "contains": coll.Contains,
        "str_replace_vstrict": strings.ReplaceJsonVeryStrict,
        "repeat": coll.RepeatWithNestedLoop,
    }
    condition_functions = _condition_table(functions, _CONDITIONS_2017)


class HOTemplate20180302(HOTemplate20170901):
    """``heat_template_version: 2018-03-02`` (queens): parameter tags."""

    VERSION_DATE = "2018-03-02"
    ALIASES = ("queens",)


class HOTemplate20180831(HOTemplate20180302):
    """``heat_template_version: 2018-08-31`` (rocky)."""

    VERSION_DATE = "2018-08-31"
    ALIASES = ("rocky",)


class HOTemplate20210416(HOTemplate20180831):
    """``heat_template_version: 2021-04-16`` (wallaby): ``if`` may have two
    arguments and then removes the entry it is in."""

    VERSION_DATE = "2021-04-16"
    ALIASES = ("wallaby",)
    functions: ClassVar[FunctionTable] = {
        **HOTemplate20180831.functions,
        "if": cond.IfNullable,
    }
    condition_functions = _condition_table(functions, _CONDITIONS_2017)


HOT_CLASSES = (
    HOTemplate20130523,
    HOTemplate20141016,
    HOTemplate20150430,
    HOTemplate20151015,
    HOTemplate20160408,
    HOTemplate20161014,
    HOTemplate20170224,
    HOTemplate20170901,
    HOTemplate20180302,
    HOTemplate20180831,
    HOTemplate20210416,
)
