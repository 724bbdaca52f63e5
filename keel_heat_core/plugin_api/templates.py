"""Template text helpers for resources that build or fetch templates.

Resources that own a child stack (``AWS::CloudFormation::Stack``, ...)
parse the template they fetch with :func:`parse_template`, which applies
Heat's rules (JSON first, then YAML; size limit; a version key required).
"""

from keel_heat_core.template.format import parse as parse_template
from keel_heat_core.template.format import simple_parse

__all__ = ["parse_template", "simple_parse"]
