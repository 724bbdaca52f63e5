"""Who is asking: the project a query is limited to.

The repositories never see a request context; the caller passes a
:class:`Scope`. An admin scope sees every project's rows.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Scope:
    """The project a query runs for.

    :ivar project_id: the caller's project id (Heat's ``tenant_id``).
    :ivar is_admin: when true, rows of every project are visible.
    """

    project_id: str | None = None
    is_admin: bool = False


ADMIN = Scope(project_id=None, is_admin=True)
