"""The plugin registry: every named plugin and the distribution that gave it.

It reads the ``keel_heat.*`` entry points from :mod:`importlib.metadata`
rather than through stevedore, because stevedore keeps the last of two
same-named entry points without telling which distribution each came
from. Loading is lazy; a failure is recorded against its distribution and
is fatal only for a pack listed in ``[plugins] required_packs``. Callers
that want stevedore's manager API get one from
:meth:`PluginRegistry.extension_manager`.
"""

import dataclasses
import fnmatch
import importlib.metadata as metadata
import re
from collections.abc import Iterable, Iterator
from typing import Any

from oslo_log import log as logging
from packaging.specifiers import SpecifierSet
from packaging.version import Version
from stevedore import extension

from keel_heat_core.plugin_api import version as api_version
from keel_heat_core.plugins import errors

LOG = logging.getLogger(__name__)

RESOURCES = "keel_heat.resources"
CLIENTS = "keel_heat.clients"
CONSTRAINTS = "keel_heat.constraints"
TEMPLATES = "keel_heat.templates"
EVENT_SINKS = "keel_heat.event_sinks"
HOOKS = "keel_heat.hooks"

#: The distribution whose plugins are the core's own: it ships the plugin
#: API, so it declares no range of it.
CORE_DISTRIBUTION = "keel-heat-core"

#: Groups in which a name means one implementation.
NAMED_GROUPS = (RESOURCES, CLIENTS, CONSTRAINTS, TEMPLATES, EVENT_SINKS)
ALL_GROUPS = (*NAMED_GROUPS, HOOKS)


def canonical_name(name: str) -> str:
    """Normalise a distribution name the way PyPI does (PEP 503).

    :param name: a distribution name as written anywhere
    :returns: lower case, runs of ``-_.`` replaced by ``-``
    """
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclasses.dataclass(frozen=True)
class PluginEntry:
    """One entry point of a ``keel_heat.*`` group."""

    group: str
    name: str
    value: str
    distribution: str
    version: str
    entry_point: metadata.EntryPoint
    #: the entry point of the distribution's plugin API range
    #: (:mod:`keel_heat_core.plugin_api.version`), None when undeclared
    api_requires: metadata.EntryPoint | None = None

    @property
    def origin(self) -> str:
        """``distribution version``, as messages show it."""
        return f"{self.distribution} {self.version}"


@dataclasses.dataclass
class PackInfo:
    """What one distribution contributes."""

    distribution: str
    version: str
    enabled: bool = True
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    load_errors: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def resource_types(self) -> int:
        """Number of resource types the distribution registers."""
        return self.counts.get(RESOURCES, 0)


def discover(
    distributions: Iterable[metadata.Distribution] | None = None,
) -> Iterator[PluginEntry]:
    """Yield every ``keel_heat.*`` entry point of the installed distributions.

    A distribution found twice on the path (an editable install shadowed
    by another copy, say) counts once, first one wins, as in
    :func:`importlib.metadata.entry_points`.

    :param distributions: what to scan; the installed ones by default
    """
    seen: set[str] = set()
    if distributions is None:
        distributions = metadata.distributions()
    for dist in distributions:
        name = dist.metadata["Name"]
        if not name or canonical_name(name) in seen:
            continue
        seen.add(canonical_name(name))
        requires = _api_requires(dist)
        for ep in dist.entry_points:
            if ep.group in ALL_GROUPS:
                yield PluginEntry(
                    ep.group,
                    ep.name,
                    ep.value,
                    name,
                    dist.version,
                    ep,
                    requires,
                )


def _api_requires(dist: metadata.Distribution) -> metadata.EntryPoint | None:
    for ep in dist.entry_points:
        if (ep.group, ep.name) == (
            api_version.REQUIRES_GROUP,
            api_version.REQUIRES_NAME,
        ):
            return ep
    return None


