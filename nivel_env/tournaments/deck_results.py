"""A deck run's raw results, written as the games finish: ``OUT/results.jsonl``.

Playing is the expensive part of ``evaluate.py decks`` (and ``gauntlet``); the analysis
after it (ratings, metagame, card analytics, plots) takes seconds.  So every seed's two
games are appended to this file as they come in, before any analysis: a run whose
analysis fails, or that is stopped, keeps what it played, and
``evaluate.py decks --from OUT/results.jsonl`` analyses it again without replaying.  The
report is always made from these records (the run that played them reads the same lines
back), so ``--from`` on a finished run writes the same report.  A new run into the same
folder moves an earlier ``results.jsonl`` aside (``results.1.jsonl``, ``results.2.jsonl``,
... in the order the runs were made) rather than overwrite it.

The format is JSON Lines: a header naming the format and everything the analysis needs
(command, decks, pilot, deal, seeds, bootstrap samples, how many seeds were planned; the
run's own card files with their SHA-256, which ``--from`` checks; when it ran and each
deck's content, which ``evaluate.py history`` reads -- ``deck_history.run_record``),
then one line per seed: ``{"task": k, "pair": [i, j], "seed": s, "games": [g0, g1]}``
with the two games' results as ``games.play_pair`` returns them (without the
think times, which deck reports do not use).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from nivel_env.files import FileRefused, open_regular, read_bytes

FORMAT = "nivel-deck-results"
VERSION = 1
NAME = "results.jsonl"
#: the largest results file read back (about 4 million seeds; a FIFO or device is refused
#: by its type, never waited on)
MAX_RESULTS = 2 << 30


class ResultsFileError(ValueError):
    """A results file that cannot be analysed; the message names the file and line."""


def _plain(pair) -> list:
    """The seed's two game records without think times, as JSON will give them back."""
    return json.loads(json.dumps([{k: v for k, v in g.items() if k != "think_seconds"}
                                  for g in pair]))


def keep_earlier(path: Path) -> Path | None:
    """Move an earlier run's results file at ``path`` aside, to the first free
    ``results.N.jsonl`` beside it (N = 1, 2, ...: numbered in the order the runs were
    made), and return where it went; None when there was none (or it was empty).  The
    raw results are the one thing a run makes that cannot be made again without
    replaying, so a new run into the same folder never truncates them (the reports,
    which ``--from`` rebuilds, are replaced)."""
    path = Path(path)
    try:
        if path.stat().st_size == 0:
            return None
    except FileNotFoundError:
        return None
    n = 1
    while True:
        dest = path.with_name(f"{path.stem}.{n}{path.suffix}")
        try:
            os.link(path, dest)                # fails if dest exists: never overwrites
        except FileExistsError:
            n += 1
            continue
        except OSError:                        # no hard links here: a plain rename
            if dest.exists():
                n += 1
                continue
            path.rename(dest)
            return dest
        path.unlink()
        return dest


def read_header(path: Path) -> dict | None:
    """A results file's first line (its header), without reading the records; None if
    it cannot be read or is not a header."""
    try:
        with open_regular(path, MAX_RESULTS, "results file") as f:
            head = json.loads(f.readline(1 << 20).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):     # FileRefused is a ValueError
        return None
    return head if isinstance(head, dict) and head.get("format") == FORMAT else None


def results_kind(path: Path) -> str | None:
    """The command (decks, gauntlet) that wrote a results file, from its header; None if
    its first line names none."""
    head = read_header(path)
    return head.get("kind") if head and isinstance(head.get("kind"), str) else None


class ResultsWriter:
    """Appends a run's records to ``path`` as they come in (flushed line by line).
    ``add(task, pair)`` takes ``run_tasks``'s ``on_result`` arguments for one seed;
    ``records`` holds what was written, read back as ``read_results`` would.  An earlier
    run's file at ``path`` is kept (``keep_earlier``); ``moved`` says where it went."""

    def __init__(self, path: Path, header: dict, tasks, keys):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.moved = keep_earlier(self.path)
        self.index = {id(t): (k, t, key) for k, (t, key) in enumerate(zip(tasks, keys))}
        self.records: list[dict] = []
        self.header = {"format": FORMAT, "version": VERSION, **header, "tasks": len(tasks)}
        self._file = self.path.open("w", encoding="utf-8")
        self._write(self.header)

    def _write(self, obj) -> None:
        self._file.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self._file.flush()

    def add(self, task, pair) -> None:
        k, t, key = self.index[id(task)]
        rec = {"task": k, "pair": list(key), "seed": t[4], "games": _plain(pair)}
        self._write(rec)
        self.records.append(rec)

    def add_block(self, block, pairs) -> None:
        """A lockstep block: its tasks and their results, in order."""
        for t, pair in zip(block, pairs):
            self.add(t, pair)

    def close(self) -> None:
        self._file.close()


def read_results(path: str | Path, kind: str | None = None) -> tuple[dict, list[dict]]:
    """(header, records) of a results file; ``kind`` (decks, gauntlet) must match the run
    that wrote it.  A last line cut off mid-write (a killed run) is left out."""
    path = Path(path)
    try:
        text = read_bytes(path, MAX_RESULTS, "results file").decode("utf-8")
    except FileRefused as e:          # missing, a FIFO or device (never waited on), too big
        raise ResultsFileError(str(e)) from None
    except UnicodeDecodeError as e:
        raise ResultsFileError(f"{path}: cannot read it ({e})") from None
    lines = text.split("\n")
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append((n, json.loads(line)))
        except json.JSONDecodeError as e:
            if n == len(lines):              # no newline after it: cut off mid-write
                break
            raise ResultsFileError(f"{path}: line {n} is not JSON ({e.msg})") from None
    if not rows or not isinstance(rows[0][1], dict) or rows[0][1].get("format") != FORMAT:
        raise ResultsFileError(f"{path}: not a deck run's results file (its first line "
                               f"names no format {FORMAT!r}; evaluate.py decks writes one "
                               f"as {NAME} in its --out folder)")
    header = rows[0][1]
    if header.get("version") != VERSION:
        raise ResultsFileError(f"{path}: results format version {header.get('version')!r}; "
                               f"this nivel_env reads {VERSION}")
    for field, typ in (("kind", str), ("decks", list), ("pilot", str), ("games", int),
                       ("seed", int), ("deal", str), ("bootstrap", int), ("tasks", int),
                       ("argv", list)):
        if not isinstance(header.get(field), typ):
            raise ResultsFileError(f"{path}: line 1: field {field!r} is missing or not a "
                                   f"{typ.__name__}")
    if kind is not None and header["kind"] != kind:
        raise ResultsFileError(f"{path}: the results of an 'evaluate.py {header['kind']}' "
                               f"run; analyse it with evaluate.py {header['kind']} --from")
    k = len(header["decks"])
    records = []
    for n, rec in rows[1:]:
        ok = (isinstance(rec, dict) and isinstance(rec.get("pair"), list)
              and len(rec["pair"]) == 2
              and all(isinstance(i, int) and 0 <= i < k for i in rec["pair"])
              and isinstance(rec.get("games"), list) and len(rec["games"]) == 2
              and all(isinstance(g, dict) and "points" in g for g in rec["games"]))
        if not ok:
            raise ResultsFileError(f"{path}: line {n} is not a seed's record (pair of deck "
                                   f"indices below {k}, two games)")
        records.append(rec)
    return header, records
