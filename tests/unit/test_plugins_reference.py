"""The resource-type reference renderer (keel_heat_core.plugins.reference)."""

from __future__ import annotations

from keel_heat_core.plugins import reference

SCHEMA = {
    "resource_type": "Demo::Thing",
    "description": "A thing for the reference's tests.\n",
    "support_status": {
        "status": "DEPRECATED",
        "version": "9.0.0",
        "message": "Use Demo::Other.",
        "previous_status": {"status": "SUPPORTED", "version": "2014.1"},
    },
    "properties": {
        "size": {
            "type": "integer",
            "required": True,
            "update_allowed": True,
            "immutable": False,
            "constraints": [{"range": {"min": 1}}],
        },
        "zone": {
            "type": "string",
            "required": False,
            "default": "nova",
            "update_allowed": False,
            "immutable": True,
            "constraints": [
                {"custom_constraint": "nova.zone"},
                {"allowed_values": ["a", "b"], "description": "two zones"},
            ],
        },
        "tags": {
            "type": "list",
            "update_allowed": False,
            "immutable": False,
            "schema": {
                "*": {
                    "type": "string",
                    "constraints": [{"length": {"max": 8}}],
                }
            },
        },
    },
    "attributes": {"size": {"description": "How big.", "type": "integer"}},
}


def test_a_page_lists_each_property_with_what_an_update_does():
    page = reference.render_type(SCHEMA, "demo-pack", "1.2.3").splitlines()
    assert page[0] == "# Demo::Thing"
    assert page[2] == (
        "- Support status: DEPRECATED since 9.0.0: Use Demo::Other. "
        "(before: SUPPORTED since 2014.1)"
    )
    assert page[3] == "- Provided by: `demo-pack` 1.2.3"
    assert "- **size** (`integer`, required, updated in place)" in page
    assert "  - must be at least `1`" in page
    assert (
        '- **zone** (`string`, optional, default `"nova"`, cannot be '
        "updated: an update that changes it fails)"
    ) in page
    assert "  - must be a valid `nova.zone`" in page
    assert '  - must be one of `"a"`, `"b"` (two zones)' in page
    assert (
        "- **tags** (`list`, optional, an update replaces the resource)"
        in page
    )
    assert "  - **each item** (`string`, optional)" in page
    assert "    - must be of length at most `8`" in page
    assert "- **size** (`integer`): How big." in page


def test_the_index_links_each_page():
    index = reference.render_index({"Demo::Thing": ("demo-pack", "OK")})
    page = "Demo__Thing" + ".md"
    assert f"| [Demo::Thing]({page}) | `demo-pack` | OK |" in index
    assert reference.file_name("OS::Heat::None") == "OS__Heat__None.md"
