"""The engine's resource-type calls over the installed packs.

Expected listings come from Heat 27 (``resource_types_listed.json``, cut
from Heat 27.0.1's answers for the types our packs ship):
whether a member and an admin see each type in ``GET /resource_types``.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import exception
from keel_heat_core.context import RequestContext
from keel_heat_core.plugin_api import Resource, support
from keel_heat_core.service.type_discovery import (
    ResourceTypes,
    ServiceAvailability,
)
from keel_heat_core.template import environment as env_mod

DATA = json.loads(
    (pathlib.Path(__file__).parent / "resource_types_listed.json").read_text()
)


@pytest.fixture(scope="module")
def types() -> ResourceTypes:
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], default_config_files=[])
    return ResourceTypes(conf)


def member() -> RequestContext:
    return RequestContext(
        user_id="u1", project_id="p1", roles=["member", "reader"]
    )


def admin() -> RequestContext:
    return RequestContext(
        user_id="u0", project_id="p1", roles=["admin", "member", "reader"]
    )


def test_member_and_admin_listings_match_heat(types):
    as_member = set(types.list_resource_types(member()))
    as_admin = set(types.list_resource_types(admin()))
    installed = set(types.list_resource_types(None))
    checked = 0
    for name, listed in DATA.items():
        if name not in installed:
            continue  # hidden, or its pack is not installed
        assert (name in as_member) == listed["member"], name
        assert (name in as_admin) == listed["admin"], name
        checked += 1
    assert checked >= 30
    assert "OS::Keystone::Project" in as_admin
    assert "OS::Keystone::Project" not in as_member
    assert "OS::Heat::None" in as_member


def test_hidden_types_are_never_listed(types):
    listed = types.list_resource_types(admin())
    hidden = [n for n, v in DATA.items() if v["hidden"]]
    assert hidden  # the data names some hidden Heat types
    assert not set(hidden) & set(listed)


def test_filters(types):
    ctx = admin()
    heat = types.list_resource_types(ctx, type_name="OS::Heat::R")
    assert "OS::Heat::RandomString" in heat
    assert all(n.startswith("OS::Heat::R") for n in heat)
    assert types.list_resource_types(ctx, type_name="[") == []
    by_version = types.list_resource_types(ctx, heat_version="7.0.0")
    assert "OS::Heat::Value" in by_version
    assert "OS::Heat::None" not in by_version
    deprecated = types.list_resource_types(ctx, support_status="DEPRECATED")
    assert "OS::Heat::None" not in deprecated
    described = types.list_resource_types(
        ctx, type_name="OS::Heat::None$", with_description=True
    )
    assert described == [
        {
            "resource_type": "OS::Heat::None",
            "description": described[0]["description"],
        }
    ]
    assert described[0]["description"]
    with pytest.raises(exception.Invalid) as err:
        types.list_resource_types(ctx, support_status="BOGUS")
    assert "Invalid support status and should be one of" in str(err.value)


def test_schema_and_templates(types):
    schema = types.resource_schema(member(), "OS::Heat::TestResource")
    assert schema["resource_type"] == "OS::Heat::TestResource"
    assert "value" in schema["properties"]
    assert "show" in schema["attributes"]
    assert "description" not in schema
    described = types.resource_schema(
        member(), "OS::Heat::TestResource", with_description=True
    )
    assert described["description"]
    hot = types.generate_template(member(), "OS::Heat::Value", "hot")
    assert hot["heat_template_version"] == "2016-10-14"
    assert hot["parameters"]["value"]["type"] == "json"
    cfn = types.generate_template(member(), "OS::Heat::TestResource")
    assert cfn["HeatTemplateFormatVersion"] == "2012-12-12"


def test_schema_errors(types):
    with pytest.raises(exception.EntityNotFound) as err:
        types.resource_schema(member(), "OS::No::Such")
    assert (
        str(err.value)
        == "The Resource Type (OS::No::Such) could not be found."
    )
    with pytest.raises(exception.EntityNotFound):
        types.generate_template(member(), "OS::No::Such")
    with pytest.raises(exception.Forbidden) as denied:
        types.resource_schema(member(), "OS::Keystone::Project")
    assert "You are not authorized to use" in str(denied.value)
    assert types.resource_schema(admin(), "OS::Keystone::Project")[
        "properties"
    ]


def test_service_missing():
    class Plugin:
        @classmethod
        def is_available(cls, ctxt):
            return False

    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], default_config_files=[])
    types = ResourceTypes(
        conf, availability=ServiceAvailability({"keystone": Plugin})
    )
    assert "OS::Keystone::Project" not in types.list_resource_types(admin())
    assert "OS::Heat::None" in types.list_resource_types(admin())
    with pytest.raises(exception.ResourceTypeUnavailable) as err:
        types.resource_schema(admin(), "OS::Keystone::Project")
    assert str(err.value) == (
        "HEAT-E99001 Service keystone is not available for resource type "
        "OS::Keystone::Project, reason: Service endpoint not in service "
        "catalog."
    )


def test_template_functions(types):
    data = json.loads(
        (
            pathlib.Path(__file__).parent / "functions_2021-04-16.json"
        ).read_text()
    )
    got = types.list_template_functions(
        None, "heat_template_version.2021-04-16"
    )
    key = lambda f: f["functions"]  # noqa: E731
    assert [f["functions"] for f in sorted(got, key=key)] == [
        f["functions"] for f in sorted(data["plain"], key=key)
    ]
    with_cond = types.list_template_functions(
        None, "heat_template_version.2021-04-16", with_condition=True
    )
    assert {f["functions"] for f in with_cond} == {
        f["functions"] for f in data["with_condition"]
    }
    assert types.list_template_functions(None, "2021-04-16") == got
    assert types.list_template_functions(None, "wallaby") == got
    with pytest.raises(exception.NotFound) as err:
        types.list_template_functions(None, "heat_template_version.1999")
    assert str(err.value) == (
        "Template with version heat_template_version.1999 not found"
    )


def test_hidden_type_is_refused_and_unlisted():
    class Hidden(Resource):
        """Gone."""

        support_status = support.SupportStatus(status=support.HIDDEN)

    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], default_config_files=[])
    env = env_mod.build_global_env({"OS::Test::Hidden": Hidden}, env_dir=None)
    types = ResourceTypes(conf, env=lambda: env)
    assert types.list_resource_types(admin()) == []
    for call in (types.resource_schema, types.generate_template):
        with pytest.raises(exception.NotSupported) as err:
            call(admin(), "OS::Test::Hidden")
        assert str(err.value) == "OS::Test::Hidden is not supported."


def test_prepare_builds_the_one_enforcer_later_checks_use(monkeypatch):
    from keel_heat_core.service import type_discovery

    built = []
    real = type_discovery.Enforcer

    def counting(conf):
        built.append(conf)
        return real(conf)

    monkeypatch.setattr(type_discovery, "Enforcer", counting)
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], default_config_files=[])
    fresh = ResourceTypes(conf)
    fresh.prepare()
    assert len(built) == 1
    assert fresh.allowed(member(), "OS::Heat::None")
    assert len(built) == 1