def check_api_version(entry: PluginEntry) -> None:
    """Refuse a distribution made for another version of the plugin API.

    The core's own distribution is not checked; any other must declare
    the range it supports (:mod:`keel_heat_core.plugin_api.version`).

    :raises PluginApiVersionError: the distribution declares no range, an
        unreadable one, or one without :data:`PLUGIN_API_VERSION`
    """
    if canonical_name(entry.distribution) == CORE_DISTRIBUTION:
        return
    current = api_version.PLUGIN_API_VERSION
    if entry.api_requires is None:
        raise errors.PluginApiVersionError(
            entry.origin,
            None,
            current,
            f"declares no supported plugin API range (an entry point "
            f"{api_version.REQUIRES_NAME!r} in group "
            f"{api_version.REQUIRES_GROUP!r})",
            _core_version(),
        )
    try:
        declared = entry.api_requires.load()
        supported = SpecifierSet(str(declared))
    except Exception as exc:  # an import error, a bad specifier
        raise errors.PluginApiVersionError(
            entry.origin,
            entry.api_requires.value,
            current,
            f"declares an unreadable plugin API range: {exc}",
            _core_version(),
        ) from exc
    if Version(current) not in supported:
        raise errors.PluginApiVersionError(
            entry.origin, str(supported), current, None, _core_version()
        )


def _core_version() -> str:
    try:
        return metadata.version(CORE_DISTRIBUTION)
    except metadata.PackageNotFoundError:  # a source tree, not installed
        return "(not installed)"


