"""The route table: specificity, 405 with Allow, OPTIONS."""

from __future__ import annotations

from keel_heat_api import v1
from keel_heat_api.routing import Router


def handler_name(router: Router, method: str, path: str) -> object:
    found = router.match(method, path)
    assert found is not None
    route, params = found
    return route.handler.__name__ if route else params


def test_registered_route_count() -> None:
    router = v1.router()
    # Heat's v1 router: 61 operations, counting each method of a lookup
    # template.
    assert len(router.routes) == 61


def test_literal_routes_win() -> None:
    router = v1.router()
    assert handler_name(router, "POST", "/t/stacks/preview") == "preview"
    assert handler_name(router, "GET", "/t/stacks/preview") == ["POST"]
    assert handler_name(router, "GET", "/t/stacks/detail") == "detail"
    assert handler_name(router, "GET", "/t/stacks/foo") == "lookup"


def test_sub_path_lookups() -> None:
    router = v1.router()
    assert handler_name(router, "GET", "/t/stacks/foo/events") == "lookup"
    assert handler_name(router, "POST", "/t/stacks/foo/actions") == "lookup"
    assert handler_name(router, "POST", "/t/stacks/foo/files") == ["GET"]
    assert handler_name(router, "GET", "/t/stacks/foo/bar") == "show"


def test_arn_lookup_takes_slashes() -> None:
    router = v1.router()
    path = "/t/stacks/arn:openstack:heat::t:stacks/n/i/resources"
    found = router.match("GET", path)
    assert found is not None and found[0] is not None
    assert (
        found[1]["stack_name"] == "arn:openstack:heat::t:stacks/n/i/resources"
    )


def test_allow_lists_methods_in_registration_order() -> None:
    router = v1.router()
    assert handler_name(router, "OPTIONS", "/t/stacks/n/i") == [
        "GET",
        "PUT",
        "PATCH",
        "DELETE",
    ]
    assert handler_name(router, "HEAD", "/t/stacks") == ["GET", "POST"]


def test_unknown_path() -> None:
    assert v1.router().match("GET", "/t/nothing") is None
