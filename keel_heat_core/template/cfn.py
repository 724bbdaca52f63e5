"""The CFN template classes: AWS 2010-09-09 and Heat 2012-12-12."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from keel_heat_core import exception
from keel_heat_core.template import cfn_functions as cfn
from keel_heat_core.template import condition_functions as cond
from keel_heat_core.template import function
from keel_heat_core.template.base import FunctionTable, Template
from keel_heat_core.template.rsrc_defn import ResourceDefinition

if TYPE_CHECKING:
    from keel_heat_core.template.stack_definition import StackDefinition

_POLICIES = {"Delete": "Delete", "Retain": "Retain", "Snapshot": "Snapshot"}


class HeatTemplate(Template):
    """``HeatTemplateFormatVersion: 2012-12-12`` (CFN, no conditions)."""

    family = "cfn"
    VERSION_KEY = "HeatTemplateFormatVersion"
    VERSION_DATE = "2012-12-12"
    SECTIONS: ClassVar[tuple[str, ...]] = (
        "AWSTemplateFormatVersion",
        "HeatTemplateFormatVersion",
        "Description",
        "Mappings",
        "Parameters",
        "Resources",
        "Outputs",
    )
    RESOURCES = "Resources"
    OUTPUTS = "Outputs"
    PARAMETERS = "Parameters"
    CONDITIONS = "Conditions"
    DESCRIPTION = "Description"
    PARAMETER_GROUPS = "ParameterGroups"
    OUTPUT_VALUE = "Value"
    OUTPUT_DESCRIPTION = "Description"
    OUTPUT_CONDITION = "Condition"
    OUTPUT_CONDITION_KEY = "Condition"
    functions: ClassVar[FunctionTable] = {
        "Fn::FindInMap": cfn.FindInMap,
        "Fn::GetAZs": cfn.GetAZs,
        "Ref": cfn.Ref,
        "Fn::GetAtt": cfn.GetAtt,
        "Fn::Select": cfn.Select,
        "Fn::Join": cfn.Join,
        "Fn::Split": cfn.Split,
        "Fn::Replace": cfn.Replace,
        "Fn::Base64": cfn.Base64,
        "Fn::MemberListToMap": cfn.MemberListToMap,
        "Fn::ResourceFacade": cfn.ResourceFacade,
    }
    _SECTION_NAMES: ClassVar[dict[str, str]] = {}
    RESOURCE_KEY_NAMES: ClassVar[dict[str, str]] = {
        "type": "Type",
        "properties": "Properties",
        "metadata": "Metadata",
        "depends_on": "DependsOn",
        "deletion_policy": "DeletionPolicy",
        "update_policy": "UpdatePolicy",
        "description": "Description",
        "condition": "Condition",
    }

    def parameter_groups_section(self) -> Any:
        return []

    def _validate_resource_shape(self, name: Any, data: Any) -> None:
        if data is not None and not isinstance(data, Mapping):
            raise exception.StackValidationFailed(
                message=(
                    "Resources must contain Resource. Found a "
                    f"[{type(data)}] instead"
                )
            )
        if not data or not data.get("Type"):
            raise exception.StackValidationFailed(
                message="Each Resource must contain a Type key."
            )

    def resource_definition(
        self, stack: StackDefinition, name: str, data: Any
    ) -> ResourceDefinition:
        rtype = data.get("Type")
        if not isinstance(rtype, str):
            raise TypeError(f"Resource {name} Type type must be string")
        obj = (Mapping, function.Function)
        field = self._field
        depends = field(
            stack,
            name,
            data,
            "DependsOn",
            (str, list),
            "list or string",
            False,
        )
        if isinstance(depends, str):
            depends = [depends]
        for dep in depends or []:
            if not isinstance(dep, str):
                raise TypeError(
                    f"Resource {name} DependsOn must be a list of strings"
                )
        policy = function.resolve(
            field(
                stack,
                name,
                data,
                "DeletionPolicy",
                (str, function.Function),
                "string",
                True,
            )
        )
        if policy is not None and (
            not isinstance(policy, str) or policy not in _POLICIES
        ):
            raise ValueError(f'Invalid deletion policy "{policy}"')
        return ResourceDefinition(
            name,
            rtype,
            properties=field(
                stack, name, data, "Properties", obj, "object", True
            ),
            metadata=field(stack, name, data, "Metadata", obj, "object", True),
            depends=depends,
            deletion_policy=policy,
            update_policy=field(
                stack, name, data, "UpdatePolicy", obj, "object", True
            ),
            description=field(
                stack, name, data, "Description", (str,), "string", False
            ),
            condition=self._condition(stack, name, data),
        )

    def _condition(self, stack: StackDefinition, name: str, data: Any) -> Any:
        return None


class CfnTemplate(HeatTemplate):
    """``AWSTemplateFormatVersion: 2010-09-09`` (CFN with Conditions)."""

    VERSION_KEY = "AWSTemplateFormatVersion"
    VERSION_DATE = "2010-09-09"
    SECTIONS = (*HeatTemplate.SECTIONS, "Conditions")
    HAS_CONDITIONS = True
    functions: ClassVar[FunctionTable] = {
        **HeatTemplate.functions,
        "Fn::If": cond.If,
    }
    condition_functions: ClassVar[FunctionTable] = {
        **dict.fromkeys(functions, function.Invalid),
        "Fn::Equals": cond.Equals,
        "Fn::Not": cond.CfnNot,
        "Fn::And": cond.And,
        "Fn::Or": cond.Or,
        "Fn::FindInMap": cfn.FindInMap,
        "Ref": cfn.ParamRef,
    }

    def _condition(self, stack: StackDefinition, name: str, data: Any) -> Any:
        if "Condition" not in data:
            return None
        condition = self.parse_condition(
            stack, data["Condition"], f"{self.RESOURCES}.{name}.Condition"
        )
        if not isinstance(condition, (str, bool, function.Function)):
            raise TypeError(
                f"Resource {name} Condition type must be string or boolean"
            )
        return condition


CFN_CLASSES = (CfnTemplate, HeatTemplate)
