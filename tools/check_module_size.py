"""Fail when a Python module grows past the house limit of 800 lines."""

import pathlib
import subprocess
import sys

LIMIT = 800


def main() -> int:
    files = subprocess.run(
        ["git", "ls-files", "*.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    too_big = []
    for name in files:
        path = pathlib.Path(name)
        if not path.exists():
            continue
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > LIMIT:
            too_big.append(f"{name}: {count} lines (limit {LIMIT})")
    for line in too_big:
        print(line)
    return 1 if too_big else 0


if __name__ == "__main__":
    sys.exit(main())
