"""``OS::Heat::RandomString``: a random string, for passwords and secrets."""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from typing import Any

from keel_heat_core import plugin_api as api

Schema = api.properties.Schema

CHARACTER_CLASS_MEMBERS = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}
_CLASS_NAMES = list(CHARACTER_CLASS_MEMBERS)

_rand = random.SystemRandom()


def generate_password(
    length: int, char_classes: Sequence[tuple[str, int]]
) -> str:
    """A random string of ``length`` characters.

    :param char_classes: ``(allowed characters, minimum count)`` pairs: at
        least that many characters come from each; the rest come from the
        union of all of them; the result is shuffled.
    """
    chosen: list[str] = []
    allowed_all: set[str] = set()
    for allowed, minimum in char_classes:
        allowed_all.update(allowed)
        pool = tuple(allowed)
        chosen.extend(_rand.choice(pool) for _ in range(minimum))
    combined = tuple(sorted(allowed_all))
    while len(chosen) < length:
        chosen.append(_rand.choice(combined))
    return "".join(_rand.sample(chosen, length))


class RandomString(api.Resource):
    """Generates a random string once, at creation.

    Useful for passwords and secrets.  The characters come from character
    classes (``character_classes``: letters, digits...) and from arbitrary
    character sequences (``character_sequences``), each with a minimum
    count; the remaining characters are drawn from all of them together.
    The string is stored encrypted and is the value of both the ``value``
    attribute and the resource reference.  Change ``salt`` to get a new
    string on stack update.
    """

    support_status = api.SupportStatus(version="2014.1")

    PROPERTIES = (
        LENGTH,
        SEQUENCE,
        CHARACTER_CLASSES,
        CHARACTER_SEQUENCES,
        SALT,
    ) = (
        "length",
        "sequence",
        "character_classes",
        "character_sequences",
        "salt",
    )
    _CHARACTER_CLASSES_KEYS = (CLASS, CLASS_MIN) = ("class", "min")
    _CHARACTER_SEQUENCES_KEYS = (SEQUENCE_SEQUENCE, SEQUENCE_MIN) = (
        "sequence",
        "min",
    )
    ATTRIBUTES = (VALUE,) = ("value",)

    properties_schema = {
        LENGTH: Schema(
            Schema.INTEGER,
            "How many characters to generate.",
            default=32,
            constraints=[api.constraints.Range(1, 512)],
        ),
        SEQUENCE: Schema(
            Schema.STRING,
            "Former way of naming one character class.",
            constraints=[api.constraints.AllowedValues(_CLASS_NAMES)],
            support_status=api.SupportStatus(
                status=api.support.HIDDEN,
                version="5.0.0",
                previous_status=api.SupportStatus(
                    status=api.support.DEPRECATED,
                    message=f"Use property {CHARACTER_CLASSES}.",
                    version="2014.2",
                ),
            ),
        ),
        CHARACTER_CLASSES: Schema(
            Schema.LIST,
            "Character classes to draw from, with their minimum counts.",
            default=[{CLASS: "lettersdigits", CLASS_MIN: 1}],
            schema=Schema(
                Schema.MAP,
                schema={
                    CLASS: Schema(
                        Schema.STRING,
                        "A named character class.",
                        constraints=[
                            api.constraints.AllowedValues(_CLASS_NAMES)
                        ],
                        default="lettersdigits",
                    ),
                    CLASS_MIN: Schema(
                        Schema.INTEGER,
                        "At least this many characters come from the class.",
                        default=1,
                        constraints=[api.constraints.Range(1, 512)],
                    ),
                },
            ),
        ),
        CHARACTER_SEQUENCES: Schema(
            Schema.LIST,
            "Arbitrary character sequences to draw from, with their "
            "minimum counts.",
            schema=Schema(
                Schema.MAP,
                schema={
                    SEQUENCE_SEQUENCE: Schema(
                        Schema.STRING,
                        "The characters of the sequence.",
                        required=True,
                    ),
                    SEQUENCE_MIN: Schema(
                        Schema.INTEGER,
                        "At least this many characters come from the "
                        "sequence.",
                        default=1,
                        constraints=[api.constraints.Range(1, 512)],
                    ),
                },
            ),
        ),
        SALT: Schema(
            Schema.STRING,
            "Not used in the string; change it to get a new string on "
            "stack update.",
        ),
    }

    attributes_schema = {
        VALUE: api.attributes.Schema(
            "The generated string (also the reference of the resource).",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
    }

    def translation_rules(self, props: Any) -> list[Any]:
        if props.get(self.SEQUENCE):
            rule = api.translation.TranslationRule
            return [
                rule(
                    props,
                    api.translation.ADD,
                    [self.CHARACTER_CLASSES],
                    [
                        {
                            self.CLASS: props.get(self.SEQUENCE),
                            self.CLASS_MIN: 1,
                        }
                    ],
                ),
                rule(props, api.translation.DELETE, [self.SEQUENCE]),
            ]
        return []

    def validate(self) -> None:
        super().validate()
        sequences = self.properties[self.CHARACTER_SEQUENCES] or []
        classes = self.properties[self.CHARACTER_CLASSES] or []
        minimum = sum(s[self.SEQUENCE_MIN] for s in sequences) + sum(
            c[self.CLASS_MIN] for c in classes
        )
        if minimum > self.properties[self.LENGTH]:
            raise api.exception.StackValidationFailed(
                message="Length property cannot be smaller than combined "
                "character class and character sequence minimums"
            )

    def _generate_random_string(
        self,
        char_sequences: Sequence[dict[str, Any]],
        char_classes: Sequence[dict[str, Any]],
        length: int,
    ) -> str:
        pools = [
            (s[self.SEQUENCE_SEQUENCE], s[self.SEQUENCE_MIN])
            for s in char_sequences
        ] + [
            (CHARACTER_CLASS_MEMBERS[c[self.CLASS]], c[self.CLASS_MIN])
            for c in char_classes
        ]
        return generate_password(length, pools)

    def action_is_local(self, action: str) -> bool:
        return True  # nothing outside the engine's database

    def handle_create(self) -> None:
        value = self._generate_random_string(
            self.properties[self.CHARACTER_SEQUENCES] or [],
            self.properties[self.CHARACTER_CLASSES] or [],
            self.properties[self.LENGTH],
        )
        self.data_set(self.VALUE, value, redact=True)
        self.resource_id_set(self.physical_resource_name())

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.VALUE:
            return self.data().get(self.VALUE)
        return None

    def get_reference_id(self) -> str:
        if self.resource_id is not None:
            return str(self.data().get(self.VALUE))
        return str(self.name)
