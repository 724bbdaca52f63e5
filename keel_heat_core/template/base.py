"""The template classes' common base: sections, parsing, definitions.

A :class:`Template` wraps a parsed document.  Its class (one per template
version, see :mod:`.hot` and :mod:`.cfn`) fixes the allowed sections, the
function tables and how resources and outputs are read.  Functions are
turned into objects by :meth:`Template.parse`; a function map is a map with
exactly one key naming a function of the class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from keel_heat_core import exception
from keel_heat_core.template import function
from keel_heat_core.template.conditions import Conditions
from keel_heat_core.template.rsrc_defn import (
    OutputDefinition,
    ResourceDefinition,
)

if TYPE_CHECKING:
    from keel_heat_core.template.stack_definition import StackDefinition

FunctionTable = dict[str, Any]


#: the longest resource name the database stores (``resource.name``)
MAX_RESOURCE_NAME = 255


class Template(Mapping[str, Any]):
    """A parsed template of one version.

    :param t: the parsed document.
    :param files: the files map (``get_file``, template resources).
    :param env: the environment (owned by :mod:`.environment`), or None.
    """

    #: ``hot`` or ``cfn``.
    family: ClassVar[str] = "hot"
    VERSION_KEY: ClassVar[str] = ""
    VERSION_DATE: ClassVar[str] = ""
    ALIASES: ClassVar[tuple[str, ...]] = ()
    SECTIONS: ClassVar[tuple[str, ...]] = ()
    #: Section names of this family, by role.
    RESOURCES: ClassVar[str] = "resources"
    OUTPUTS: ClassVar[str] = "outputs"
    PARAMETERS: ClassVar[str] = "parameters"
    CONDITIONS: ClassVar[str] = "conditions"
    DESCRIPTION: ClassVar[str] = "description"
    PARAMETER_GROUPS: ClassVar[str] = "parameter_groups"
    MAPPINGS: ClassVar[str] = "Mappings"
    OUTPUT_VALUE: ClassVar[str] = "value"
    OUTPUT_DESCRIPTION: ClassVar[str] = "description"
    OUTPUT_CONDITION: ClassVar[str] = "condition"
    HAS_CONDITIONS: ClassVar[bool] = False
    functions: ClassVar[FunctionTable] = {}
    condition_functions: ClassVar[FunctionTable] = {}

    def __init__(
        self,
        t: Mapping[str, Any],
        files: Mapping[str, Any] | None = None,
        env: Any = None,
    ) -> None:
        self.t = dict(t)
        self.files: dict[str, Any] = dict(files or {})
        self.env = env

    # -- the document ------------------------------------------------------
    def __getitem__(self, section: str) -> Any:
        return self.t[section]

    def __iter__(self) -> Any:
        return iter(self.t)

    def __len__(self) -> int:
        return len(self.t)

    @property
    def version(self) -> tuple[str, str]:
        """``(version key, version value)`` as written in the template."""
        return self.VERSION_KEY, str(self.t.get(self.VERSION_KEY))

    @classmethod
    def section_name(cls, section: str) -> str:
        """This family's spelling of a CFN-style section name."""
        return cls._SECTION_NAMES.get(section, section)

    _SECTION_NAMES: ClassVar[dict[str, str]] = {}

    def get_section_name(self, section: str) -> str:
        return self.section_name(section)

    def section(self, name: str, default: Any = None) -> Any:
        """A top-level section; a null section counts as ``default``."""
        value = self.t.get(name)
        return default if value is None else value

    def parameters_section(self) -> Any:
        return self.section(self.PARAMETERS, {})

    def parameter_groups_section(self) -> Any:
        return self.section(self.PARAMETER_GROUPS, [])

    def description(self) -> str:
        value = self.t.get(self.DESCRIPTION)
        return "No description" if value is None else str(value)

    def mappings(self) -> Any:
        return self.section(self.MAPPINGS, {})

    # -- structure ---------------------------------------------------------
    def resources_section(self) -> Mapping[str, Any]:
        resources = self.section(self.RESOURCES, {})
        if not isinstance(resources, Mapping):
            # Heat fails with a raw AttributeError here.
            raise exception.StackValidationFailed(
                message=(
                    f'"{self.RESOURCES}" must contain a map of resource '
                    f"maps. Found a {type(resources).__name__} instead"
                )
            )
        return resources

    #: HOT resource keys -> this family's spelling (CFN overrides it).
    RESOURCE_KEY_NAMES: ClassVar[dict[str, str]] = {}

    def add_resource(self, defn: ResourceDefinition) -> None:
        """Put a resource definition into the document (stack updates
        build the new "existing" template this way)."""
        snippet = {
            self.RESOURCE_KEY_NAMES.get(key, key): value
            for key, value in defn.render_hot().items()
        }
        resources = dict(self.section(self.RESOURCES, {}))
        resources[defn.name] = snippet
        self.t[self.RESOURCES] = resources

    def remove_resource(self, name: str) -> None:
        """Take a resource out of the document."""
        resources = dict(self.section(self.RESOURCES, {}))
        resources.pop(name, None)
        self.t[self.RESOURCES] = resources

    def has_resource_named(self, name: Any) -> bool:
        """Whether the template declares a resource ``name`` (enabled or
        not)."""
        try:
            return name in self.resources_section()
        except (TypeError, exception.StackValidationFailed):
            return False

    def validate(self) -> None:
        """Check the top-level sections and the shape of each resource.

        :raises InvalidTemplateSection: for an unknown top-level key.
        :raises StackValidationFailed: for a malformed resource.
        """
        for key in self.t:
            if key not in self.SECTIONS:
                raise exception.InvalidTemplateSection(section=key)
        for name, data in self.resources_section().items():
            if len(str(name)) > MAX_RESOURCE_NAME:
                # the column that stores it holds no more (Heat's schema):
                # refused here rather than by the database at create
                raise exception.StackValidationFailed(
                    message=(
                        f"Resource name {str(name)[:40]}... is longer than "
                        f"{MAX_RESOURCE_NAME} characters"
                    )
                )
            self._validate_resource_shape(name, data)

    def _validate_resource_shape(self, name: Any, data: Any) -> None:
        raise NotImplementedError

    # -- parsing -----------------------------------------------------------
    def parse(
        self, stack: StackDefinition | None, snippet: Any, path: str = ""
    ) -> Any:
        return function.parse_snippet(
            self.functions, stack, snippet, path, self
        )

    def parse_condition(
        self, stack: StackDefinition | None, snippet: Any, path: str = ""
    ) -> Any:
        return function.parse_snippet(
            self.condition_functions, stack, snippet, path, self
        )

    def conditions(self, stack: StackDefinition | None) -> Conditions:
        """Parse the conditions section.

        :raises StackValidationFailed: when the section is not a map or a
            definition uses a function that is not allowed.
        """
        raw = self.section(self.CONDITIONS, {}) if self.HAS_CONDITIONS else {}
        if not isinstance(raw, Mapping):
            raise exception.StackValidationFailed(
                error="Conditions validation error",
                message=(
                    "Condition definitions must be a map. Found a "
                    f"{type(raw).__name__} instead"
                ),
            )
        parsed = {}
        for name, definition in raw.items():
            if not isinstance(name, str):
                # Heat crashes with a raw TypeError (YAML turns an unquoted
                # on/off/yes/no key into a boolean).
                raise exception.StackValidationFailed(
                    error="Conditions validation error",
                    message=(
                        f"Condition names must be strings, found {name!r} "
                        "(quote YAML words such as on, off, yes and no)"
                    ),
                )
            parsed[name] = self.parse_condition(
                stack, definition, f"{self.CONDITIONS}.{name}"
            )
        return Conditions(parsed)

    def resource_definitions(
        self, stack: StackDefinition, conditions: Conditions
    ) -> dict[str, ResourceDefinition]:
        """Definitions of the resources whose condition holds.

        :raises StackValidationFailed: for a field of the wrong type, a
            keyword of a later version or an unknown condition.
        """
        out: dict[str, ResourceDefinition] = {}
        for name, data in self.resources_section().items():
            defn = self.enabled_resource_definition(
                stack, conditions, name, data
            )
            if defn is not None:
                out[name] = defn
        return out

    def enabled_resource_definition(
        self,
        stack: StackDefinition,
        conditions: Conditions,
        name: str,
        data: Any,
    ) -> ResourceDefinition | None:
        """One resource's definition, or None when its condition is false.

        :raises StackValidationFailed: as :meth:`resource_definitions`.
        """
        try:
            defn = self.resource_definition(stack, name, data)
        except (TypeError, ValueError, KeyError) as err:
            raise exception.StackValidationFailed(message=str(err)) from err
        defn.stack = stack
        cond = defn.condition()
        if cond is not None:
            try:
                enabled = conditions.is_enabled(function.resolve(cond))
            except ValueError as err:
                raise exception.StackValidationFailed(
                    path=[self.RESOURCES, name, self.OUTPUT_CONDITION_KEY],
                    message=str(err),
                ) from err
            if not enabled:
                return None
        return defn

    OUTPUT_CONDITION_KEY: ClassVar[str] = "condition"

    def resource_definition(
        self, stack: StackDefinition, name: str, data: Any
    ) -> ResourceDefinition:
        raise NotImplementedError

    def _field(
        self,
        stack: StackDefinition,
        name: str,
        data: Mapping[str, Any],
        key: str,
        types: tuple[type, ...],
        typename: str,
        parse: bool,
    ) -> Any:
        if key not in data:
            return None
        value = data[key]
        if parse:
            value = self.parse(stack, value, f"{self.RESOURCES}.{name}.{key}")
        if value is None:
            return None
        if not isinstance(value, types):
            raise TypeError(f"Resource {name} {key} type must be {typename}")
        return value

    def outputs(
        self, stack: StackDefinition, conditions: Conditions
    ) -> dict[str, OutputDefinition]:
        """Definitions of the outputs (value None when the condition is
        false).

        :raises StackValidationFailed: for an output that is not a map or
            has no value.
        """
        raw = self.section(self.OUTPUTS, {})
        if not isinstance(raw, Mapping):
            # Heat fails with a raw AttributeError for a list.
            raise exception.StackValidationFailed(
                error="Output validation error",
                path=[self.OUTPUTS],
                message=(
                    "Outputs must be a map of output definitions. Found a "
                    f"{type(raw).__name__} instead"
                ),
            )
        out = {}
        for key, val in raw.items():
            out[key] = self._output(stack, conditions, key, val)
        return out

    def _output(
        self,
        stack: StackDefinition,
        conditions: Conditions,
        key: Any,
        val: Any,
    ) -> OutputDefinition:
        where = [self.OUTPUTS, str(key)]
        if not isinstance(val, Mapping):
            raise exception.StackValidationFailed(
                error="Output validation error",
                path=where,
                message=(
                    "Output definitions must be a map. Found a "
                    f"{type(val).__name__} instead"
                ),
            )
        if self.OUTPUT_VALUE not in val:
            raise exception.StackValidationFailed(
                error="Output validation error",
                path=where,
                message=(
                    "Each output definition must contain a "
                    f"{self.OUTPUT_VALUE} key."
                ),
            )
        value = val[self.OUTPUT_VALUE]
        if self.HAS_CONDITIONS and self.OUTPUT_CONDITION in val:
            path = f"{self.OUTPUTS}.{key}.{self.OUTPUT_CONDITION}"
            cond = self.parse_condition(
                stack, val[self.OUTPUT_CONDITION], path
            )
            try:
                enabled = conditions.is_enabled(function.resolve(cond))
            except ValueError as err:
                raise exception.StackValidationFailed(
                    path=[*where, self.OUTPUT_CONDITION], message=str(err)
                ) from err
            if not enabled:
                value = None
        parsed = self.parse(
            stack, value, f"{self.OUTPUTS}.{key}.{self.OUTPUT_VALUE}"
        )
        return OutputDefinition(
            str(key), parsed, val.get(self.OUTPUT_DESCRIPTION)
        )

    @classmethod
    def function_table(cls, with_condition: bool = False) -> dict[str, Any]:
        """The usable functions (removed ones left out), optionally with
        the condition functions taking precedence."""
        table = {
            name: fn
            for name, fn in cls.functions.items()
            if fn is not function.Removed
        }
        if with_condition:
            for name, fn in cls.condition_functions.items():
                if fn not in (function.Invalid, function.Removed):
                    table[name] = fn
        return table

    @classmethod
    def function_descriptions(
        cls, with_condition: bool = False
    ) -> list[dict[str, str]]:
        """The body of ``GET /template_versions/{v}/functions``."""
        table = cls.function_table(with_condition)
        return [
            {"functions": name, "description": table[name].description}
            for name in sorted(table)
        ]


TemplateFactory = Callable[..., Template]
