"""Random environments give an Environment or a Heat-shaped error."""

from __future__ import annotations

import contextlib
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keel_heat_core import exception
from keel_heat_core.template import environment as env_mod

GLOBAL = env_mod.build_global_env(
    resource_classes={"OS::Heat::None": object}, event_sinks={}
)

leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from(
        [
            "OS::Heat::None",
            "x.yaml",
            "OS::*",
            "pre-create",
            "update",
            "hooks",
            "restricted_actions",
            "resources",
            "",
        ]
    ),
    st.text(max_size=6),
)
keys = st.one_of(
    st.sampled_from(
        [
            *env_mod.SECTIONS,
            "resources",
            "hooks",
            "restricted_actions",
            "OS::*",
            "A::B",
            "r*",
            "t.yaml",
        ]
    ),
    st.text(max_size=6),
)
values = st.recursive(
    leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3)
    ),
    max_leaves=12,
)
documents = st.dictionaries(keys, values, max_size=4)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_environment_from_random_maps(doc: dict[str, Any]) -> None:
    try:
        env = env_mod.Environment(
            env_mod.validate(dict(doc)), global_environment=GLOBAL
        )
        env.user_env_as_dict()
        for rtype in ("OS::Heat::None", "A::B", "t.yaml"):
            with contextlib.suppress(exception.HeatException):
                env.get_class_to_instantiate(rtype, "r1")
        env.registry.matches_hook("r1", "pre-create")
        env.registry.get_rsrc_restricted_actions("r1")
    except (ValueError, exception.HeatException):
        pass


registries = st.dictionaries(keys, values, max_size=4) | st.fixed_dictionaries(
    {"resources": values | st.dictionaries(keys, values, max_size=3)}
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(registries)
def test_random_registries(rr: dict[str, Any]) -> None:
    test_environment_from_random_maps.hypothesis.inner_test(  # type: ignore
        {"resource_registry": rr}
    )


@settings(max_examples=200)
@given(documents)
def test_parse_of_random_text(doc: dict[str, Any]) -> None:
    text = yaml.safe_dump(doc)
    try:
        parsed = env_mod.parse(text)
    except ValueError:
        return
    assert isinstance(parsed, dict)
