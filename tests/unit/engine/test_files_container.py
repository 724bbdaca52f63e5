"""``files_container``: the request's files completed from Swift through
the ``swift`` client plugin (here a fake one)."""

from __future__ import annotations

from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.service.files_container import files_with_container


class FakeSwiftPlugin:
    def __init__(self, objects: dict[str, str]) -> None:
        self.objects = objects
        self.calls: list[tuple[str, list[str], int | None]] = []

    def get_files_from_container(
        self, container: str, skip: list[str], max_bytes: int | None = None
    ) -> dict[str, str]:
        self.calls.append((container, skip, max_bytes))
        return {k: v for k, v in self.objects.items() if k not in skip}


class Clients:
    def __init__(self, plugin: Any) -> None:
        self.plugin = plugin

    def client_plugin(self, name: str) -> Any:
        if self.plugin is None:
            raise exception.EntityNotFound(entity="Client plugin", name=name)
        assert name == "swift"
        return self.plugin


class Context:
    def __init__(self, plugin: Any) -> None:
        self.clients = Clients(plugin)


def test_without_a_container_the_files_are_unchanged() -> None:
    files = {"a": "1"}
    assert files_with_container(Context(None), None, files, 10) is files
    assert files_with_container(Context(None), "", None, 10) is None


def test_the_request_files_win_over_the_container() -> None:
    plugin = FakeSwiftPlugin({"a": "from swift", "b": "2"})
    merged = files_with_container(Context(plugin), "box", {"a": "given"}, 1000)
    assert merged == {"a": "given", "b": "2"}
    assert plugin.calls == [("box", ["a"], 1000)]


def test_no_swift_client_plugin() -> None:
    with pytest.raises(exception.ClientNotAvailable) as err:
        files_with_container(Context(None), "box", {}, None)
    assert str(err.value) == "The client (swift) is not available."
