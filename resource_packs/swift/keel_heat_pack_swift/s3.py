"""``AWS::S3::Bucket``: a Swift container in the words of S3."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_swift.container import storage_url_parts

Schema = api.properties.Schema
Attr = api.attributes.Schema

#: S3's canned ACLs accepted by ``AccessControl``.
CANNED_ACLS = (
    "Private",
    "PublicRead",
    "PublicReadWrite",
    "AuthenticatedRead",
    "BucketOwnerRead",
    "BucketOwnerFullControl",
)


def acl_headers(
    access_control: str | None, project_name: str, username: str
) -> dict[str, str]:
    """Swift's ACL headers for an S3 canned ACL.

    Public ACLs open the container to any referrer (``.r:*``);
    ``AuthenticatedRead`` lets the project read; everything else keeps
    reading and writing to the creating user (``<project>:<user>``).
    """
    owner = f"{project_name}:{username}"
    if access_control in ("PublicRead", "PublicReadWrite"):
        read = ".r:*"
    elif access_control == "AuthenticatedRead":
        read = project_name
    else:
        read = owner
    write = ".r:*" if access_control == "PublicReadWrite" else owner
    return {"X-Container-Read": read, "X-Container-Write": write}


class S3Bucket(api.Resource):
    """An S3-style bucket, made as a Swift container of the project.

    ``AccessControl`` is turned into the container's read and write ACLs,
    ``Tags`` into ``X-Container-Meta-S3-Tag-<Key>`` metadata and
    ``WebsiteConfiguration`` into the index and error pages of Swift's
    static web middleware. Any change makes a new bucket; a bucket that
    still holds objects cannot be deleted.
    """

    PROPERTIES = (ACCESS_CONTROL, WEBSITE_CONFIGURATION, TAGS) = (
        "AccessControl",
        "WebsiteConfiguration",
        "Tags",
    )
    _WEBSITE_KEYS = (INDEX_DOCUMENT, ERROR_DOCUMENT) = (
        "IndexDocument",
        "ErrorDocument",
    )
    _TAG_KEYS = (TAG_KEY, TAG_VALUE) = ("Key", "Value")
    ATTRIBUTES = (DOMAIN_NAME, WEBSITE_URL) = ("DomainName", "WebsiteURL")

    properties_schema = {
        ACCESS_CONTROL: Schema(
            Schema.STRING,
            "A canned access control list of S3, applied as the "
            "container's ACLs.",
            constraints=[api.constraints.AllowedValues(list(CANNED_ACLS))],
        ),
        WEBSITE_CONFIGURATION: Schema(
            Schema.MAP,
            "The pages served when the bucket is used as a static web site.",
            schema={
                INDEX_DOCUMENT: Schema(
                    Schema.STRING, "The object served as the index page."
                ),
                ERROR_DOCUMENT: Schema(
                    Schema.STRING, "The object served for errors."
                ),
            },
        ),
        TAGS: Schema(
            Schema.LIST,
            "Key and value pairs stored as the bucket's metadata.",
            schema=Schema(
                Schema.MAP,
                schema={
                    TAG_KEY: Schema(
                        Schema.STRING, "The tag's name.", required=True
                    ),
                    TAG_VALUE: Schema(
                        Schema.STRING, "The tag's value.", required=True
                    ),
                },
            ),
        ),
    }

    attributes_schema = {
        DOMAIN_NAME: Attr(
            "The host name of the bucket's storage URL.", type=Attr.STRING
        ),
        WEBSITE_URL: Attr("The bucket's URL.", type=Attr.STRING),
    }

    default_client_name = "swift"

    def tags_to_headers(self) -> dict[str, str]:
        """The ``X-Container-Meta-S3-Tag-<Key>`` headers of ``Tags``."""
        return {
            f"X-Container-Meta-S3-Tag-{tag[self.TAG_KEY]}": tag[self.TAG_VALUE]
            for tag in self.properties[self.TAGS] or []
        }

    def handle_create(self) -> None:
        container = str(self.physical_resource_name())
        headers: dict[str, Any] = self.tags_to_headers()
        website = self.properties[self.WEBSITE_CONFIGURATION]
        if website is not None:
            # for Swift's staticweb middleware
            headers["X-Container-Meta-Web-Index"] = website[
                self.INDEX_DOCUMENT
            ]
            headers["X-Container-Meta-Web-Error"] = website[
                self.ERROR_DOCUMENT
            ]
        headers = {k: v for k, v in headers.items() if v is not None}
        headers.update(
            acl_headers(
                self.properties[self.ACCESS_CONTROL],
                self._project_name(),
                str(getattr(self.context, "username", None)),
            )
        )
        self.client().put_container(container, headers)
        self.resource_id_set(container)

    def _project_name(self) -> str:
        """The stack's project name: the context's, else the one of the
        token the context's session holds (a stored stack context may
        know only the project's id)."""
        name = getattr(self.context, "project_name", None)
        if not name:
            session = self.client().session
            access = session.auth.get_access(session)
            name = access.project_name
        return str(name)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        plugin = self.client_plugin()
        try:
            self.client().delete_container(self.resource_id)
        except Exception as ex:
            if plugin.is_conflict(ex):
                objects = self.client().get_container(self.resource_id)[1]
                if objects:
                    raise api.exception.ResourceActionNotSupported(
                        action=(
                            "The bucket you tried to delete is not empty "
                            f"({self.resource_id})."
                        )
                    ) from ex
            plugin.ignore_not_found(ex)

    def get_reference_id(self) -> str:
        return str(self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        scheme, netloc, path = storage_url_parts(self.client().get_auth()[0])
        if name == self.DOMAIN_NAME:
            return netloc.split(":")[0]
        if name == self.WEBSITE_URL:
            return f"{scheme}://{netloc}{path}/{self.resource_id}"
        return None
