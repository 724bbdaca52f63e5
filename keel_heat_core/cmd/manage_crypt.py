"""``keel-heat-manage update-params encrypt|decrypt [KEY]``.

Heat's ``heat-manage update_params``: encrypts (or decrypts) the hidden
parameters of every stored template and every resource's properties data
with ``KEY``, or with ``auth_encryption_key`` when no key is given (see
:mod:`keel_heat_core.db.crypt_params`). ``update_params`` is accepted as
the command's name too.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection
from typing import Any

from oslo_config import cfg

from keel_heat_core.db import crypt_params
from keel_heat_core.db.database import Database
from keel_heat_core.template import parameters, versions


def hidden_parameters(template: Any) -> Collection[str]:
    """The names of the parameters a stored template declares hidden."""
    if not isinstance(template, dict):
        return ()
    tmpl: Any = versions.load(template)
    schemata = parameters.template_schemata(tmpl)
    return {name for name, schema in schemata.items() if schema.hidden}


def _cmd_update_params(conf: cfg.ConfigOpts) -> int:
    args = conf.command
    encrypt = args.crypt_operation == "encrypt"
    result = crypt_params.crypt_parameters_and_properties(
        Database.from_conf(conf),
        encrypt,
        hidden_parameters,
        key=args.previous_encryption_key or None,
        batch_size=int(args.batch_size),
    )
    done = "Encrypted" if encrypt else "Decrypted"
    print(
        f"{done} the parameters of {result.templates} templates and the "
        f"properties of {result.properties} resources"
    )
    for what, exc in result.errors:
        print(f"Failed on {what}: {type(exc).__name__}: {exc}")
    return 1 if result.errors else 0


def add_parser(subparsers: Any) -> None:
    """Add ``update-params`` to keel-heat-manage."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "update-params",
        aliases=["update_params"],
        help="encrypt or decrypt hidden parameters and properties data",
    )
    parser.add_argument("crypt_operation", choices=["encrypt", "decrypt"])
    parser.add_argument(
        "previous_encryption_key",
        nargs="?",
        default=None,
        help="the key to use instead of auth_encryption_key (decrypt with "
        "the old key before rotating it)",
    )
    parser.add_argument("-b", "--batch-size", default="50")
    # heat-manage's flag; the summary printed at the end is all we say
    parser.add_argument("--verbose-update-params", action="store_true")
    parser.set_defaults(func=_cmd_update_params)
