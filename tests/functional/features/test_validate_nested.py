"""``POST /validate?show_nested=true`` with template resources
(heat-tempest-plugin ``test_template_validate``, nested_on cases)."""

from __future__ import annotations

from tests.functional.software.harness import Cloud

RANDOM = """
heat_template_version: 2014-10-16
description: the stack description
parameters:
  aparam:
    type: number
    default: 10
    description: the param description
resources:
  myres:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: aparam}
"""
PARENT = """
heat_template_version: 2014-10-16
description: the parent template
parameters:
  pparam:
    type: number
    default: 5
    description: the param description
resources:
  nres:
    type: mynested.yaml
    properties:
      aparam: {get_param: pparam}
"""
PARENT_NOPROP = """
heat_template_version: 2014-10-16
description: the parent template
resources:
  nres:
    type: mynested.yaml
"""
APARAM = {
    "Default": 10,
    "Description": "the param description",
    "Label": "aparam",
    "NoEcho": "false",
    "Type": "Number",
}
ENVIRONMENT = {
    "event_sinks": [],
    "parameter_defaults": {},
    "parameters": {},
    "resource_registry": {"mynested.yaml": "mynested.yaml", "resources": {}},
}


def _validate(cloud: Cloud, template: str, files: dict[str, str]) -> dict:
    status, body = cloud.request(
        "POST",
        "/validate?show_nested=true",
        {"template": template, "files": files},
    )
    assert status == 200, body
    return dict(body)


def test_nested_on(cloud: Cloud):
    body = _validate(cloud, PARENT_NOPROP, {"mynested.yaml": RANDOM})
    assert body == {
        "Description": "the parent template",
        "Parameters": {},
        "NestedParameters": {
            "nres": {
                "Description": "the stack description",
                "Parameters": {"aparam": APARAM},
                "Type": "mynested.yaml",
            }
        },
        "Environment": ENVIRONMENT,
    }


def test_nested_on_multiple(cloud: Cloud):
    nested = RANDOM.replace("OS::Heat::RandomString", "mynested2.yaml")
    body = _validate(
        cloud, PARENT, {"mynested.yaml": nested, "mynested2.yaml": RANDOM}
    )
    assert body == {
        "Description": "the parent template",
        "Parameters": {
            "pparam": {
                "Default": 5,
                "Description": "the param description",
                "Label": "pparam",
                "NoEcho": "false",
                "Type": "Number",
            }
        },
        "NestedParameters": {
            "nres": {
                "Description": "the stack description",
                "Parameters": {"aparam": dict(APARAM, Value=5)},
                "NestedParameters": {
                    "myres": {
                        "Description": "the stack description",
                        "Parameters": {"aparam": APARAM},
                        "Type": "mynested2.yaml",
                    }
                },
                "Type": "mynested.yaml",
            }
        },
        "Environment": ENVIRONMENT,
    }
