"""``OS::Heat::MultipartMime``: several configs in one MIME message."""

from __future__ import annotations

import email
import os
from email.mime import multipart, text
from email.mime.base import MIMEBase
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.errors import is_error_named
from keel_heat_pack_heat.software_config import SoftwareConfig

Schema = api.properties.Schema


class MultipartMime(SoftwareConfig):
    """Assembles configs into one multipart MIME message for cloud-init.

    Each part is text given inline or the id of another software config
    (whose text is used); a ``multipart`` part is itself a MIME message
    whose parts are copied in.
    """

    support_status = api.SupportStatus(version="2014.1")

    PROPERTIES = (PARTS, CONFIG, FILENAME, SUBTYPE, TYPE, GROUP) = (
        "parts",
        "config",
        "filename",
        "subtype",
        "type",
        "group",
    )
    TYPES = (TEXT, MULTIPART) = ("text", "multipart")

    properties_schema = {
        PARTS: Schema(
            Schema.LIST,
            "The parts of the message, in order.",
            default=[],
            schema=Schema(
                Schema.MAP,
                schema={
                    CONFIG: Schema(
                        Schema.STRING,
                        "The part's text, or a software config id.",
                        required=True,
                    ),
                    FILENAME: Schema(
                        Schema.STRING, "A file name for the part."
                    ),
                    SUBTYPE: Schema(
                        Schema.STRING, "The MIME subtype of a text part."
                    ),
                    TYPE: Schema(
                        Schema.STRING,
                        "Whether the part is text or a multipart message.",
                        default=TEXT,
                        constraints=[api.constraints.AllowedValues(TYPES)],
                    ),
                },
            ),
        ),
        GROUP: Schema(
            Schema.STRING,
            "The tool that applies the config on the server.",
            default="Heat::Ungrouped",
            support_status=api.SupportStatus(version="14.0.0"),
        ),
    }

    message: str | None = None

    def handle_create(self) -> None:
        self._create_config(
            config=self.get_message(), group=self.properties[self.GROUP]
        )

    def _part_text(self, config: str) -> str:
        try:
            sc = self.rpc_client().show_software_config(self.context, config)
        except Exception as exc:
            if not is_error_named(exc, "NotFound"):
                raise
            return config
        return str(sc["config"])

    def get_message(self) -> str:
        """The MIME message (computed once)."""
        if self.message:
            return self.message
        subparts: list[MIMEBase] = []
        for item in self.properties[self.PARTS]:
            part = self._part_text(item.get(self.CONFIG))
            if item.get(self.TYPE) == self.MULTIPART:
                self._append_multiparts(subparts, part)
            else:
                self._append_part(
                    subparts,
                    part,
                    item.get(self.SUBTYPE) or "",
                    item.get(self.FILENAME) or "",
                )
        self.message = multipart.MIMEMultipart(_subparts=subparts).as_string()
        return self.message

    @staticmethod
    def _append_multiparts(subparts: list[MIMEBase], blob: str) -> None:
        parsed = email.message_from_string(blob)
        if not parsed or not parsed.is_multipart():
            return
        for part in parsed.get_payload():
            MultipartMime._append_part(
                subparts,
                part.get_payload(),
                part.get_content_subtype(),
                part.get_filename() or "",
            )

    @staticmethod
    def _append_part(
        subparts: list[MIMEBase], part: Any, subtype: str, filename: str
    ) -> None:
        if not subtype and filename:
            subtype = os.path.splitext(filename)[0]
        charset = "us-ascii"
        try:
            part.encode(charset)
        except UnicodeEncodeError:
            charset = "utf-8"
        if subtype:
            msg = text.MIMEText(part, _subtype=subtype, _charset=charset)
        else:
            msg = text.MIMEText(part, _charset=charset)
        if filename:
            msg.add_header(
                "Content-Disposition", "attachment", filename=filename
            )
        subparts.append(msg)
