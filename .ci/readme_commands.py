"""Print the set-up commands of README.md's first ```bash block, one a line.

CI runs what this prints, exactly as written, so the README and CI cannot drift apart:
comments and blank lines are left out, a line ending in a backslash is joined to the next.
"""
from __future__ import annotations

import sys
from pathlib import Path


def readme_commands(text: str) -> list[str]:
    """The commands of the first ```bash block of a Markdown text."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "```bash")
    except StopIteration:
        raise SystemExit("README.md has no ```bash block") from None
    commands, cur = [], ""
    for line in lines[start + 1:]:
        if line.strip() == "```":
            break
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1]
            continue
        commands.append((cur + line).strip())
        cur = ""
    else:
        raise SystemExit("README.md's first ```bash block is not closed")
    return commands


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    print("\n".join(readme_commands(path.read_text(encoding="utf-8"))))
