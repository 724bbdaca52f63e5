"""tempest.conf and .stestr.conf for heat-tempest-plugin.

As ``shared/spec/testbed.md`` describes: admin credentials in ``[auth]``,
``[identity] uri_v3``, ``[service_available] heat = true`` and every other
service false, ``[heat_plugin]`` credentials of the ``demo`` member user
and the admin, a 300 s build timeout, the image/flavor/network options
left empty, and the ``hidden`` tag the deployment hides.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.heat_conf import render

BUILD_TIMEOUT = 300

ENTRY = Path(__file__).with_name("tempest_entry.py")

#: Functional tests skipped by name: they need services that are not
#: here but carry no skip decorator, so [service_available] misses them.
SKIP_BY_NAME = {
    "EncryptedParametersTest": "needs Nova, Glance and Neutron "
    "(an OS::Nova::Server with the configured image); no skip decorator",
    "StackPreviewTest.test_res_group_with_nested_template": "needs Neutron "
    "(an OS::Neutron::Net in the previewed template); no skip decorator",
}

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
