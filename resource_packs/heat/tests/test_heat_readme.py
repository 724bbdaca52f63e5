"""The README's table of types tells the truth about the entry points."""

from __future__ import annotations

import json
import pathlib
import re
import tomllib

HERE = pathlib.Path(__file__).parent
README = (HERE.parent / "README.md").read_text()
HEAT = json.loads((HERE / "data" / "heat27_resource_types.json").read_text())
ENTRY_POINTS = tomllib.loads((HERE.parent / "pyproject.toml").read_text())[
    "project"
]["entry-points"]["keel_heat.resources"]
ROW = re.compile(r"^\| `([A-Za-z:]+)` \| (done|left) \|(.*)\|$", re.M)


def test_every_visible_type_listed_once():
    rows = ROW.findall(README)
    names = [name for name, _, _ in rows]
    visible = sorted(k for k, v in HEAT.items() if not v["hidden"])
    assert sorted(names) == visible


def test_done_means_entry_point_and_left_has_a_reason():
    for name, status, notes in ROW.findall(README):
        if status == "done":
            assert name in ENTRY_POINTS, name
        else:
            assert name not in ENTRY_POINTS, name
            assert notes.strip(), name
