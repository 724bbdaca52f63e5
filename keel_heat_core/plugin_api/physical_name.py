"""Physical resource names: ``<stack>-<resource>-<short id>``.

The short id is made from the random bits of the resource's UUID, so a
name is stable for a resource and differs between replacements.
"""

from __future__ import annotations

import base64
import uuid


def short_id(source_uuid: str | uuid.UUID) -> str:
    """A 12-character lower-case id taken from a version-4 UUID.

    The 60 random bits of the UUID's ``time`` field are packed, left
    aligned, into 8 bytes and base32-encoded; the first 12 characters
    carry exactly those 60 bits.

    :raises ValueError: for a UUID that is not version 4.
    """
    if isinstance(source_uuid, str):
        source_uuid = uuid.UUID(source_uuid)
    if source_uuid.version != 4:
        raise ValueError(f"Invalid UUID version ({source_uuid.version})")
    packed = (source_uuid.time << 4).to_bytes(8, "big")
    return base64.b32encode(packed)[:12].lower().decode("ascii")


def reduce_physical_resource_name(name: str, limit: int) -> str:
    """Shorten ``name`` to ``limit`` characters, keeping both ends.

    The first two characters, a ``-`` and the last ``limit - 3`` characters
    are kept, so the unique suffix survives.

    :raises ValueError: when ``limit`` is below 4.
    """
    if len(name) <= limit:
        return name
    if limit < 4:
        raise ValueError("limit cannot be less than 4")
    return name[:2] + "-" + name[-(limit - 3) :]


def physical_resource_name(
    stack_name: str, resource_name: str, resource_uuid: str, limit: int | None
) -> str:
    """The physical name of a resource (see the module docstring)."""
    name = "{}-{}-{}".format(
        stack_name.rstrip("*"),
        resource_name,
        short_id(resource_uuid),
    )
    if limit:
        name = reduce_physical_resource_name(name, limit)
    return name
