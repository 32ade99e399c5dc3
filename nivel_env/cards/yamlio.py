"""Reading card, deck, scenario and replay files so that no file can hang or crash us.

``yaml.safe_load`` builds any structure it is given: nesting thousands deep ends
in a bare RecursionError, and aliases can make a few lines stand for billions of
nodes (a "billion laughs" file) that validation would then walk.  Card and
scenario files need neither, so both are refused with a clear message, as are
files too large to be hand-written data.  A repeated key (which YAML would
silently resolve to the last value) and an integer of hundreds of digits are refused
too.

Files are read with a byte cap, never by trusting the size the file system reports
(``nivel_env.files.read_bytes``: a FIFO, a device or a directory is refused before it
is opened).  A UTF-8 byte-order mark (some editors write one) is accepted and dropped.

Two readers, one result.  PyYAML's pure-Python scanner costs about a millisecond a card,
so a large pool (60,000 cards) took minutes; where PyYAML has its C library (libyaml, in
the usual wheels) ``parse`` reads libyaml's event stream instead.  Either way the events
go through one builder (``_build``), which makes the lists, mappings and scalars itself
in one loop, checking aliases, depth, repeated keys and long integers as it goes; plain
scalars resolve as ``yaml.safe_load`` resolves them, once per distinct text.  Merge keys
(``<<``) and tags that name anything but a standard scalar, a list or a mapping
(``!!set``, ``!!omap``, ``!foo``, ``!!python/...``) are refused (card and scenario files
use none of them); ``=`` (YAML 1.1's "value" key) is the string ``'='``.  Every refusal
is a ``YAMLFault`` worded by this module -- "line 3, column 5: key 'cost' appears twice
(first on line 2)" -- so both readers give the same value or both refuse: the builder's
own refusals and a character YAML does not allow (found before either parser reads a
byte) in the same words, the common syntax errors put in common words (``_SYNTAX``), the
rarest left in the parser's own (docs/cards.md says how often).  Without libyaml, loading
is only slower.
"""
from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any

import yaml

from ..files import FileRefused, read_bytes

MAX_BYTES = 8 * 2**20          # the whole bundled pool is ~60 KB
MAX_DEPTH = 40                 # the deepest card effect nests ~12 levels
MAX_DIGITS = 40               # integers in these files are small counts and seeds


class YAMLFault(yaml.YAMLError):
    """Why a text was refused as YAML, worded the same whichever reader read it: where
    (``line`` and ``column``, from 1; None when the text as a whole is at fault), what
    (``problem``) and, for an error inside something opened earlier, what and where
    that was (``context``, ``context_line``, ``context_column``)."""

    def __init__(self, problem: str, mark=None, context: str | None = None,
                 context_mark=None):
        super().__init__(problem)
        self.problem, self.context = problem, context
        self.line, self.column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        self.index = getattr(mark, "index", None)       # the character it is at, from 0
        self.context_line, self.context_column = \
            (context_mark.line + 1, context_mark.column + 1) if context_mark else (None, None)
        self.context_index = getattr(context_mark, "index", None)

    def __str__(self) -> str:
        where = f"line {self.line}, column {self.column}: " if self.line else ""
        ctx = ""
        if self.context:
            ctx = f" ({self.context}" + (f" that starts on line {self.context_line}, column "
                                         f"{self.context_column}" if self.context_line
                                         else "") + ")"
        return f"{where}{self.problem}{ctx}"


class _Mark:
    """A place in the text (0-based line and column), for faults found outside a parser."""

    def __init__(self, text: str, index: int):
        self.index = index
        self.line = text.count("\n", 0, index)
        self.column = index - (text.rfind("\n", 0, index) + 1)


#: characters YAML 1.1 does not allow in a stream (5.1), which both parsers refuse in
#: different words (libyaml at a byte offset), and three it allows that the parsers
#: read differently: NEL, the Unicode line and paragraph separators (line breaks to
#: one, not to the other) and a byte-order mark past the first character.  Looked for
#: first, so both refuse them alike; card, deck and scenario files break lines with \n.
_NOT_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\xA0-\u2027\u202A-\uD7FF"
                            "\uE000-\uFEFE\uFF00-\uFFFD\U00010000-\U0010FFFF]")


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """A file's UTF-8 text (a BOM dropped), for loaders that name the file in their own
    errors: OSError, UnicodeDecodeError, or ValueError saying what the path is (a FIFO,
    a directory, a device, too large: ``nivel_env.files``) without repeating it."""
    try:
        data = read_bytes(path, limit)
    except FileRefused as e:
        raise ValueError(e.reason) from None
    return data.decode("utf-8-sig")


