"""Options of the ``[DEFAULT]`` group.

Names, types and defaults follow Heat 27 wherever the meaning is the same,
so that a ``heat.conf`` carries over. Options that only keel-heat has are
marked as such in their help text.
"""

import socket

from oslo_config import cfg

#: Heat's well-known default; start-up warns when it is still in use.
DEFAULT_AUTH_ENCRYPTION_KEY = "notgood but just long enough i t"

rpc_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "host",
        default=socket.gethostname(),
        sample_default="<Hostname>",
        help="Name of this engine node, used as the RPC server name. Any "
        "opaque identifier will do; it need not be a host name.",
    ),
]

service_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "periodic_interval",
        default=60,
        help="Seconds between two runs of the periodic tasks (the "
        "service heartbeat).",
    ),
    cfg.StrOpt(
        "heat_metadata_server_url",
        help="URL of the metadata server (the CFN API) handed to "
        "servers; only needed when it differs from the catalog.",
    ),
    cfg.StrOpt(
        "heat_waitcondition_server_url",
        help="URL of the wait condition server (the CFN API).",
    ),
    cfg.StrOpt(
        "instance_connection_is_secure",
        default="0",
        help="Whether servers reach the CFN API over https.",
    ),
    cfg.StrOpt(
        "instance_connection_https_validate_certificates",
        default="1",
        help="Whether servers validate the CFN API certificate when "
        "https is used.",
    ),
    cfg.StrOpt(
        "region_name_for_services",
        help="Region used to look service endpoints up in the catalog.",
    ),
    cfg.StrOpt(
        "heat_stack_user_role",
        default="heat_stack_user",
        help="Keystone role given to users created by templates.",
    ),
    cfg.StrOpt(
        "stack_user_domain_id",
        deprecated_opts=[cfg.DeprecatedOpt("stack_user_domain")],
        help="ID of the Keystone domain that holds template-defined "
        "users. Wins over stack_user_domain_name.",
    ),
    cfg.StrOpt(
        "stack_user_domain_name",
        help="Name of the Keystone domain that holds template-defined "
        "users; ignored when stack_user_domain_id is set.",
    ),
    cfg.StrOpt(
        "stack_domain_admin",
        help="User name of a user allowed to manage users and projects "
        "in the stack user domain.",
    ),
    cfg.StrOpt(
        "stack_domain_admin_password",
        secret=True,
        help="Password of the stack_domain_admin user.",
    ),
    cfg.IntOpt(
        "num_engine_workers",
        help="Number of engine worker processes. When unset, the larger "
        "of 4 and the number of CPUs.",
    ),
]

limit_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "max_template_size",
        default=524288,
        help="Largest template accepted, in bytes.",
    ),
    cfg.IntOpt(
        "max_nested_stack_depth",
        default=5,
        help="Deepest nesting of stacks allowed.",
    ),
    cfg.IntOpt(
        "max_resources_per_stack",
        default=1000,
        help="Most resources in one top-level stack; -1 for no limit.",
    ),
    cfg.IntOpt(
        "max_stacks_per_tenant",
        default=512,
        help="Most top-level stacks a project may have at once; -1 for "
        "no limit. Admins are exempt.",
    ),
    cfg.IntOpt(
        "max_software_configs_per_tenant",
        default=4096,
        help="Most software configs a project may have.",
    ),
    cfg.IntOpt(
        "max_software_deployments_per_tenant",
        default=4096,
        help="Most software deployments a project may have.",
    ),
    cfg.IntOpt(
        "max_snapshots_per_stack",
        default=32,
        help="Most snapshots one stack may have.",
    ),
    cfg.IntOpt(
        "max_events_per_stack",
        default=1000,
        help="Rough number of events kept per stack; older ones are "
        "purged. 0 keeps them all.",
    ),
    cfg.IntOpt(
        "event_purge_batch_size",
        min=1,
        default=200,
        help="How many events one purge removes.",
    ),
    cfg.IntOpt(
        "max_json_body_size",
        default=1048576,
        help="Largest JSON request body accepted, in bytes.",
    ),
    cfg.FloatOpt(
        "template_fetch_timeout",
        default=60.0,
        min=0,
        help="Seconds allowed to download a template given by URL.",
    ),
]

