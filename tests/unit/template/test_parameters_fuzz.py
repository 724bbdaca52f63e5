"""Random parameter declarations and values never leak a Python error."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keel_heat_core import exception
from keel_heat_core.template import parameters as pm

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10),
    st.floats(allow_nan=True),
    st.sampled_from(["", "a,b", "1", "2.5", "x", "[a-", "[a-z]+", "{}", "t"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["min", "max", "a"]), inner, max_size=2
        )
    ),
    max_leaves=6,
)
constraint = st.dictionaries(
    st.sampled_from(
        [
            "length",
            "range",
            "modulo",
            "allowed_values",
            "allowed_pattern",
            "custom_constraint",
            "description",
            "min",
            "step",
            "offset",
            "bogus",
        ]
    ),
    values,
    max_size=2,
)
declaration = st.fixed_dictionaries(
    {"type": st.sampled_from(pm.HOTParamSchema.TYPES) | values},
    optional={
        "default": values,
        "constraints": st.lists(constraint, max_size=2) | values,
        "hidden": values,
        "label": values,
        "immutable": values,
        "description": values,
        "tags": values,
    },
)


class Ident:
    stack_id = "id"
    stack_name = "st"
    tenant = "t"

    def arn(self) -> str:
        return "arn"


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    decl=declaration | values,
    value=values,
    version=st.sampled_from(
        ["2015-04-30", "2017-02-24", "2018-03-02", "2021-04-16"]
    ),
)
def test_random_declarations(decl: Any, value: Any, version: str) -> None:
    try:
        schemata = pm.param_schemata(
            pm.schema_class_for(f"heat_template_version.{version}"),
            {"p": decl},
        )
        params = pm.HOTParameters(Ident(), schemata, {"p": value})
        params.validate()
        params.shown()
        params["p"]
        pm.format_validate_parameter(params.params["p"])
    except exception.HeatException:
        pass
