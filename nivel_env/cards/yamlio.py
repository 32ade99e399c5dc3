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

Speed: PyYAML's pure-Python scanner costs about a millisecond a card, so a large pool
(60,000 cards) took minutes.  Where PyYAML has its C library (libyaml, in the usual
wheels) ``parse`` reads libyaml's event stream and builds the lists, mappings and
scalars itself in one loop (``_fast_parse``), checking aliases, depth, repeated keys and
long integers as it goes; plain scalars resolve as ``yaml.safe_load`` resolves them,
once per distinct text.  Merge keys (``<<``) and tags that name anything but a plain
scalar, list or mapping are refused (card and scenario files use none of them).  Without
libyaml the pure-Python loader below gives the same results, slowly.
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
    """Parse YAML text; raises yaml.YAMLError for bad syntax, aliases, deep nesting,
    repeated keys and integers of more than ``MAX_DIGITS`` digits."""
    if _CParser is not None:
        return _fast_parse(text)
    return _slow_parse(text)


def _slow_parse(text: str) -> Any:
    """The pure-Python loader (``_Loader``)."""
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError:
        raise
    except (ValueError, TypeError, AttributeError) as e:      # '!!int abc', '!!timestamp x'
        raise yaml.constructor.ConstructorError(
            None, None, f"a tagged value that is not valid ({type(e).__name__}: {e})"[:200],
            None) from None
    finally:
        loader.dispose()


try:
    from yaml.cyaml import CParser as _CParser
except ImportError:                                      # PyYAML built without libyaml
    _CParser = None

_RESOLVER = yaml.resolver.Resolver()
_STR, _MAP, _SEQ = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:map",
                    "tag:yaml.org,2002:seq")
_INT, _MERGE, _VALUE = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:merge",
                        "tag:yaml.org,2002:value")
_NOT_FOUND = object()


def _scalar(constructor, event, tag: str) -> Any:
    """A scalar event's value under ``tag`` (safe_load's constructors)."""
    if tag == _INT:
        digits = sum(ch.isalnum() for ch in event.value)
        if digits > MAX_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"a number with {digits} digits; numbers here are small",
                event.start_mark)
    if tag == _MERGE:
        raise yaml.constructor.ConstructorError(
            None, None, "merge keys (<<) are not allowed in these files", event.start_mark)
    if tag == _VALUE:                                   # safe_load reads '=' as a string
        tag = _STR
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return constructor.construct_object(node)
    except yaml.YAMLError:
        raise
    except Exception as e:            # '!!int abc', '!!timestamp x': a YAML error, not a crash
        raise yaml.constructor.ConstructorError(
            None, None, f"{event.value[:40]!r} is not a valid {tag.rsplit(':', 1)[-1]} "
                        f"({type(e).__name__})", event.start_mark) from None


def _fast_parse(text: str) -> Any:
    """``_slow_parse``'s result from libyaml's events (see the module docstring)."""
    E = yaml.events
    scalar_ev, map_ev, seq_ev = E.ScalarEvent, E.MappingStartEvent, E.SequenceStartEvent
    map_end, seq_end = E.MappingEndEvent, E.SequenceEndEvent
    constructor = yaml.constructor.SafeConstructor()
    resolve = _RESOLVER.resolve
    plain_memo: dict = {}      # text of an untagged plain scalar -> its (immutable) value
    try:
        parser = _CParser(text)
    except UnicodeEncodeError as e:                      # a lone surrogate
        raise yaml.reader.ReaderError("<unicode string>", e.start, ord(e.object[e.start]),
                                      "utf-8", "not valid text") from None
    # The open collection is (cur, lines, key): the list or dict being filled; for a
    # dict, the line each key was first seen on and the key waiting for its value (NF
    # when the next value is a key).  Outer ones wait on ``stack``.
    NF = _NOT_FOUND
    stack: list = []
    cur = lines = None
    key = key_mark = NF
    root, documents, first_mark = None, 0, None
    get = parser.get_event
    try:
        while True:
            ev = get()
            t = type(ev)
            if t is scalar_ev:
                tag = ev.tag
                if tag is None:
                    if ev.implicit[0]:
                        v = plain_memo.get(ev.value, NF)
                        if v is NF:
                            tag = resolve(yaml.ScalarNode, ev.value, ev.implicit)
                            v = ev.value if tag == _STR else _scalar(constructor, ev, tag)
                            plain_memo[ev.value] = v
                    else:
                        v = ev.value                     # quoted: always a string
                elif tag == "!":                        # non-specific: as if untagged
                    tag = resolve(yaml.ScalarNode, ev.value, ev.implicit)
                    v = ev.value if tag == _STR else _scalar(constructor, ev, tag)
                else:
                    v = _scalar(constructor, ev, tag)
                if len(stack) >= MAX_DEPTH:
                    _too_deep(ev)
            elif t is map_ev or t is seq_ev:
                if len(stack) >= MAX_DEPTH:
                    _too_deep(ev)
                tag = ev.tag
                if tag is not None and tag != "!" and tag != (_MAP if t is map_ev else _SEQ):
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the tag {tag} is not allowed in these files",
                        ev.start_mark)
                stack.append((cur, lines, key, key_mark))
                if t is map_ev:
                    cur, lines = {}, {}
                else:
                    cur, lines = [], None
                key = NF
                continue
            elif t is map_end or t is seq_end:
                v = cur
                cur, lines, key, key_mark = stack.pop()
                if cur is None:
                    root = v
                    continue
                ev = None
            elif t is E.AliasEvent:
                raise yaml.composer.ComposerError(
                    None, None, "aliases (*name) are not allowed in these files",
                    ev.start_mark)
            elif t is E.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise yaml.composer.ComposerError(
                        "expected a single document in the stream", first_mark,
                        "but found another document", ev.start_mark)
                first_mark = ev.start_mark
                continue
            elif t is E.StreamEndEvent:
                break
            else:
                continue
            # v is a finished value; ev its event (None for a collection just closed)
            if lines is None:
                if cur is None:
                    root = v
                else:
                    cur.append(v)
            elif key is NF:
                key = v
                key_mark = ev.start_mark if ev is not None else None
                try:
                    first = lines.get(key)
                except TypeError:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", None, "found unhashable key",
                        key_mark) from None
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping", None,
                        f"key {key!r} appears twice (first on line {first + 1})", key_mark)
                lines[key] = key_mark.line
            else:
                cur[key] = v
                key = NF
    finally:
        parser.dispose()
    return root


def _too_deep(ev):
    raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep",
                                      ev.start_mark)


__all__ = ["MAX_BYTES", "MAX_DEPTH", "parse", "read_bytes", "read_text"]
