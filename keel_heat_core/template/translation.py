"""Translation rules: rewrite property values before a resource sees them.

A plugin returns rules from ``Resource.translation_rules(props)``.  They
keep old templates working when a property is renamed (``REPLACE``), add
items to a list (``ADD``), drop a property (``DELETE``) or turn a name into
an id through a client plugin (``RESOLVE``, applied at create and update
time only).  Rules apply in the order ADD, REPLACE, RESOLVE, DELETE.

Paths are lists of property names; this implementation applies rules to
top-level properties and, with ``value_name``, to the items of a list of
maps (Heat's ``translation_path: [list_prop]`` with ``value_name``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from keel_heat_core import exception

RULE_KEYS = (ADD, REPLACE, RESOLVE, DELETE) = (
    "Add",
    "Replace",
    "Resolve",
    "Delete",
)
_ORDER = {ADD: 0, REPLACE: 1, RESOLVE: 2, DELETE: 3}


class TranslationRule:
    """One rule over one property path.

    :param properties: the :class:`~.properties.Properties` to translate.
    :param rule: one of :data:`RULE_KEYS`.
    :param translation_path: the path of the property to change, as a list
        of names.
    :param value: for ADD, a list to append; for REPLACE, the value to put.
    :param value_name: the property (or, inside list items, the item key)
        whose value moves to ``translation_path``.
    :param value_path: a path whose value moves to ``translation_path``.
    :param client_plugin: for RESOLVE, the client plugin instance.
    :param finder: for RESOLVE, the name of the client plugin's method.
    :param entity: for RESOLVE, an entity argument given to the finder.
    :param custom_value_path: for RESOLVE on list items, the key to resolve
        inside each item.
    """

    def __init__(
        self,
        properties: Any,
        rule: str,
        translation_path: Sequence[str],
        value: Any = None,
        value_name: str | None = None,
        value_path: Sequence[str] | None = None,
        client_plugin: Any = None,
        finder: str | None = None,
        entity: str | None = None,
        custom_value_path: Sequence[str] | None = None,
    ) -> None:
        if rule not in RULE_KEYS:
            raise ValueError(
                f"There is no rule {rule}. List of allowed "
                f"rules is: {', '.join(RULE_KEYS)}."
            )
        if not translation_path:
            raise ValueError("translation_path should be a list of names")
        if rule == ADD and value is not None and not isinstance(value, list):
            raise ValueError("Add rule must be used only for lists.")
        if rule == RESOLVE and (client_plugin is None or finder is None):
            raise ValueError(
                "client_plugin and finder should be specified for Resolve rule"
            )
        self.properties = properties
        self.rule = rule
        self.translation_path = list(translation_path)
        self.value = value
        self.value_name = value_name
        self.value_path = list(value_path) if value_path else None
        self.client_plugin = client_plugin
        self.finder = finder
        self.entity = entity
        self.custom_value_path = (
            list(custom_value_path) if custom_value_path else None
        )

    @property
    def key(self) -> str:
        """The dotted path this rule writes to."""
        return ".".join(self.translation_path)


class Translation:
    """The set of rules of one resource, applied lazily by Properties.

    :param properties: the Properties it serves (may be set later).
    """

    def __init__(self, properties: Any = None) -> None:
        self.properties = properties
        self._rules: dict[str, list[TranslationRule]] = {}
        self._deleted: set[str] = set()
        self._replaced: set[str] = set()
        self.resolve = True
        self.ignore_resolve_error = False

    def set_rules(
        self,
        rules: Sequence[TranslationRule],
        client_resolve: bool = True,
        ignore_resolve_error: bool = False,
    ) -> None:
        """Install ``rules`` (replacing earlier ones)."""
        self.resolve = client_resolve
        self.ignore_resolve_error = ignore_resolve_error
        self._rules = {}
        self._deleted = set()
        self._replaced = set()
        for rule in sorted(rules, key=lambda r: _ORDER[r.rule]):
            self._rules.setdefault(rule.key, []).append(rule)
            if rule.rule == DELETE:
                self._deleted.add(rule.key)
            if (
                rule.rule == REPLACE
                and rule.value_name
                and len(rule.translation_path) == 1
            ):
                self._replaced.add(rule.value_name)

    def is_deleted(self, path: str) -> bool:
        """Whether a DELETE rule drops the property at ``path``."""
        return path in self._deleted

    def is_replaced(self, path: str) -> bool:
        """Whether a REPLACE rule moved the value away from ``path``."""
        return path in self._replaced

    def has_translation(self, path: str) -> bool:
        """Whether some rule (other than DELETE) writes ``path``."""
        return any(r.rule != DELETE for r in self._rules.get(path, []))

    def translate(
        self,
        path: str,
        prop_value: Any = None,
        prop_data: Mapping[str, Any] | None = None,
        validate: bool = False,
    ) -> Any:
        """The value of ``path`` once every rule on it has run."""
        value = prop_value
        data = prop_data or {}
        for rule in self._rules.get(path, []):
            if rule.rule == ADD:
                value = list(value or []) + list(rule.value or [])
            elif rule.rule == REPLACE:
                value = self._replace(rule, value, data)
            elif rule.rule == RESOLVE and self.resolve and not validate:
                value = self._resolve(rule, value)
            elif rule.rule == DELETE:
                value = None
        return value

    def _replace(
        self, rule: TranslationRule, value: Any, data: Mapping[str, Any]
    ) -> Any:
        if rule.value is not None:
            if value is not None:
                raise exception.ResourcePropertyConflict(
                    props=", ".join([rule.key, "value"])
                )
            return rule.value
        if rule.value_name is None:
            return value
        if len(rule.translation_path) == 1:
            other = data.get(rule.value_name)
            if other is None:
                return value
            if value is not None:
                raise exception.ResourcePropertyConflict(
                    props=", ".join([rule.key, rule.value_name])
                )
            return self._resolved(other)
        return value

    def _resolved(self, raw: Any) -> Any:
        resolver: Callable[[Any], Any] | None = getattr(
            self.properties, "resolve", None
        )
        return resolver(raw) if resolver is not None else raw

    def _resolve(self, rule: TranslationRule, value: Any) -> Any:
        if value is None:
            return None
        finder = getattr(rule.client_plugin, str(rule.finder))

        def one(item: Any) -> Any:
            try:
                if rule.entity:
                    return finder(rule.entity, item)
                return finder(item)
            except Exception:
                if self.ignore_resolve_error:
                    return item
                raise

        if isinstance(value, list):
            if rule.custom_value_path:
                key = rule.custom_value_path[-1]
                return [
                    {**v, key: one(v[key])}
                    if isinstance(v, dict) and v.get(key) is not None
                    else v
                    for v in value
                ]
            return [one(v) for v in value]
        return one(value)