engine_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "environment_dir",
        default="/etc/keel-heat/environment.d",
        help="Directory of the global environment files.",
    ),
    cfg.StrOpt(
        "template_dir",
        default="/etc/keel-heat/templates",
        help="Directory of templates referenced by the global environment.",
    ),
    cfg.StrOpt(
        "deferred_auth_method",
        choices=["password", "trusts"],
        default="trusts",
        deprecated_for_removal=True,
        deprecated_reason="Stored passwords do not work with Keystone v3.",
        deprecated_since="9.0.0",
        help="How work that outlives the user's token authenticates.",
    ),
    cfg.StrOpt(
        "reauthentication_auth_method",
        choices=["", "trusts"],
        default="",
        help="Re-authenticate with a trust when a token expires, so that "
        "long operations can finish.",
    ),
    cfg.BoolOpt(
        "allow_trusts_redelegation",
        default=False,
        help="Create trusts that may be redelegated (only with "
        "reauthentication_auth_method = trusts).",
    ),
    cfg.ListOpt(
        "trusts_delegated_roles",
        default=[],
        help="Roles of the trustor delegated in a trust; empty "
        "delegates all of them.",
    ),
    cfg.IntOpt(
        "action_retry_limit",
        default=5,
        help="Times a resource in an error state is retried; 0 turns "
        "retries off.",
    ),
    cfg.IntOpt(
        "client_retry_limit",
        default=2,
        help="Times a client retries an expected intermittent error; 0 "
        "turns retries off.",
    ),
    cfg.IntOpt(
        "stack_action_timeout",
        default=3600,
        help="Seconds a stack action (create, update…) may take.",
    ),
    cfg.StrOpt(
        "default_notification_level",
        default="INFO",
        help="Level of the notifications the engine sends.",
    ),
    cfg.IntOpt(
        "error_wait_time",
        default=240,
        help="Seconds that running tasks may go on after an error "
        "before they are cancelled.",
    ),
    cfg.IntOpt(
        "engine_life_check_timeout",
        default=2,
        help="RPC timeout of the engine liveness probe used by locks.",
    ),
    cfg.FloatOpt(
        "resume_interval",
        default=10.0,
        min=0.1,
        help="Seconds between two passes of the automatic resume of "
        "stalled traversals (not a Heat option): the locks of a dead "
        "engine are taken over on the next pass, a lost message is "
        "re-sent after two passes without progress.",
    ),
    cfg.BoolOpt(
        "enable_stack_abandon",
        default=False,
        help="Allow stack abandon and export.",
    ),
    cfg.BoolOpt(
        "enable_stack_adopt",
        default=False,
        help="Allow stack adopt.",
    ),
    cfg.BoolOpt(
        "convergence_engine",
        default=True,
        help="Create new stacks with the convergence engine.",
    ),
    cfg.BoolOpt(
        "observe_on_update",
        default=False,
        help="On update, read the actual properties of resources and "
        "converge to the new template from them.",
    ),
    cfg.StrOpt(
        "default_software_config_transport",
        choices=[
            "POLL_SERVER_CFN",
            "POLL_SERVER_HEAT",
            "POLL_TEMP_URL",
            "ZAQAR_MESSAGE",
        ],
        default="POLL_SERVER_CFN",
        help="Template default for how servers receive their software "
        "configuration metadata.",
    ),
    cfg.StrOpt(
        "default_deployment_signal_transport",
        choices=[
            "CFN_SIGNAL",
            "TEMP_URL_SIGNAL",
            "HEAT_SIGNAL",
            "ZAQAR_SIGNAL",
        ],
        default="CFN_SIGNAL",
        help="Template default for how servers signal deployment "
        "outputs back.",
    ),
    cfg.StrOpt(
        "default_user_data_format",
        choices=["HEAT_CFNTOOLS", "RAW", "SOFTWARE_CONFIG"],
        default="HEAT_CFNTOOLS",
        help="Template default for the format of server user_data.",
    ),
    cfg.ListOpt(
        "hidden_stack_tags",
        default=[],
        help="Stacks carrying any of these tags are hidden from lists "
        "unless show_hidden is asked for.",
    ),
    cfg.BoolOpt(
        "stack_scheduler_hints",
        default=False,
        help="Pass the stack context of servers and volumes to the Nova "
        "and Cinder schedulers as hints.",
    ),
    cfg.BoolOpt(
        "encrypt_parameters_and_properties",
        default=False,
        help="Encrypt hidden parameters and all resource properties "
        "before they are stored.",
    ),
    cfg.StrOpt(
        "auth_encryption_key",
        secret=True,
        default=DEFAULT_AUTH_ENCRYPTION_KEY,
        help="Key used to encrypt credentials and hidden data in the "
        "database: 32 characters.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[DEFAULT]`` options this module defines.

    :returns: one ``(group name, options)`` pair
    """
    opts = [*rpc_opts, *service_opts, *limit_opts, *engine_opts]
    return [("DEFAULT", opts)]
