"""Reading card, deck, scenario and replay files so that no file can hang or crash us.

``yaml.safe_load`` builds any structure it is given: nesting thousands deep ends
in a bare RecursionError, and aliases can make a few lines stand for billions of
nodes (a "billion laughs" file) that validation would then walk.  Card and
scenario files need neither, so both are refused with a clear message, as are
files too large to be hand-written data.  A repeated key (which YAML would
silently resolve to the last value) and an integer of hundreds of digits are refused
too.

Files are read with a byte cap, never by trusting the size the file system reports:
a FIFO would block forever and ``/dev/zero`` reports size 0 and never ends, so
anything that is not a regular file is refused before it is opened.  A UTF-8 byte-order
mark (some editors write one) is accepted and dropped.
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

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                dup = key in seen
            except TypeError:                             # unhashable: safe_load refuses it
                dup = False
            if dup:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"key {key!r} appears twice (first on line {seen[key] + 1})",
                    key_node.start_mark)
            try:
                seen[key] = key_node.start_mark.line
            except TypeError:
                pass
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node):
        digits = sum(ch.isalnum() for ch in str(node.value))     # 0x.., 0b.. count too
        if digits > MAX_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"a number with {digits} digits; numbers here are small",
                node.start_mark)
        return super().construct_yaml_int(node)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


MAX_DIGITS = 40               # integers in these files are small counts and seeds


def read_bytes(path: str | Path, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file; OSError or ValueError otherwise."""
    import os
    import stat
    st = os.stat(path)                                   # follows links; never blocks
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO (named pipe)"
                if stat.S_ISFIFO(st.st_mode) else "a device" if
                stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket"
                if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise ValueError(f"not a regular file ({kind})")
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"file is more than the {limit:,} bytes allowed")
    return data


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """A file's UTF-8 text (a BOM dropped); OSError, UnicodeDecodeError or ValueError."""
    return read_bytes(path, limit).decode("utf-8-sig")


def parse(text: str) -> Any:
    """Parse YAML text; raises yaml.YAMLError for bad syntax, aliases and deep nesting."""
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


__all__ = ["MAX_BYTES", "MAX_DEPTH", "parse", "read_bytes", "read_text"]
