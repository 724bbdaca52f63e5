"""Plain, immutable records the repositories return.

Records hold column values (JSON already decoded, secrets already
decrypted where the docstring says so) and never a session: they can cross
threads and outlive the transaction that read them. Timestamps are naive
UTC ``datetime`` objects.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any, TypeVar

Time = datetime.datetime | None


@dataclasses.dataclass(frozen=True)
class StackRecord:
    """A ``stack`` row plus its tags (in insertion order)."""

    id: str
    name: str | None
    raw_template_id: int
    prev_raw_template_id: int | None
    user_creds_id: int | None
    username: str | None
    owner_id: str | None
    action: str | None
    status: str | None
    status_reason: str | None
    timeout: int | None
    tenant: str | None
    disable_rollback: bool
    stack_user_project_id: str | None
    backup: bool | None
    nested_depth: int | None
    convergence: bool | None
    current_traversal: str | None
    current_deps: Any
    parent_resource_name: str | None
    created_at: Time
    updated_at: Time
    deleted_at: Time
    tags: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class StackSummaryRecord:
    """What a listing of stacks shows of a ``stack`` row, plus its tags.

    Every field but ``tags`` is a ``stack`` column of the same name
    (``db.stack.SUMMARY_COLUMNS`` reads them in this order).
    """

    id: str
    name: str | None
    tenant: str | None
    action: str | None
    status: str | None
    status_reason: str | None
    created_at: Time
    updated_at: Time
    deleted_at: Time
    username: str | None
    owner_id: str | None
    stack_user_project_id: str | None
    tags: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class RawTemplateRecord:
    """A template with its files.

    ``files`` is the content of the shared ``raw_template_files`` row when
    ``files_id`` is set, else the legacy inline column (``{}`` for none).
    """

    id: int
    template: Any
    environment: Any
    files: dict[str, Any]
    files_id: int | None
    created_at: Time
    updated_at: Time


@dataclasses.dataclass(frozen=True)
class ResourceRecord:
    """A ``resource`` row with its property and attribute data resolved.

    ``properties_data`` comes from the ``rsrc_prop_data_id`` row (falling
    back to the legacy column), decrypted; ``attr_data`` from the
    ``attr_data_id`` row, decrypted, with ``tuple:`` keys decoded.
    """

    id: int
    uuid: str | None
    nova_instance: str | None
    name: str | None
    action: str | None
    status: str | None
    status_reason: str | None
    stack_id: str
    rsrc_metadata: Any
    engine_id: str | None
    atomic_key: int | None
    needed_by: list[Any] | None
    requires: list[int] | None
    replaces: int | None
    replaced_by: int | None
    current_template_id: int | None
    root_stack_id: str | None
    rsrc_prop_data_id: int | None
    attr_data_id: int | None
    created_at: Time
    updated_at: Time
    properties_data: dict[str, Any] | None = None
    attr_data: dict[Any, Any] | None = None
    #: whether the resource had any ``resource_data`` row when read; None
    #: when the read did not look (:func:`..resource.get_with_stack_in`
    #: looks for a row in INIT)
    has_data: bool | None = None


@dataclasses.dataclass(frozen=True)
class ResourcePropertiesDataRecord:
    """An rpd row; ``data`` decrypted."""

    id: int
    data: dict[str, Any] | None
    encrypted: bool | None
    created_at: Time
    updated_at: Time


@dataclasses.dataclass(frozen=True)
class ResourceDataRecord:
    """A ``resource_data`` row; ``value`` decrypted when ``redact``."""

    id: int
    resource_id: int
    key: str | None
    value: str | None
    redact: bool | None
    created_at: Time
    updated_at: Time


@dataclasses.dataclass(frozen=True)
class EventRecord:
    """An event; ``resource_properties`` resolved from rpd or legacy."""

    id: int
    uuid: str | None
    stack_id: str
    resource_action: str | None
    resource_status: str | None
    resource_name: str | None
    physical_resource_id: str | None
    resource_status_reason: str | None
    resource_type: str | None
    rsrc_prop_data_id: int | None
    created_at: Time
    updated_at: Time
    resource_properties: dict[str, Any] | None = None


@dataclasses.dataclass(frozen=True)
class SyncPointRecord:
    """A sync point; ``input_data`` keyed by 3-element node tuples.

    ``extra_data`` is the inner mapping (``resource_failures``,
    ``skip_propagate``) or ``None``.
    """

    entity_id: str
    traversal_id: str
    is_update: bool
    atomic_key: int
    stack_id: str
    input_data: dict[Any, Any]
    extra_data: dict[str, Any] | None
    created_at: Time
    updated_at: Time


@dataclasses.dataclass(frozen=True)
class UserCredsRecord:
    """Stored credentials, ``password`` and ``trust_id`` decrypted."""

    id: int
    username: str | None
    password: str | None
    region_name: str | None
    tenant: str | None
    tenant_id: str | None
    auth_url: str | None
    trust_id: str | None
    trustor_user_id: str | None
    created_at: Time
    updated_at: Time


@dataclasses.dataclass(frozen=True)
class ServiceRecord:
    """A ``service`` (engine heartbeat) row."""

    id: str
    engine_id: str
    host: str
    hostname: str
    binary: str
    topic: str
    report_interval: int
    created_at: Time
    updated_at: Time
    deleted_at: Time


@dataclasses.dataclass(frozen=True)
class SoftwareConfigRecord:
    """A software config; ``config`` is ``{config, inputs, outputs,
    options}``."""

    id: str
    name: str | None
    group: str | None
    config: Any
    tenant: str
    created_at: Time
    updated_at: Time


@dataclasses.dataclass(frozen=True)
class SoftwareDeploymentRecord:
    """A software deployment with its config."""

    id: str
    server_id: str
    config_id: str
    input_values: Any
    output_values: Any
    action: str | None
    status: str | None
    status_reason: str | None
    tenant: str
    stack_user_project_id: str | None
    created_at: Time
    updated_at: Time
    config: SoftwareConfigRecord | None = None


@dataclasses.dataclass(frozen=True)
class SnapshotRecord:
    """A snapshot; ``action`` NULL on old rows reads as ``CREATE``.

    ``data["resources"]`` has the ``resource_snapshot`` rows merged in by
    resource name.
    """

    id: str
    stack_id: str
    name: str | None
    action: str
    status: str | None
    status_reason: str | None
    data: Any
    tenant: str
    created_at: Time
    updated_at: Time


R = TypeVar("R")


_FIELDS: dict[type, tuple[str, ...]] = {}


def from_mapping(cls: type[R], mapping: Any, **overrides: Any) -> R:
    """Build record ``cls`` from a Core row's mapping (column keys).

    :param overrides: values for fields that are not plain columns.
    """
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
        _FIELDS[cls] = names
    values = {n: mapping[n] for n in names if n in mapping}
    values.update(overrides)
    return cls(**values)


def from_row(cls: type[R], row: Any, **overrides: Any) -> R:
    """Build record ``cls`` from an ORM row's attributes of the same name.

    :param overrides: values for fields that are not plain columns.
    """
    values = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if field.name in overrides:
            values[field.name] = overrides[field.name]
        elif hasattr(row, field.name):
            values[field.name] = getattr(row, field.name)
    return cls(**values)
