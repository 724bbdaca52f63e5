"""The CFN API frame."""

from __future__ import annotations

import webob
from oslo_config import cfg

from keel_heat_api import cfn


def test_version_document_and_invalid_action() -> None:
    conf = cfg.ConfigOpts()
    app = cfn.setup_app(conf)
    conf([], project="keel-heat-test")
    assert webob.Request.blank("/").get_response(app).status_int == 300
    resp = webob.Request.blank("/v1/?Action=ListStacks").get_response(app)
    assert resp.status == "400 InvalidAction"
    assert "<Code>InvalidAction</Code>" in resp.text
    assert "ListStacks is not implemented" in resp.text
    health = webob.Request.blank("/healthcheck").get_response(app)
    assert health.status_int == 200
