"""``keel_heat_api.wsgi_cfn:application`` reads the configuration files."""

from __future__ import annotations

import importlib
import pathlib
import sys

import pytest
import webob


def test_application_from_config_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = tmp_path / "keel-heat.conf"
    conf.write_text(
        "[DEFAULT]\ntransport_url = fake:/\n"
        "[api]\nauth_strategy = noauth\nnoauth_project_id = p-wsgi\n"
    )
    monkeypatch.setenv("KEEL_HEAT_CONFIG_FILES", str(conf))
    monkeypatch.delitem(sys.modules, "keel_heat_api.wsgi_cfn", raising=False)
    module = importlib.import_module("keel_heat_api.wsgi_cfn")
    app = module.application
    resp = webob.Request.blank("/healthcheck").get_response(app)
    assert resp.text == "OK"
    resp = webob.Request.blank(
        "/v1/?Action=EstimateTemplateCost"
    ).get_response(app)
    assert resp.status_int == 200
    assert "<Url>http://en.wikipedia.org/wiki/Gratis</Url>" in resp.text
    resp = webob.Request.blank("/v1/?Action=Nope").get_response(app)
    assert resp.status == "400 InvalidAction"
