"""``keel-heat-manage packs list|check|docs``: the installed plugin packs."""

import json
import pathlib
import sys
from typing import Any

from oslo_config import cfg

from keel_heat_core import plugins
from keel_heat_core.cmd.manage import add_group
from keel_heat_core.plugin_api import schema_views, support
from keel_heat_core.plugins import reference
from keel_heat_core.plugins import registry as reg

COLUMNS = (
    "Distribution",
    "Version",
    "Types",
    "Clients",
    "Constraints",
    "Templates",
    "Enabled",
    "Errors",
)


def add_parser(subparsers: Any) -> None:
    """Add ``packs list`` and ``packs check``."""
    commands = add_group(subparsers, "packs", "installed plugin packs")
    listing = commands.add_parser(
        "list", help="each pack: distribution, version, types, errors"
    )
    listing.add_argument(
        "--long", action="store_true", help="also list the names"
    )
    listing.add_argument(
        "--format", choices=("table", "json"), default="table"
    )
    listing.set_defaults(func=list_packs)
    check = commands.add_parser(
        "check", help="load every plugin; fail on any problem"
    )
    check.set_defaults(func=check_packs)
    docs = commands.add_parser(
        "docs",
        help="the reference of the installed resource types (Markdown)",
    )
    docs.add_argument(
        "types", nargs="*", metavar="TYPE", help="only these types"
    )
    docs.add_argument(
        "--output-dir",
        help="write one page per type and an index.md there, instead of "
        "printing the pages",
    )
    docs.set_defaults(func=type_docs)


def _registry(conf: cfg.ConfigOpts) -> plugins.PluginRegistry:
    registry = plugins.PluginRegistry(
        reg.discover(),
        disabled_packs=conf.plugins.disabled_packs,
        disabled_types=conf.plugins.disabled_types,
    )
    registry.load_all()
    return registry


def _names(registry: plugins.PluginRegistry, dist: str) -> list[str]:
    key = reg.canonical_name(dist)
    return [
        f"{group}: {name}"
        for group in reg.NAMED_GROUPS
        for name in registry.names(group)
        if reg.canonical_name(registry.entry(group, name).distribution) == key
    ]


def pack_rows(registry: plugins.PluginRegistry) -> list[dict[str, Any]]:
    """Describe each pack as a dict (the JSON output)."""
    return [
        {
            "distribution": p.distribution,
            "version": p.version,
            "types": p.resource_types,
            "clients": p.counts.get(reg.CLIENTS, 0),
            "constraints": p.counts.get(reg.CONSTRAINTS, 0),
            "templates": p.counts.get(reg.TEMPLATES, 0),
            "enabled": p.enabled,
            "load_errors": dict(p.load_errors),
            "names": _names(registry, p.distribution),
        }
        for p in registry.packs()
    ]


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines)


def list_packs(conf: cfg.ConfigOpts) -> int:
    """Print the installed packs and client plugins."""
    registry = _registry(conf)
    rows = pack_rows(registry)
    if conf.command.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    table = [list(COLUMNS)]
    for row in rows:
        table.append(
            [
                row["distribution"],
                row["version"],
                str(row["types"]),
                str(row["clients"]),
                str(row["constraints"]),
                str(row["templates"]),
                "yes" if row["enabled"] else "no",
                str(len(row["load_errors"])),
            ]
        )
    print(_table(table))
    for row in rows:
        for key, message in row["load_errors"].items():
            print(f"{row['distribution']}: {key}: {message}")
        if conf.command.long:
            for name in row["names"]:
                print(f"{row['distribution']}: {name}")
    return 0


def check_packs(conf: cfg.ConfigOpts) -> int:
    """Run every start-up check and load every plugin.

    :returns: 0 when all is well, 1 otherwise (problems on stderr)
    """
    try:
        loaded = plugins.load_plugins(conf)
    except plugins.PluginError as exc:
        print(f"packs check: {exc}", file=sys.stderr)
        return 1
    failures = loaded.registry.load_all()
    for key, message in failures.items():
        print(f"packs check: {key}: {message}", file=sys.stderr)
    if failures:
        return 1
    count = sum(len(loaded.registry.names(g)) for g in reg.NAMED_GROUPS)
    print(f"packs check: {count} plugins load without error")
    return 0


def _visible_schemas(
    registry: plugins.PluginRegistry, wanted: list[str]
) -> dict[str, tuple[dict[str, Any], reg.PluginEntry]]:
    out = {}
    for name in registry.names(reg.RESOURCES):
        if wanted and name not in wanted:
            continue
        cls = registry.load(reg.RESOURCES, name)
        status = getattr(cls, "support_status", support.SupportStatus())
        if support.is_hidden(status):
            continue
        schema = schema_views.resource_schema(cls, name, True)
        out[name] = (schema, registry.entry(reg.RESOURCES, name))
    return out


def type_docs(conf: cfg.ConfigOpts) -> int:
    """Print (or write) the reference page of each visible type.

    :returns: 0, or 1 when a type asked for is not installed or hidden
    """
    wanted = list(conf.command.types or [])
    found = _visible_schemas(_registry(conf), wanted)
    missing = sorted(set(wanted) - set(found))
    if missing:
        print(
            f"packs docs: not installed or hidden: {', '.join(missing)}",
            file=sys.stderr,
        )
        return 1
    pages = {
        name: reference.render_type(schema, entry.distribution, entry.version)
        for name, (schema, entry) in sorted(found.items())
    }
    if not conf.command.output_dir:
        print("\n".join(pages.values()), end="")
        return 0
    target = pathlib.Path(conf.command.output_dir)
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*.md"):
        stale.unlink()
    for name, page in pages.items():
        (target / reference.file_name(name)).write_text(page)
    index = {
        name: (entry.distribution, reference.status_text(schema))
        for name, (schema, entry) in found.items()
    }
    (target / "index.md").write_text(reference.render_index(index))
    print(f"packs docs: {len(pages)} types written to {target}")
    return 0
