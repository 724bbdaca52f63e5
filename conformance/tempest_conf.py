"""tempest.conf and .stestr.conf for heat-tempest-plugin and Heat's tests.

As Heat's functional test job configures tempest: admin credentials in
``[auth]``, ``[identity] uri_v3``, ``[service_available] heat = true`` and
every other service false, ``[heat_plugin]`` credentials of the ``demo`` member
user and the admin, a 300 s build timeout (polled every second), the
image/flavor/network options left empty, and the ``hidden`` tag the deployment
hides. Heat's in-tree functional tests (``integration``) read the same
``[heat_plugin]`` section.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.heat_conf import render

BUILD_TIMEOUT = 300

#: Seconds between two polls of a stack's status. tempest's default (4 s)
#: made every create, update and delete of a simple stack wait 4 s, most
#: of each test's time, on a keel-heat that finishes one in under a second.
BUILD_INTERVAL = 1

#: Seconds one test of Heat's in-tree suite may run (``OS_TEST_TIMEOUT``,
#: applied by :mod:`conformance.tempest_entry`): a stack that never
#: completes waits ``build_timeout``, its cleanup as long again.
TEST_TIMEOUT = 2 * BUILD_TIMEOUT

ENTRY = Path(__file__).with_name("tempest_entry.py")

#: Tests skipped by name (``[heat_plugin] skip_functional_test_list``,
#: which heat-tempest-plugin's and Heat's in-tree functional tests both
#: read; no class name is in both): they need services that are not here
#: but carry no skip decorator, so [service_available] misses them. The
#: value is the reason the summary shows instead of the tests' own "Test
#: disabled in conf, skipping".
SKIP_BY_NAME = {
    # heat-tempest-plugin
    "EncryptedParametersTest": "absent service: needs Nova, Glance and "
    "Neutron (an OS::Nova::Server with the configured image)",
    "StackPreviewTest.test_res_group_with_nested_template": "absent "
    "service: needs Neutron (an OS::Neutron::Net in the previewed template)",
    # heat_integrationtests
    "UpdateStackTest.test_stack_update_flavor_volume": "absent service: "
    "needs Nova and Cinder (an OS::Nova::Server with an "
    "OS::Cinder::Volume attached)",
    "ReplaceDeprecatedResourceTest.test_replace_software_deployments": (
        "absent service: needs Nova (an OS::Nova::Server with the "
        "configured image and flavor)"
    ),
    "TestTranslation.test_create_update_subnet_old_network": "absent "
    "service: needs Neutron (OS::Neutron::Net and OS::Neutron::Subnet)",
    "TestTranslation.test_create_update_translation_with_get_attr": (
        "absent service: needs Neutron (OS::Neutron::Net and "
        "OS::Neutron::Subnet)"
    ),
    "TestTranslation.test_value_from_nested_stack": "absent service: "
    "needs Nova and Neutron (an OS::Nova::Server on the fixed network)",
    "NotificationTest": "cannot run here: its setUp reads "
    "[oslo_messaging_rabbit] rabbit_host, rabbit_port, rabbit_userid and "
    "rabbit_password, which oslo.messaging 18 no longer has "
    "(NoSuchOptError, on Heat 27.0.1 too), and listens on the default "
    "virtual host; Heat's gate skips it",
}

#: What a test skipped by name says about itself.
DISABLED_IN_CONF = "Test disabled in conf, skipping"


def skip_reason(test_id: str) -> str | None:
    """Return why ``test_id`` is skipped by name, or None.

    :param test_id: ``package.module.Class.test_method``, maybe with
        tempest's ``[tags]`` or a scenario's ``(name)``.
    """
    bare = test_id.split("[", 1)[0].split("(", 1)[0]
    class_name, method = bare.rsplit(".", 2)[-2:]
    return SKIP_BY_NAME.get(f"{class_name}.{method}") or SKIP_BY_NAME.get(
        class_name
    )


#: Services tempest knows about that this test bed does not have.
ABSENT_SERVICES = ("cinder", "glance", "neutron", "nova", "swift")


@dataclass(frozen=True)
class Identity:
    """What tempest needs to know about Keystone and its users.

    :ivar v3_url: the versioned identity endpoint; empty for an offline
        configuration that only lists the tests (no decorator then asks a
        cloud anything).
    :ivar region: the catalog region.
    :ivar user: ``(name, password, project)`` of the member user.
    :ivar admin: ``(name, password, project)`` of the admin.
    """

    v3_url: str
    region: str
    user: tuple[str, str, str]
    admin: tuple[str, str, str]


def tempest_settings(
    identity: Identity, workdir: Path
) -> dict[str, dict[str, Any]]:
    """Return tempest.conf's values per group.

    :param identity: Keystone's address and the credentials.
    :param workdir: the tempest folder (logs and locks go there).
    """
    user, password, project = identity.user
    admin, admin_password, admin_project = identity.admin
    values: dict[str, dict[str, Any]] = {
        "DEFAULT": {
            "log_file": str(workdir / "tempest.log"),
            "use_stderr": False,
            "debug": False,
        },
        "oslo_concurrency": {"lock_path": str(workdir / "locks")},
        "auth": {
            "admin_username": admin,
            "admin_password": admin_password,
            "admin_project_name": admin_project,
            "admin_domain_name": "Default",
            "use_dynamic_credentials": True,
        },
        "identity": {
            "uri_v3": identity.v3_url,
            "auth_version": "v3",
            "region": identity.region,
        },
        "identity-feature-enabled": {"api_v2": False},
        "service_available": {
            "heat": True,
            **dict.fromkeys(ABSENT_SERVICES, False),
        },
        "heat_plugin": {
            "username": user,
            "password": password,
            "project_name": project,
            "admin_username": admin,
            "admin_password": admin_password,
            "admin_project_name": admin_project,
            "auth_url": identity.v3_url,
            "auth_version": 3,
            "user_domain_name": "Default",
            "project_domain_name": "Default",
            "region": identity.region,
            "build_timeout": BUILD_TIMEOUT,
            "build_interval": BUILD_INTERVAL,
            "image_ref": "",
            "minimal_image_ref": "",
            "instance_type": "",
            "minimal_instance_type": "",
            "keypair_name": "",
            "hidden_stack_tag": "hidden",
            "convergence_engine_enabled": True,
            "skip_functional_test_list": sorted(SKIP_BY_NAME),
        },
        "heat_features_enabled": {"multi_cloud": False},
    }
    if not identity.v3_url:
        del values["identity"]["uri_v3"]
        del values["heat_plugin"]["auth_url"]
    return values


def write(identity: Identity, workdir: Path) -> Path:
    """Write ``etc/tempest.conf``, ``.stestr.conf`` and the discovery entry.

    stestr discovers ``discover/test_keel_suite.py`` (a copy of
    :mod:`conformance.tempest_entry`) instead of tempest's own entry, so
    that one heat-tempest-plugin module failing to import fails its tests
    rather than the whole run.

    :param identity: Keystone's address and the credentials.
    :param workdir: the tempest folder (created if needed).
    :returns: the ``etc`` folder to export as ``TEMPEST_CONFIG_DIR``.
    """
    etc = workdir / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    (workdir / "locks").mkdir(exist_ok=True)
    (etc / "tempest.conf").write_text(
        render(tempest_settings(identity, workdir))
    )
    discover = workdir / "discover"
    discover.mkdir(exist_ok=True)
    shutil.copyfile(ENTRY, discover / "test_keel_suite.py")
    (workdir / ".stestr.conf").write_text(
        f"[DEFAULT]\ntest_path={discover}\ntop_dir={discover}\n"
    )
    return etc
