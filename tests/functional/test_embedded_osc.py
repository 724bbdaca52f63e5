"""The acceptance test of the embedded mode, with the real pieces.

``keel-heat-all`` runs as a subprocess with no configuration but free
ports; the real OSC (python-openstackclient + python-heatclient) talks to
it in its noauth form, exactly as the README says.
"""

import json
import pathlib
import sys
import urllib.error
import urllib.request

import pytest

from keel_heat_core.testing.cloud import run_openstack
from tests.functional import embedded_stubs

BIN = pathlib.Path(sys.executable).parent


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    directory = tmp_path_factory.mktemp("embedded")
    conf = embedded_stubs.ports_config(directory)
    running = embedded_stubs.start(
        [str(BIN / "keel-heat-all"), "--config-file", str(conf)],
        directory,
        {"KEEL_HEAT_STATE_DIR": str(directory / "state")},
    )
    yield running
    assert running.stop() == 0, running.output()


def project(server) -> str:
    marker = "--os-endpoint " + server.native_url + "/v1/"
    output = server.output()
    assert marker in output, output
    return output.split(marker, 1)[1].split()[0]


def openstack(server, *args: str) -> str:
    result = run_openstack(
        f"{server.native_url}/v1/{project(server)}", *args, check=False
    )
    assert result.returncode == 0, result.stderr + server.output()
    return result.stdout


def test_version_document(server):
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(server.native_url + "/")
    assert err.value.code == 300
    body = json.load(err.value)
    assert body["versions"][0]["id"] == "v1.0"
    assert body["versions"][0]["status"] == "CURRENT"


def test_healthcheck_checks_the_database(server):
    with urllib.request.urlopen(
        server.native_url + "/healthcheck?detailed=0"
    ) as resp:
        assert resp.status == 200


def test_build_info(server):
    info = json.loads(
        openstack(server, "orchestration", "build", "info", "-f", "json")
    )
    # The embedded user is an admin, so the installed packs are listed too.
    assert set(info) == {"api", "engine", "packs"}
    assert "revision" in info["api"]
    assert "keel-heat-pack-heat" in json.dumps(info["packs"])


def test_template_version_list(server):
    versions = json.loads(
        openstack(
            server,
            "orchestration",
            "template",
            "version",
            "list",
            "-f",
            "json",
        )
    )
    names = {v["Version"] for v in versions}
    assert "heat_template_version.2013-05-23" in names
    assert "AWSTemplateFormatVersion.2010-09-09" in names


ENV_TEMPLATE = """\
heat_template_version: 2021-04-16
parameters:
  greeting: {type: string, default: from-template}
resources:
  thing:
    type: OS::Heat::TestResource
    properties: {value: {get_param: greeting}}
outputs:
  said: {value: {get_attr: [thing, output]}}
"""


def test_stack_create_and_update_with_environment_files(server, tmp_path):
    """``-e FILE`` travels as environment_files + files, not inline."""
    template = tmp_path / "t.yaml"
    template.write_text(ENV_TEMPLATE)
    first = tmp_path / "first.yaml"
    first.write_text("parameters:\n  greeting: from-first-env\n")
    second = tmp_path / "second.yaml"
    second.write_text("parameter_defaults:\n  greeting: ignored\n")
    openstack(
        server,
        "stack",
        "create",
        "--wait",
        "-t",
        str(template),
        "-e",
        str(first),
        "-e",
        str(second),
        "envstack",
    )
    said = openstack(
        server,
        "stack",
        "output",
        "show",
        "envstack",
        "said",
        "-c",
        "output_value",
        "-f",
        "value",
    )
    assert said.strip() == "from-first-env"
    first.write_text("parameters:\n  greeting: updated-env\n")
    openstack(
        server,
        "stack",
        "update",
        "--wait",
        "-t",
        str(template),
        "-e",
        str(first),
        "envstack",
    )
    said = openstack(
        server,
        "stack",
        "output",
        "show",
        "envstack",
        "said",
        "-c",
        "output_value",
        "-f",
        "value",
    )
    assert said.strip() == "updated-env"
    openstack(server, "stack", "delete", "--yes", "--wait", "envstack")


LEAF = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string}
resources:
  r: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
outputs:
  out: {value: {get_attr: [r, output]}}
"""

MIDDLE = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string}
resources:
  inner: {type: leaf.yaml, properties: {v: {get_param: v}}}
outputs:
  out: {value: {get_attr: [inner, out]}}
"""

TOP = """\
heat_template_version: 2021-04-16
parameters:
  v: {type: string, default: one}
resources:
  mid: {type: middle.yaml, properties: {v: {get_param: v}}}
outputs:
  out: {value: {get_attr: [mid, out]}}
"""


def test_template_resources_two_levels_deep(server, tmp_path):
    """Template files as types: properties in, outputs out, updates."""
    (tmp_path / "leaf.yaml").write_text(LEAF)
    (tmp_path / "middle.yaml").write_text(MIDDLE)
    top = tmp_path / "top.yaml"
    top.write_text(TOP)
    openstack(server, "stack", "create", "--wait", "-t", str(top), "nest")

    def said() -> str:
        return openstack(
            server,
            "stack",
            "output",
            "show",
            "nest",
            "out",
            "-c",
            "output_value",
            "-f",
            "value",
        ).strip()

    assert said() == "one"
    openstack(
        server,
        "stack",
        "update",
        "--wait",
        "-t",
        str(top),
        "--parameter",
        "v=two",
        "nest",
    )
    assert said() == "two"
    openstack(server, "stack", "delete", "--yes", "--wait", "nest")
