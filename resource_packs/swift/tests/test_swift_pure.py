"""The pure parts of the pack: signal parsing, S3 ACLs, metadata headers."""

from __future__ import annotations

import json

import pytest
from keel_heat_pack_swift import container, s3, swift_signal

from keel_heat_core import exception


def test_signals_get_defaults_in_order() -> None:
    bodies = [
        swift_signal.IN_PROGRESS,
        "",
        json.dumps({"data": "x"}),
        json.dumps({"status": "FAILURE", "reason": "bad", "id": "n"}),
    ]
    assert swift_signal.parse_signals(bodies) == [
        {
            "data": None,
            "id": 1,
            "reason": "Signal 1 received",
            "status": "SUCCESS",
        },
        {
            "data": "x",
            "id": 2,
            "reason": "Signal 2 received",
            "status": "SUCCESS",
        },
        {"data": None, "id": "n", "reason": "bad", "status": "FAILURE"},
    ]


def test_a_signal_with_a_known_id_replaces_the_earlier_one() -> None:
    bodies = [
        json.dumps({"id": "a", "data": 1}),
        json.dumps({"id": "b", "data": 2}),
        json.dumps({"id": "a", "data": 3}),
    ]
    signals = swift_signal.parse_signals(bodies)
    assert [(s["id"], s["data"]) for s in signals] == [("b", 2), ("a", 3)]


def test_a_body_that_is_not_json_is_an_error() -> None:
    with pytest.raises(exception.Error) as err:
        swift_signal.parse_signals(["{nope"])
    assert str(err.value) == "Failed to parse JSON data: {nope"


@pytest.mark.parametrize(
    ("acl", "read", "write"),
    [
        (None, "p:u", "p:u"),
        ("Private", "p:u", "p:u"),
        ("PublicRead", ".r:*", "p:u"),
        ("PublicReadWrite", ".r:*", ".r:*"),
        ("AuthenticatedRead", "p", "p:u"),
        ("BucketOwnerRead", "p:u", "p:u"),
        ("BucketOwnerFullControl", "p:u", "p:u"),
    ],
)
def test_canned_acls(acl: str | None, read: str, write: str) -> None:
    assert s3.acl_headers(acl, "p", "u") == {
        "X-Container-Read": read,
        "X-Container-Write": write,
    }


def test_meta_headers() -> None:
    assert container.meta_headers("container", {"a": "1", "B-c": "2"}) == {
        "X-Container-Meta-a": "1",
        "X-Container-Meta-B-c": "2",
    }
    assert container.meta_headers("account", None) == {}


@pytest.mark.parametrize(
    "cls",
    [
        container.SwiftContainer,
        s3.S3Bucket,
        swift_signal.SwiftSignal,
        swift_signal.SwiftSignalHandle,
    ],
)
def test_no_snapshot_deletion_policy(cls: type) -> None:
    # as in Heat, none of the Swift types can be snapshotted
    cls.validate_deletion_policy("Retain")  # type: ignore[attr-defined]
    with pytest.raises(exception.StackValidationFailed) as err:
        cls.validate_deletion_policy("Snapshot")  # type: ignore[attr-defined]
    assert '"Snapshot" deletion policy not supported' in str(err.value)
