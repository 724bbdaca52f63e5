"""Options of the ``[noauth]`` group.

They describe who acts when ``[DEFAULT] auth_strategy = noauth``: one
fixed user in one fixed project. ``token_response`` keeps Heat's name.
"""

from oslo_config import cfg

NOAUTH_PROJECT_ID = "admin"

noauth_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "token_response",
        default="",
        help="JSON file whose content the noauth middleware returns as "
        "the token body.",
    ),
    cfg.StrOpt(
        "project_id",
        default=NOAUTH_PROJECT_ID,
        help="keel-heat only. Project every request acts in.",
    ),
    cfg.StrOpt(
        "user_id",
        default="admin",
        help="keel-heat only. User every request acts as.",
    ),
    cfg.ListOpt(
        "roles",
        default=["admin", "member", "reader", "heat_stack_owner"],
        help="keel-heat only. Roles of that user.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[noauth]`` options.

    :returns: one ``(group name, options)`` pair
    """
    return [("noauth", noauth_opts)]
