"""Fail when code or docs point at a document outside the repository.

What a module, test or doc relies on is said in the repository's own
words, or in a page under ``docs/`` that says it: a clone has nothing
else. This finds the two ways an outside document creeps back in:

* a section sign or a path into a sibling folder (``§3.4``,
  ``../shared``, ``spec/...``) or "the spec" named as a source;
* a ``*.md`` file named that the repository does not hold (a path is
  looked up from the top of the tree and from the naming file's folder;
  a bare name anywhere in the tree).
"""

import pathlib
import re
import subprocess
import sys

SUFFIXES = (".py", ".md", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".rst")
SUFFIXES += (".txt",)
FORBIDDEN = re.compile(
    r"§|\.\./shared|\bshared/|\bspec/|\bengine spec\b|\bthe spec\b|"
    r"\bspec's\b"
)
MARKDOWN = re.compile(r"[\w./-]*\b[\w-]+\.md\b")
THIS = pathlib.Path(__file__).name


def _tracked() -> list[pathlib.Path]:
    names = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [pathlib.Path(name) for name in names]


def _resolves(
    mention: str, source: pathlib.Path, names: set[str], paths: set[str]
) -> bool:
    if "/" not in mention:
        return mention in names
    candidates = [pathlib.Path(mention), source.parent / mention]
    return any(
        str(pathlib.Path(*c.parts)).replace("\\", "/") in paths
        or c.resolve().is_file()
        for c in candidates
    )


def main() -> int:
    files = _tracked()
    names = {path.name for path in files}
    paths = {str(path) for path in files}
    found = []
    for path in files:
        if path.suffix not in SUFFIXES or path.name == THIS:
            continue
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path}:{number}"
            match = FORBIDDEN.search(line)
            if match:
                found.append(f"{where}: outside reference {match.group()!r}")
            for mention in MARKDOWN.findall(line):
                if mention.startswith(("http:", "https:", "//")):
                    continue
                if not _resolves(mention.strip("./"), path, names, paths):
                    found.append(f"{where}: no such document {mention!r}")
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
