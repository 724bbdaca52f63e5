"""Translation rules: rewrite property values before a resource sees them.

A plugin returns rules from ``Resource.translation_rules(props)``
(``REPLACE`` a renamed property, ``ADD`` list items, ``DELETE`` one,
``RESOLVE`` a name to an id through a client plugin). The classes belong
to the template language, which applies them to a definition's properties
(:mod:`keel_heat_core.template.translation`); this module is their place
in the plugin API.
"""

from keel_heat_core.template.translation import (
    ADD,
    DELETE,
    REPLACE,
    RESOLVE,
    RULE_KEYS,
    Translation,
    TranslationRule,
)

__all__ = [
    "ADD",
    "DELETE",
    "REPLACE",
    "RESOLVE",
    "RULE_KEYS",
    "Translation",
    "TranslationRule",
]
