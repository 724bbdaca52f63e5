"""Validation of a HOT template's ``parameter_groups`` section."""

from __future__ import annotations

from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import parameters as params_mod

PARAMETER_GROUPS = "parameter_groups"
PARAMETERS = "parameters"
_ERROR = "Parameter Groups error"


class ParameterGroups:
    """The parameter groups of a template.

    :param tmpl: the template (``family``, ``version``,
        ``parameters_section()``, ``parameter_groups_section()``).
    """

    def __init__(self, tmpl: Any) -> None:
        self.tmpl = tmpl
        params = params_mod.make_parameters(tmpl, {}, {})
        # Pseudo parameters of a stack without identity count as valid
        # (OS::stack_id, OS::project_id; not OS::stack_name).
        self.parameter_names = list(params)
        self.parameter_groups = tmpl.parameter_groups_section()

    def _fail(
        self, label: Any, message: str
    ) -> exception.StackValidationFailed:
        return exception.StackValidationFailed(
            error=_ERROR, path=[PARAMETER_GROUPS, label], message=message
        )

    def validate(self) -> None:
        """Each grouped name must be a parameter, in one group only.

        :raises StackValidationFailed: ``Parameter Groups error:
            parameter_groups.<label>: ...``.
        """
        groups = self.parameter_groups
        if not groups:
            return
        if not isinstance(groups, list):
            raise exception.StackValidationFailed(
                error=_ERROR,
                path=[PARAMETER_GROUPS],
                message=f"The {PARAMETER_GROUPS} should be a list.",
            )
        grouped: list[Any] = []
        for group in groups:
            if not isinstance(group, dict):
                # Heat fails with AttributeError here.
                raise exception.StackValidationFailed(
                    error=_ERROR,
                    path=[PARAMETER_GROUPS],
                    message="Each parameter group should be a map.",
                )
            label = group.get("label", "")
            names = group.get(PARAMETERS)
            if names is None:
                raise self._fail(
                    label,
                    f"The {PARAMETERS} must be provided for each parameter "
                    "group.",
                )
            if not isinstance(names, list):
                raise self._fail(
                    label,
                    f"The {PARAMETERS} of parameter group should be a list.",
                )
            for name in names:
                if name in grouped:
                    raise self._fail(
                        label,
                        f"The {name} parameter must be assigned to one "
                        "parameter group only.",
                    )
                grouped.append(name)
                if name not in self.parameter_names:
                    raise self._fail(
                        label,
                        f"The grouped parameter {name} does not reference a "
                        "valid parameter.",
                    )
