"""Constraints for property schemas (re-exported from the template layer).

The same classes constrain template parameters; see
:mod:`keel_heat_core.template.constraints` for their behaviour and
:mod:`keel_heat_core.template.custom_constraints` for writing a custom
constraint (``BaseCustomConstraint``) registered under the
``keel_heat.constraints`` entry-point group.
"""

from keel_heat_core.template.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    Length,
    Modulo,
    Range,
)
from keel_heat_core.template.custom_constraints import BaseCustomConstraint

__all__ = [
    "AllowedPattern",
    "AllowedValues",
    "BaseCustomConstraint",
    "Constraint",
    "CustomConstraint",
    "Length",
    "Modulo",
    "Range",
]
