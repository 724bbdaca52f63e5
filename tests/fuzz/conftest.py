"""The fuzzer's deployments: the embedded default's parts (SQLite, the
in-process bus) and the production ones (MariaDB, RabbitMQ), each in
this process behind real HTTP (``InProcessCloud``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from keel_heat_core.testing import cloud_setup
from keel_heat_core.testing.cloud import InProcessCloud, NoauthAPI
from tests.functional.engine import conftest as _engine_conftest  # noqa: F401

PROJECT = "fuzz-project"


@pytest.fixture(scope="module", params=["sqlite", "mariadb"])
def deployment(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessCloud]:
    tmp = tmp_path_factory.mktemp("fuzz")
    apis = {"member": NoauthAPI(PROJECT, token="anything")}
    if request.param == "sqlite":
        with InProcessCloud(tmp, apis=apis, prefix="keel_fz_") as cloud:
            yield cloud
        return
    with (
        cloud_setup.scratch_database("mariadb", prefix="keel_fz_") as url,
        cloud_setup.private_vhost("keel_fz_") as vhost,
        InProcessCloud(
            tmp,
            database_url=url,
            transport_url=cloud_setup.rabbit_url(vhost),
            apis=apis,
            prefix="keel_fz_",
        ) as cloud,
    ):
        yield cloud
