"""Options of the API distribution.

The ``[api]`` group is the API's own. The ``[DEFAULT]``/``[revision]``
options the API reads (``max_json_body_size``, ``max_template_size``,
``template_fetch_timeout``, ``max_nested_stack_depth``, ``debug``,
``heat_revision``) belong to ``keel_heat_core.conf``; the fallbacks below
(Heat's names and defaults) are registered only where it has none.
"""

from __future__ import annotations

from collections.abc import Sequence

from oslo_config import cfg

from keel_heat_core import conf as core_conf

API_GROUP = "api"

#: the entry-point name of /healthcheck's database backend, which
#: ``[healthcheck] backends`` lists by default
DATABASE_BACKEND = "keel_heat_database"

api_opts = [
    cfg.StrOpt(
        "auth_strategy",
        default="keystone",
        choices=["keystone", "noauth"],
        help="How requests are authenticated: keystonemiddleware's "
        "auth_token, or 'noauth' for the embedded single-project mode, "
        "where every request acts in noauth_project_id.",
    ),
    cfg.StrOpt(
        "noauth_project_id",
        default="embedded",
        help="The project every request belongs to when auth_strategy is "
        "noauth.",
    ),
    cfg.StrOpt(
        "noauth_user_id",
        default="embedded",
        help="The user every request acts as when auth_strategy is noauth.",
    ),
    cfg.ListOpt(
        "noauth_roles",
        default=["admin", "member", "reader"],
        help="The roles of every request when auth_strategy is noauth.",
    ),
]

fallback_default_opts = [
    cfg.IntOpt("max_json_body_size", default=1048576),
    cfg.IntOpt("max_template_size", default=524288),
    cfg.FloatOpt("template_fetch_timeout", default=60, min=0),
    cfg.IntOpt("max_nested_stack_depth", default=5),
    cfg.BoolOpt("debug", default=False),
]
fallback_revision_opts = [cfg.StrOpt("heat_revision", default="unknown")]


def _register_missing(
    conf: cfg.ConfigOpts, opts: Sequence[cfg.Opt], group: str | None
) -> None:
    for opt in opts:
        try:
            if group is None:
                conf._get(opt.dest)
            else:
                conf._get(opt.dest, group)
        except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
            conf.register_opt(opt, group=group)


def _register_middleware_opts(conf: cfg.ConfigOpts) -> None:
    """Register the middleware's options before the files are read.

    The middleware would register them when built, which is too late for
    a configuration parsed (or overridden) beforehand; their sample
    options come from the libraries' own generator namespaces.
    """
    from keystonemiddleware import auth_token
    from oslo_middleware import cors, http_proxy_to_wsgi
    from oslo_middleware.healthcheck import opts as healthcheck_opts

    groups: list[tuple[str, Sequence[cfg.Opt]]] = [
        ("cors", cors.CORS_OPTS),
        ("oslo_middleware", http_proxy_to_wsgi.OPTS),
        ("healthcheck", healthcheck_opts.HEALTHCHECK_OPTS),
        # the backends' own, which they would register only when built
        ("healthcheck", healthcheck_opts.DISABLE_BY_FILE_OPTS),
        ("healthcheck", healthcheck_opts.DISABLE_BY_FILES_OPTS),
        ("healthcheck", healthcheck_opts.ENABLE_BY_FILES_OPTS),
    ]
    groups += [(g, o) for g, o in auth_token.list_opts()]
    for group, group_opts in groups:
        for opt in group_opts:
            try:
                conf.register_opt(opt, group=group)
            except cfg.DuplicateOptError:
                continue
    conf.set_default("backends", [DATABASE_BACKEND], group="healthcheck")


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the API's options and any core option still missing."""
    core_conf.register_opts(conf)
    conf.register_opts(api_opts, group=API_GROUP)
    _register_missing(conf, fallback_default_opts, None)
    _register_middleware_opts(conf)
    _register_missing(conf, fallback_revision_opts, "revision")


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the API's own options for oslo-config-generator."""
    return [(API_GROUP, api_opts)]
