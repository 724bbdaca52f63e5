"""``files_container``: a stack's child templates, files and environment
read from a Swift container of the caller's project, on create, update,
preview and validate; through ``openstack stack …`` and the native API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from swift_pack_checks import (
    container_headers,
    empty_and_delete,
    run_openstack,
)

from keel_heat_core.testing.cloud import InProcessCloud
from keel_heat_core.testing.openstack.fixture import CloudAccess

pytestmark = [pytest.mark.cloud, pytest.mark.slow]

MAIN = """\
heat_template_version: 2018-08-31
parameters:
  greeting:
    type: string
    default: none
resources:
  child:
    type: child.yaml
  box:
    type: My::Box
outputs:
  child_value:
    value: {get_attr: [child, value]}
  note:
    value: {get_file: note.txt}
  greeting:
    value: {get_param: greeting}
  box:
    value: {get_resource: box}
"""

CHILD = """\
heat_template_version: 2018-08-31
resources:
  none:
    type: OS::Heat::None
outputs:
  value:
    value: %s
"""

BOX = """\
heat_template_version: 2018-08-31
resources:
  box:
    type: OS::Swift::Container
    properties:
      X-Container-Meta: {Made-By: files-container}
outputs:
  OS::stack_id:
    value: {get_resource: box}
"""

ENV = """\
parameters:
  greeting: hello
resource_registry:
  My::Box: box.yaml
"""


def _upload(store: Any, container: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        store.upload_object(container=container, name=name, data=text)


def _outputs(
    access: CloudAccess, heat: InProcessCloud, workdir: Path, stack: str
) -> dict[str, Any]:
    shown = json.loads(
        run_openstack(
            access,
            heat,
            workdir,
            "stack",
            "output",
            "show",
            stack,
            "--all",
            "-f",
            "json",
        ).stdout
    )
    return {
        key: (json.loads(value) if isinstance(value, str) else value)[
            "output_value"
        ]
        for key, value in shown.items()
    }


def test_stack_from_a_files_container(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
    tmp_path: Path,
) -> None:
    access = openstack_cloud
    files = unique + "-files"
    store.create_container(name=files)
    try:
        _upload(
            store,
            files,
            {
                "child.yaml": CHILD % "first",
                "note.txt": "a note",
                "box.yaml": BOX,
                "env.yaml": ENV,
            },
        )
        (tmp_path / "main.yaml").write_text(MAIN)
        run_openstack(
            access,
            heat,
            tmp_path,
            "stack",
            "create",
            "--wait",
            "-t",
            "main.yaml",
            "-e",
            "env.yaml",
            "--files-container",
            files,
            unique,
        )
        outputs = _outputs(access, heat, tmp_path, unique)
        assert outputs["child_value"] == "first"
        assert outputs["note"] == "a note"
        assert outputs["greeting"] == "hello"
        headers = container_headers(store, outputs["box"])
        assert headers is not None
        assert headers["x-container-meta-made-by"] == "files-container"

        # a file given with the request wins over the container's
        member = access.member
        status, body = heat.request(
            "POST",
            "/validate",
            {
                "template": MAIN,
                "files_container": files,
                "files": {"note.txt": "given"},
                "environment_files": ["env.yaml"],
            },
            user=member,
        )
        assert status == 200, body
        assert body["Parameters"]["greeting"]["Default"] == "none"
        status, body = heat.request(
            "POST",
            "/stacks/preview",
            {
                "stack_name": unique + "-p",
                "template": MAIN,
                "files_container": files,
                "files": {"note.txt": "given"},
                "environment_files": ["env.yaml"],
            },
            user=member,
        )
        assert status == 200, body
        notes = {
            o["output_key"]: o["output_value"]
            for o in body["stack"]["outputs"]
        }
        assert notes["note"] == "given"
        assert notes["greeting"] == "hello"

        # the container's new child template is used by the update
        _upload(store, files, {"child.yaml": CHILD % "second"})
        run_openstack(
            access,
            heat,
            tmp_path,
            "stack",
            "update",
            "--wait",
            "-t",
            "main.yaml",
            "-e",
            "env.yaml",
            "--files-container",
            files,
            unique,
        )
        outputs = _outputs(access, heat, tmp_path, unique)
        assert outputs["child_value"] == "second"
        box = outputs["box"]
        assert container_headers(store, box) is not None

        run_openstack(
            access,
            heat,
            tmp_path,
            "stack",
            "delete",
            "--yes",
            "--wait",
            unique,
        )
        assert container_headers(store, box) is None
    finally:
        empty_and_delete(store, files)


def test_missing_files_container(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    unique: str,
) -> None:
    status, body = heat.request(
        "POST",
        "/stacks",
        {
            "stack_name": unique,
            "template": MAIN,
            "files_container": unique + "-none",
        },
        user=openstack_cloud.member,
    )
    assert status == 404, body
    message = body["error"]["message"]
    assert message.startswith(
        f"Could not fetch files from container {unique}-none, reason: "
        "Container GET failed: "
    )
    assert body["error"]["type"] == "NotFound"


def test_without_the_container_the_child_is_missing(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
) -> None:
    # what the container gives in the test above
    status, body = heat.request(
        "POST", "/validate", {"template": MAIN}, user=openstack_cloud.member
    )
    assert status == 400, body
    assert "child.yaml" in body["error"]["message"]
