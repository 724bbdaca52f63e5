"""``OS::Swift::Container``: a Swift container."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any
from urllib import parse

from keel_heat_core import plugin_api as api

LOG = logging.getLogger(__name__)
Schema = api.properties.Schema
Attr = api.attributes.Schema


def meta_headers(kind: str, meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """``X-<Kind>-Meta-<key>`` headers of a metadata map.

    :param kind: ``container`` or ``account``.
    """
    return {f"X-{kind.title()}-Meta-{k}": v for k, v in (meta or {}).items()}


def storage_url_parts(url: str) -> tuple[str, str, str]:
    """Scheme, network location and path of a storage URL."""
    parsed = parse.urlparse(url)
    return parsed.scheme, parsed.netloc, parsed.path


class SwiftContainer(api.Resource):
    """A Swift container: a namespace of objects in the project's account.

    The container is named by ``name`` or, without it, by the resource's
    physical name. Its ACLs and metadata are set when it is created; any
    change of a property makes a new container. Deleting a container that
    still holds objects fails unless ``PurgeOnDelete`` is true, in which
    case its objects are deleted first.
    """

    PROPERTIES = (
        NAME,
        X_CONTAINER_READ,
        X_CONTAINER_WRITE,
        X_CONTAINER_META,
        X_ACCOUNT_META,
        PURGE_ON_DELETE,
    ) = (
        "name",
        "X-Container-Read",
        "X-Container-Write",
        "X-Container-Meta",
        "X-Account-Meta",
        "PurgeOnDelete",
    )

    ATTRIBUTES = (
        DOMAIN_NAME,
        WEBSITE_URL,
        ROOT_URL,
        OBJECT_COUNT,
        BYTES_USED,
        HEAD_CONTAINER,
    ) = (
        "DomainName",
        "WebsiteURL",
        "RootURL",
        "ObjectCount",
        "BytesUsed",
        "HeadContainer",
    )

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The container's name; the resource's physical name when it "
            "is not given.",
        ),
        X_CONTAINER_READ: Schema(
            Schema.STRING,
            "The read ACL of the container (Swift's X-Container-Read).",
        ),
        X_CONTAINER_WRITE: Schema(
            Schema.STRING,
            "The write ACL of the container (Swift's X-Container-Write).",
        ),
        X_CONTAINER_META: Schema(
            Schema.MAP,
            "Metadata of the container: each entry is sent as the header "
            "X-Container-Meta-<key>.",
            default={},
        ),
        X_ACCOUNT_META: Schema(
            Schema.MAP,
            "Metadata of the project's account: each entry is sent as the "
            "header X-Account-Meta-<key>.",
            default={},
        ),
        PURGE_ON_DELETE: Schema(
            Schema.BOOLEAN,
            "Whether deleting the resource deletes the objects left in the "
            "container; when false, deleting a container that is not empty "
            "fails.",
            default=False,
            support_status=api.SupportStatus(version="2015.1"),
        ),
    }

    attributes_schema = {
        DOMAIN_NAME: Attr(
            "The host name of the storage URL.", type=Attr.STRING
        ),
        WEBSITE_URL: Attr("The container's URL.", type=Attr.STRING),
        ROOT_URL: Attr(
            "The storage URL of the account holding the container.",
            type=Attr.STRING,
        ),
        OBJECT_COUNT: Attr(
            "How many objects the container holds.", type=Attr.INTEGER
        ),
        BYTES_USED: Attr(
            "How many bytes the container's objects use.", type=Attr.INTEGER
        ),
        HEAD_CONTAINER: Attr(
            "Every header of the container, by lower-case name.",
            type=Attr.MAP,
        ),
    }

    default_client_name = "swift"

    def physical_resource_name(self) -> str | None:
        name = self.properties[self.NAME]
        if name:
            return str(name)
        return super().physical_resource_name()

    def handle_create(self) -> None:
        container = str(self.physical_resource_name())
        headers = meta_headers(
            "container", self.properties[self.X_CONTAINER_META]
        )
        account_headers = meta_headers(
            "account", self.properties[self.X_ACCOUNT_META]
        )
        for key in (self.X_CONTAINER_READ, self.X_CONTAINER_WRITE):
            if self.properties[key] is not None:
                headers[key] = self.properties[key]
        LOG.debug("creating container %s with %s", container, headers)
        self.client().put_container(container, headers)
        if account_headers:
            self.client().post_account(account_headers)
        self.resource_id_set(container)

    def _objects(self) -> list[dict[str, Any]] | None:
        """The container's objects; ``None`` when it is gone."""
        try:
            return list(self.client().get_container(self.resource_id)[1])
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return None

    def _delete(self, obj: Mapping[str, Any] | None = None) -> None:
        client = self.client()
        with self.client_plugin().ignore_not_found:
            if obj is None:
                client.delete_container(self.resource_id)
            else:
                client.delete_object(self.resource_id, obj["name"])

    def handle_delete(self) -> int | None:
        if self.resource_id is None:
            return None
        objects = self._objects()
        if objects:
            if not self.properties[self.PURGE_ON_DELETE]:
                raise api.exception.ResourceActionNotSupported(
                    action=(
                        f"Deleting non-empty container ({self.resource_id}) "
                        f"when {self.PURGE_ON_DELETE} is False"
                    )
                )
            self._delete(objects.pop())
        return None if objects is None else len(objects)

    def check_delete_complete(self, remaining: int | None) -> bool:
        if remaining is None:
            # never created, or already gone
            return True
        if remaining:
            objects = self._objects()
            if objects is None:
                return True
            if objects:
                self._delete(objects.pop())
                if objects:
                    return False
        self._delete()
        return True

    def handle_check(self) -> None:
        self.client().get_container(self.resource_id)

    def get_reference_id(self) -> str:
        return str(self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        scheme, netloc, path = storage_url_parts(self.client().url)
        if name == self.DOMAIN_NAME:
            return netloc.split(":")[0]
        if name == self.WEBSITE_URL:
            return f"{scheme}://{netloc}{path}/{self.resource_id}"
        if name == self.ROOT_URL:
            return f"{scheme}://{netloc}{path}"
        if self.resource_id and name in (
            self.OBJECT_COUNT,
            self.BYTES_USED,
            self.HEAD_CONTAINER,
        ):
            try:
                headers = self.client().head_container(self.resource_id)
            except Exception as ex:
                if self.client_plugin().is_client_exception(ex):
                    LOG.warning("Head container failed: %s", ex)
                    return None
                raise
            if name == self.OBJECT_COUNT:
                return headers["x-container-object-count"]
            if name == self.BYTES_USED:
                return headers["x-container-bytes-used"]
            return headers
        return None

    def _show_resource(self) -> Any:
        return self.client().head_container(self.resource_id)

    def get_live_resource_data(self) -> dict[str, Any]:
        data = dict(super().get_live_resource_data())
        data["account_data"] = self.client().head_account()
        return data

    def parse_live_resource_data(
        self,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        # the name cannot change and PurgeOnDelete is only ours: both are
        # taken from the properties
        reality: dict[str, Any] = {
            self.NAME: resource_properties.get(self.NAME),
            self.PURGE_ON_DELETE: resource_properties.get(
                self.PURGE_ON_DELETE
            ),
            self.X_CONTAINER_META: {},
            self.X_ACCOUNT_META: {},
        }
        for key in (self.X_CONTAINER_READ, self.X_CONTAINER_WRITE):
            reality[key] = resource_data.get(key.lower())
        account = resource_data.get("account_data") or {}
        for prop, found in (
            (self.X_CONTAINER_META, resource_data),
            (self.X_ACCOUNT_META, account),
        ):
            for key in resource_properties.get(prop) or {}:
                header = f"{prop.lower()}-{key.lower()}"
                if header in found:
                    reality[prop][key] = found[header]
        return reality
