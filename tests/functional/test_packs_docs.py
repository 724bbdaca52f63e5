"""``keel-heat-manage packs docs``: the resource-type reference made from
the installed packs' schemas, and the copy kept in docs/resource-types/.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

BIN = pathlib.Path(sys.executable).parent
REPO = pathlib.Path(__file__).resolve().parents[2]
KEPT = REPO / "docs" / "resource-types"


def _manage(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "keel-heat-manage"), "--config-file", "/dev/null", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_kept_reference_is_what_the_packs_declare(tmp_path):
    done = _manage(
        "packs", "docs", "--output-dir", str(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    made = {p.name: p.read_text() for p in tmp_path.glob("*.md")}
    kept = {p.name: p.read_text() for p in KEPT.glob("*.md")}
    # regenerate with: keel-heat-manage packs docs --output-dir
    # docs/resource-types
    assert sorted(made) == sorted(kept)
    for name, page in made.items():
        assert page == kept[name], name


def test_a_page_says_what_an_update_does_and_hidden_types_are_left_out(
    tmp_path,
):
    done = _manage("packs", "docs", "OS::Heat::TestResource", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = done.stdout
    assert page.startswith("# OS::Heat::TestResource\n")
    assert "- Provided by: `keel-heat-pack-heat` " in page
    value = next(
        line for line in page.splitlines() if line.startswith("- **value**")
    )
    assert "updated in place" in value
    replaced = next(
        line
        for line in page.splitlines()
        if line.startswith("- **update_replace_value**")
    )
    assert "an update replaces the resource" in replaced
    assert "- **output**: The stored string" in page

    hidden = _manage("packs", "docs", "OS::Heat::HARestarter", cwd=tmp_path)
    assert hidden.returncode == 1
    assert "not installed or hidden: OS::Heat::HARestarter" in hidden.stderr
    everything = _manage("packs", "docs", cwd=tmp_path).stdout
    assert "# OS::Heat::RandomString\n" in everything
    assert "# OS::Heat::HARestarter\n" not in everything
