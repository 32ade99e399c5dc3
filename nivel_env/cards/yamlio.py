"""YAML reading for card and scenario files that cannot be made to hang or crash.

``yaml.safe_load`` builds any structure it is given: nesting thousands deep ends
in a bare RecursionError, and aliases can make a few lines stand for billions of
nodes (a "billion laughs" file) that validation would then walk.  Card and
scenario files need neither, so both are refused with a clear message, as are
files too large to be hand-written data.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 8 * 2**20          # the whole bundled pool is ~60 KB
MAX_DEPTH = 40                 # the deepest card effect nests ~12 levels


class _Loader(yaml.SafeLoader):
    depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in these files",
                self.peek_event().start_mark)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"nested more than {MAX_DEPTH} levels deep",
                self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """A file's text; OSError, UnicodeDecodeError or ValueError (too large)."""
    path = Path(path)
    size = path.stat().st_size
    if size > limit:
        raise ValueError(f"file is {size:,} bytes, more than the {limit:,} allowed")
    return path.read_text(encoding="utf-8")


def parse(text: str) -> Any:
    """Parse YAML text; raises yaml.YAMLError for bad syntax, aliases and deep nesting."""
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


__all__ = ["MAX_BYTES", "MAX_DEPTH", "parse", "read_text"]