def _type_disabled(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


class PluginRegistry:
    """The named plugins of one process, checked for duplicates.

    :param entries: entry points as :func:`discover` yields them
    :param disabled_packs: distributions whose entries are ignored
    :param disabled_types: resource type names or ``*`` patterns to drop
    :raises DuplicatePluginError: when two enabled distributions register
        one name in one group
    """

    def __init__(
        self,
        entries: Iterable[PluginEntry],
        disabled_packs: Iterable[str] = (),
        disabled_types: Iterable[str] = (),
    ) -> None:
        disabled = {canonical_name(p) for p in disabled_packs}
        patterns = list(disabled_types)
        self._entries: dict[tuple[str, str], PluginEntry] = {}
        self._hooks: list[PluginEntry] = []
        self._packs: dict[str, PackInfo] = {}
        self._loaded: dict[tuple[str, str], Any] = {}
        self._api_checked: dict[str, errors.PluginApiVersionError | None] = {}
        for entry in entries:
            key = canonical_name(entry.distribution)
            pack = self._packs.setdefault(
                key, PackInfo(entry.distribution, entry.version)
            )
            if key in disabled:
                pack.enabled = False
                continue
            if entry.group == RESOURCES and _type_disabled(
                entry.name, patterns
            ):
                continue
            pack.counts[entry.group] = pack.counts.get(entry.group, 0) + 1
            if entry.group == HOOKS:
                self._hooks.append(entry)
                continue
            other = self._entries.get((entry.group, entry.name))
            if other is not None:
                raise errors.DuplicatePluginError(
                    entry.group, entry.name, other.origin, entry.origin
                )
            self._entries[(entry.group, entry.name)] = entry

    def names(self, group: str) -> list[str]:
        """Return the sorted names registered in ``group``."""
        return sorted(n for g, n in self._entries if g == group)

    def entry(self, group: str, name: str) -> PluginEntry:
        """Return the entry registered as ``name`` in ``group``.

        :raises KeyError: when nothing is registered under that name
        """
        return self._entries[(group, name)]

    def load(self, group: str, name: str) -> Any:
        """Import and return the object registered as ``name``.

        :raises KeyError: when nothing is registered under that name
        :raises PluginApiVersionError: the distribution is made for
            another version of the plugin API (:func:`check_api_version`)
        :raises PluginLoadError: when the import fails; the failure is
            also recorded on the distribution's :class:`PackInfo`
        """
        key = (group, name)
        if key not in self._loaded:
            entry = self._entries[key]
            try:
                self._check_api(entry)
            except errors.PluginApiVersionError as exc:
                self._record_error(entry, exc)
                raise
            try:
                self._loaded[key] = entry.entry_point.load()
            except Exception as exc:
                self._record_error(entry, exc)
                raise errors.PluginLoadError(
                    f"{group} {name!r} from {entry.origin} failed to load: "
                    f"{exc}"
                ) from exc
        return self._loaded[key]

    def check_api_versions(self) -> None:
        """Refuse every enabled distribution made for another plugin API.

        The engine loads plugins from several places (the global
        environment, the constraint and client registries), so start-up
        checks every distribution at once rather than waiting for a load.

        :raises PluginApiVersionError: naming the one refused distribution
        :raises PluginError: naming each, when several are refused
        """
        first: dict[str, PluginEntry] = {}
        for entry in [*self._entries.values(), *self._hooks]:
            first.setdefault(canonical_name(entry.distribution), entry)
        refused = []
        for _, entry in sorted(first.items()):
            try:
                self._check_api(entry)
            except errors.PluginApiVersionError as exc:
                refused.append(exc)
        if len(refused) == 1:
            raise refused[0]
        if refused:
            raise errors.PluginError(" ".join(str(e) for e in refused))

    def _check_api(self, entry: PluginEntry) -> None:
        """:func:`check_api_version`, once per distribution."""
        dist = canonical_name(entry.distribution)
        if dist not in self._api_checked:
            try:
                check_api_version(entry)
            except errors.PluginApiVersionError as exc:
                self._api_checked[dist] = exc
                raise
            self._api_checked[dist] = None
        refused = self._api_checked[dist]
        if refused is not None:
            raise refused

    def _record_error(self, entry: PluginEntry, exc: BaseException) -> None:
        pack = self._packs[canonical_name(entry.distribution)]
        pack.load_errors[f"{entry.group}:{entry.name}"] = (
            f"{type(exc).__name__}: {exc}"
        )
        LOG.error(
            "Plugin %s of %s failed to load: %s",
            entry.name,
            entry.origin,
            exc,
        )

    def load_all(self, distribution: str | None = None) -> dict[str, str]:
        """Load every entry (of one distribution), recording failures.

        :param distribution: restrict to this distribution
        :returns: the failures, ``group:name`` → message
        """
        failures: dict[str, str] = {}
        for (group, name), entry in sorted(self._entries.items()):
            if distribution is not None and canonical_name(
                entry.distribution
            ) != canonical_name(distribution):
                continue
            try:
                self.load(group, name)
            except errors.PluginApiVersionError as exc:
                failures[f"{group}:{name}"] = str(exc)
            except errors.PluginLoadError as exc:
                failures[f"{group}:{name}"] = str(exc.__cause__ or exc)
        return failures

    def hook_entries(self) -> list[PluginEntry]:
        """Return the ``keel_heat.hooks`` entries of enabled packs."""
        return list(self._hooks)

    def packs(self) -> list[PackInfo]:
        """Return what each distribution contributes, sorted by name."""
        return sorted(
            self._packs.values(), key=lambda p: canonical_name(p.distribution)
        )

    def pack(self, distribution: str) -> PackInfo:
        """Return one distribution's :class:`PackInfo`.

        :raises KeyError: when it registers no ``keel_heat.*`` entry point
        """
        return self._packs[canonical_name(distribution)]

    def check_required(self, required: Iterable[str]) -> None:
        """Fail unless every required pack is installed, enabled and loads.

        :param required: distribution names from ``[plugins] required_packs``
        :raises RequiredPackError: naming what is missing or broken
        """
        problems = []
        for name in required:
            pack = self._packs.get(canonical_name(name))
            if pack is None:
                problems.append(f"{name} is not installed")
            elif not pack.enabled:
                problems.append(f"{name} is listed in disabled_packs")
            else:
                failures = self.load_all(name)
                problems += [
                    f"{name} {pack.version}: {key} failed to load: {msg}"
                    for key, msg in failures.items()
                ]
        if problems:
            raise errors.RequiredPackError(
                "Required plugin packs are unusable: " + "; ".join(problems)
            )

    def extension_manager(self, group: str) -> extension.ExtensionManager[Any]:
        """Return a stevedore manager over the loadable entries of ``group``.

        Entries that fail to load are left out (and recorded).
        """
        exts: list[extension.Extension[Any]] = []
        for name in self.names(group):
            try:
                plugin = self.load(group, name)
            except errors.PluginLoadError:
                continue
            ep = self._entries[(group, name)].entry_point
            exts.append(extension.Extension(name, ep, plugin, None))
        return extension.ExtensionManager.make_test_instance(
            exts, namespace=group
        )