def parse(text: str) -> Any:
    """The data of YAML ``text``; ``YAMLFault`` (a ``yaml.YAMLError``) for bad syntax,
    aliases, merge keys, tags other than the standard ones, nesting deeper than
    ``MAX_DEPTH``, repeated keys and integers of more than ``MAX_DIGITS`` digits."""
    if _CParser is not None:
        return _fast_parse(text)
    return _slow_parse(text)


def _fast_parse(text: str) -> Any:
    """``parse`` through libyaml's events."""
    return _read(text, _CParser)


def _slow_parse(text: str) -> Any:
    """``parse`` through PyYAML's pure-Python parser's events: the same result."""
    return _read(text, _PyParser)


try:
    from yaml.cyaml import CParser as _CParser
except ImportError:                                      # PyYAML built without libyaml
    _CParser = None


class _PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python event parser (a loader without its composer), refusing a
    directive other than %YAML and %TAG as libyaml does (PyYAML skips it)."""

    def __init__(self, text: str):
        yaml.reader.Reader.__init__(self, text)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)

    def scan_plain(self):
        """A plain scalar; in [ ] or { }, one followed by ':' and a flow indicator is
        refused, as libyaml does (PyYAML reads "{a:[1]}" as {'a': [1]})."""
        token = super().scan_plain()
        if self.flow_level and self.peek() == ":" and self.peek(1) in ",[]{}":
            raise yaml.scanner.ScannerError("while scanning a plain scalar",
                                            token.start_mark, "found unexpected ':'",
                                            self.get_mark())
        return token

    def scan_directive(self):
        start = self.get_mark()
        token = super().scan_directive()
        if token.name not in ("YAML", "TAG"):
            raise yaml.scanner.ScannerError("while scanning a directive", start,
                                            "found unknown directive name", token.end_mark)
        return token


def _read(text: str, parser_class) -> Any:
    """The data of ``text`` from the events of ``parser_class`` (see ``_build``), every
    refusal as a ``YAMLFault``."""
    bad = _NOT_PRINTABLE.search(text, 1 if text[:1] == "\ufeff" else 0)
    if bad:
        raise YAMLFault(f"a character these files do not allow (U+{ord(bad.group()):04X})",
                        _Mark(text, bad.start()))
    parser = parser_class(text)
    try:
        data = _build(parser.get_event, text)
    except YAMLFault as e:
        fault = e
    except yaml.MarkedYAMLError as e:
        fault = _syntax_fault(e, text)
    except yaml.YAMLError as e:                       # a reader error: not after the check
        fault = YAMLFault(f"not valid YAML text ({type(e).__name__})")
    else:
        fault = None
    finally:
        parser.dispose()
    if "\t" in text and parser_class is not _PyParser:
        tab = _first_loose_tab(text, fault)
        fault = tab or fault
    if fault is not None:
        raise fault
    return data


def _first_loose_tab(text: str, fault: YAMLFault | None) -> YAMLFault | None:
    """The first tab (before ``fault``, if any) outside a quoted scalar, a block scalar or
    a comment, as a fault; None if there is none.  PyYAML refuses every such tab ("Do not
    use tabs in YAML!"); libyaml takes many as spaces -- so the libyaml reader refuses
    them too, where PyYAML would, and the two agree."""
    end = len(text) if fault is None or fault.index is None else fault.index
    if text.find("\t", 0, end) < 0:
        return None
    spans = []                                    # quoted and block scalars: [start, end)
    ends = set()               # where a quoted scalar or a [ ] / { } ends: a '#' there
    parser = _CParser(text)    # starts a comment (PyYAML), as after a space
    flow_end = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    try:
        while True:
            ev = parser.get_event()
            if isinstance(ev, yaml.ScalarEvent) and ev.style in ("'", '"', "|", ">"):
                spans.append((ev.start_mark.index, ev.end_mark.index))
                ends.add(ev.end_mark.index)
            elif isinstance(ev, flow_end):
                ends.add(ev.end_mark.index)
            if isinstance(ev, yaml.StreamEndEvent) or ev.start_mark.index >= end:
                break
    except yaml.YAMLError:
        pass                                      # the events up to the error will do
    finally:
        parser.dispose()
    if fault is not None and fault.context == _QUOTED and fault.context_index is not None:
        spans.append((fault.context_index, end))  # a quote never closed runs to the fault
    starts = [s for s, _ in spans]

    def inside(i: int) -> bool:
        k = bisect.bisect_right(starts, i) - 1
        return k >= 0 and i < spans[k][1]
    comments: dict = {}        # a line's start -> where its comment starts (or its end)

    def comment_start(line: int) -> int:       # once a line: a file of tabs stays linear
        at = comments.get(line)
        if at is None:
            eol = text.find("\n", line)
            at = eol if eol >= 0 else len(text)
            j = text.find("#", line, at)
            while j >= 0:
                if not inside(j) and (j == line or text[j - 1] in " \t" or j in ends):
                    at = j
                    break
                j = text.find("#", j + 1, at)
            comments[line] = at
        return at
    i = text.find("\t", 0, end)
    line, eol = 0, -1
    while i >= 0:
        if i > eol:                            # a tab on a later line than the last one
            line = text.rfind("\n", 0, i) + 1
            eol = text.find("\n", i)
            eol = len(text) if eol < 0 else eol
        if not inside(i) and comment_start(line) > i:
            return YAMLFault("a tab character (YAML indents with spaces)", _Mark(text, i))
        i = text.find("\t", i + 1, end)
    return None


_RESOLVER = yaml.resolver.Resolver()
_PREFIX = "tag:yaml.org,2002:"
_STR, _MAP, _SEQ = _PREFIX + "str", _PREFIX + "map", _PREFIX + "seq"
_INT, _MERGE, _VALUE = _PREFIX + "int", _PREFIX + "merge", _PREFIX + "value"
#: the tags a single value may carry: those yaml.safe_load builds a plain value for
_SCALAR_TAGS = {_PREFIX + t for t in ("null", "bool", "int", "float", "binary", "timestamp",
                                      "str")}
_NOT_FOUND = object()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _scalar(event, tag: str) -> Any:
    """A scalar event's value under ``tag`` (resolved or written), as safe_load builds it;
    a ``YAMLFault`` for a tag these files do not allow or a value the tag refuses."""
    if tag == _VALUE:              # '=': YAML 1.1's "value" key, a plain string in 1.2
        return event.value
    if tag == _MERGE:
        raise YAMLFault("merge keys (<<) are not allowed in these files", event.start_mark)
    if tag not in _SCALAR_TAGS:
        raise YAMLFault(_tag_refused(tag, scalar=True), event.start_mark)
    if tag == _INT:
        digits = sum(ch.isalnum() for ch in event.value)     # 0x.., 0b.. count too
        if digits > MAX_DIGITS:
            raise YAMLFault(f"a number with {digits} digits; numbers here are small",
                            event.start_mark)
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        return _CONSTRUCTOR.construct_object(node)
    except Exception as e:            # '!!int abc', '!!timestamp x', '!!binary é'
        raise YAMLFault(f"{event.value[:40]!r} is not a valid {tag[len(_PREFIX):]} "
                        f"({type(e).__name__})", event.start_mark) from None


def _tag_refused(tag: str, scalar: bool) -> str:
    tag = tag.rstrip(",[]{}")      # in [ ] or { }, PyYAML reads "!x," as the tag "!x,"
    if scalar and tag in (_MAP, _SEQ):
        return f"the tag {tag} is for a mapping or a list, not a single value"
    return f"the tag {tag} is not allowed in these files"


def _build(get, text: str) -> Any:
    """The document of ``text``'s event stream (``get`` returns the next event): lists,
    dicts and plain values, built in one loop with every check of the module docstring."""
    E = yaml.events
    scalar_ev, map_ev, seq_ev = E.ScalarEvent, E.MappingStartEvent, E.SequenceStartEvent
    map_end, seq_end = E.MappingEndEvent, E.SequenceEndEvent
    resolve = _RESOLVER.resolve
    plain_memo: dict = {}      # text of an untagged plain scalar -> its (immutable) value
    # The open collection is (cur, lines, key): the list or dict being filled; for a
    # dict, the line each key was first seen on and the key waiting for its value (NF
    # when the next value is a key).  Outer ones wait on ``stack``.
    NF = _NOT_FOUND
    stack: list = []
    cur = lines = None
    key = key_mark = NF
    root, documents = None, 0
    flows: list = []           # the open [ ] and { } collections: (is a mapping, mark)
    while True:
        ev = get()
        t = type(ev)
        if t is scalar_ev:
            tag = ev.tag
            if tag is None:
                if ev.implicit[0]:
                    if flows and "?" in ev.value:
                        _question_in_flow(ev, text, flows)
                    v = plain_memo.get(ev.value, NF)
                    if v is NF:
                        tag = resolve(yaml.ScalarNode, ev.value, ev.implicit)
                        v = ev.value if tag == _STR else _scalar(ev, tag)
                        plain_memo[ev.value] = v
                else:
                    v = ev.value                     # quoted or block: a string
                    if ev.style in ("|", ">"):
                        _block_header(ev, text)
            else:      # "!" (non-specific) too: the parsers resolve "cost: !" apart
                v = _scalar(ev, tag)
                if ev.style in ("|", ">"):
                    _block_header(ev, text)
            if len(stack) >= MAX_DEPTH:
                _too_deep(ev)
        elif t is map_ev or t is seq_ev:
            if len(stack) >= MAX_DEPTH:
                _too_deep(ev)
            tag = ev.tag
            if tag is not None and tag != (_MAP if t is map_ev else _SEQ):
                raise YAMLFault(_tag_refused(tag, scalar=False), ev.start_mark)
            flow = ev.flow_style
            stack.append((cur, lines, key, key_mark, flow))
            if flow:
                flows.append(ev)
            if t is map_ev:
                cur, lines = {}, {}
            else:
                cur, lines = [], None
            key = NF
            continue
        elif t is map_end or t is seq_end:
            v = cur
            cur, lines, key, key_mark, flow = stack.pop()
            if flow:
                flows.pop()
            if cur is None:
                root = v
                continue
            ev = None
        elif t is E.AliasEvent:
            raise YAMLFault("aliases (*name) are not allowed in these files", ev.start_mark)
        elif t is E.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise YAMLFault("a second document (after ---); these files hold one",
                                ev.start_mark)
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
                raise YAMLFault("a list or mapping as a key; keys here are single values",
                                key_mark) from None
            if first is not None:
                raise YAMLFault(f"key {key!r} appears twice (first on line {first + 1})",
                                key_mark)
            lines[key] = key_mark.line if key_mark is not None else -1
        else:
            cur[key] = v
            key = NF
    return root


def _block_header(ev, text: str) -> None:
    """A ``#`` glued to a ``|`` or ``>`` header ("a: |#"), or a tab after it, is refused,
    as PyYAML refuses it (libyaml reads a comment, or skips the tab); so is a text that
    starts with a tab, as libyaml refuses it (PyYAML reads it as text)."""
    i = ev.start_mark.index                       # at the tag, if the scalar has one
    eol = text.find("\n", i)
    i = min((k for k in (text.find("|", i, eol), text.find(">", i, eol)) if k >= 0),
            default=i)
    m = _GLUED_HASH.match(text, i)
    if m:
        raise YAMLFault(_HEADER_WORDS, _Mark(text, m.end() - 1), _BLOCK, _Mark(text, i))
    if ev.value.startswith("\t"):      # libyaml takes it for indentation and refuses it
        raise YAMLFault("a tab character (YAML indents with spaces)",
                        _Mark(text, text.find("\t", eol)), _BLOCK, _Mark(text, i))


_GLUED_HASH = re.compile(r"[|>][1-9+-]*(#| *\t)")     # PyYAML: a comment needs a space


def _question_in_flow(ev, text: str, flows: list) -> None:
    """A '?' inside a plain scalar in [ ] or { } (``flows``: their start events, the
    innermost last): libyaml reads it as part of the text, PyYAML as a key indicator
    that cannot come there -- refused, in PyYAML's words."""
    at = text.find("?", ev.start_mark.index + 1, ev.end_mark.index)
    if at < 0:
        return
    opened = flows[-1]                 # a one-pair mapping in a [ list] is the list's
    for f in reversed(flows):
        if isinstance(f, yaml.SequenceStartEvent) or text[f.start_mark.index] == "{":
            opened = f
            break
    is_map = isinstance(opened, yaml.MappingStartEvent)
    raise YAMLFault(f"expected ',' or {'}' if is_map else ']'!r}", _Mark(text, at),
                    "inside the { mapping" if is_map else "inside the [ list",
                    opened.start_mark)


def _too_deep(ev):
    raise YAMLFault(f"nested more than {MAX_DEPTH} levels deep", ev.start_mark)


#: a syntax error in common words: (what either parser's message says, the words used);
#: libyaml and PyYAML's pure-Python parser name the same faults differently
_SYNTAX = [(re.compile(p), w) for p, w in (
    (r"mapping values are not allowed", "a ':' (a mapping value) is not allowed here"),
    (r"unexpected ':'", "a ':' here needs a space after it"),
    (r"mapping keys are not allowed", "a '?' (a mapping key) is not allowed here"),
    (r"sequence entries are not allowed", "a '- ' (a list entry) is not allowed here"),
    (r"cannot start any token|tab character", "found {char} that cannot start a value"),
    (r"expected ',' or '\]'", "expected ',' or ']'"),
    (r"expected ',' or '\}'", "expected ',' or '}'"),
    (r"unexpected end of stream", "the text ends before this is closed"),
    (r"expected key|expected <block end>|expected '-' indicator",
     "expected a new entry at this block's indentation"),
    # libyaml 0.2.6 (PyYAML 6.0.4's wheels) refuses flow nesting past 1,000 levels while
    # scanning ahead, before the events reach _build's own limit
    (r"nesting depth", f"nested more than {MAX_DEPTH} levels deep"),
    (r"document start", "found more after the end of the document"),
    (r"unexpected document", "found an unexpected document separator (--- or ...)"),
    (r"undefined tag handle", "found an undefined tag handle"),
    (r"non-specific tag", "found a non-specific tag '!' where a tag was expected"),
    (r"could not find expected ':'", "could not find the ':' after a key"),
    (r"node content", "expected a value"),
    (r"unknown escape character", "found an unknown escape character"),
    (r"escape (sequence|code)|hexa?decimal", "found an escape that is not valid"),
    (r"duplicate %?YAML", "found a second %YAML directive"),
    (r"duplicate %?TAG", "found a second %TAG directive for one handle"),
    (r"incompatible", "found an incompatible YAML version (1.* is required)"),
    (r"unknown directive", "found an unknown directive"),
    (r"comment or (a )?line break", "expected a comment or the end of the line"),
    (r"indentation indicator", "expected an indentation indicator from 1 to 9"),
    (r"chomping", "expected chomping or indentation indicators"),
    (r"alphabetic or numeric|directive name", "expected a letter or a digit"),
    (r"whitespace|expected ' '", "expected a space"),
    (r"URI", "expected a tag URI"),
    (r"expected '!'", "expected '!'"),
    (r"'>'", "expected '>'"),
    (r"version number|digit", "expected a version number"),
)]
_QUOTED, _BLOCK = "inside the quoted text", "inside the | or > text"
_HEADER_WORDS = "expected the end of the line after | or > (and its indicators: a digit " \
                "1-9, + or -)"
#: a fault in the line that opens a block scalar: the parsers name it differently
_BLOCK_HEADER = re.compile(r"comment|line break|indentation indicator|chomping")
#: what the error is inside, by either parser's context
_CONTEXTS = [(re.compile(p), w) for p, w in (
    (r"flow sequence", "inside the [ list"), (r"flow mapping", "inside the { mapping"),
    (r"block mapping", "inside the mapping"), (r"block collection", "inside the list"),
    (r"quoted scalar", _QUOTED), (r"block scalar", _BLOCK),
    (r"simple key", "after the key"), (r"directive", "inside the directive"),
    (r"tag", "inside the tag"), (r"anchor|alias", "inside the anchor or alias"),
    (r"node", "inside the value"),
)]


def _syntax_fault(e, text: str) -> YAMLFault:
    """A parser's syntax error ``e`` as a ``YAMLFault`` in words both parsers share."""
    problem = str(e.problem or "")
    mark = e.problem_mark or e.context_mark
    words = next((w for pat, w in _SYNTAX if pat.search(problem)), "not valid YAML syntax")
    if "{char}" in words:
        i = getattr(mark, "index", None)
        ch = text[i] if i is not None and 0 <= i < len(text) else ""
        words = ("a tab character (YAML indents with spaces)" if ch == "\t" else
                 f"found {ch!r} that cannot start a value" if ch else
                 "found a character that cannot start a value")
    i = getattr(mark, "index", None)
    if "escape" in words and i and text[i - 1:i] == "\\" and text[i:i + 1] != "\\":
        mark = _Mark(text, i - 1)                 # at the backslash, as libyaml says
    context = next((w for pat, w in _CONTEXTS if pat.search(str(e.context or ""))), None)
    if context == _BLOCK and _BLOCK_HEADER.search(problem):
        words = _HEADER_WORDS
    return YAMLFault(words, mark, context, e.context_mark if context else None)


__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_DIGITS", "YAMLFault", "parse",
           "read_text"]
