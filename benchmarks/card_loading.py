"""Card loading speed: ``load_card_db`` over a large generated pool.

The pool is the bundled cards copied under new ids (``FI-01`` -> ``FI-01x7``), about
``--cards`` of them (whole copies of the bundled pool), in files of at most
``--per-file`` cards (a card file is capped at 8 MB, so a large pool spans several);
``--vanilla`` makes one-line units instead (``{id: V-1, type: unit, ...}``, the
smallest cards, the most to a file).  Prints the pool, then wall and CPU seconds and
cards per CPU second for the whole ``load_card_db``; ``--profile`` prints where the
time goes.  Run pinned to one core for comparable figures::

    taskset -c 0 python benchmarks/card_loading.py                  # ~60,000 cards
    taskset -c 0 python benchmarks/card_loading.py --vanilla --per-file 60000
    taskset -c 0 python benchmarks/card_loading.py --cards 5000 --profile
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import tempfile
import time
from pathlib import Path

from nivel_env.cards.db import bundled_card_files, load_card_db

_ID = re.compile(r"((?:- |\{)id: )([^,\s}]+)")
VANILLA = ("  - {{id: V-{i}, type: unit, name: Unit {i}, name_ko: 유닛 {i}, cost: {cost}, "
           "power: {power}, hit: 1, attribute: fire}}\n")


def pool_files(out: Path, cards: int, per_file: int = 10_000,
               vanilla: bool = False) -> tuple[list[Path], int]:
    """Card files holding about ``cards`` cards, and how many they hold."""
    if vanilla:
        chunks = [VANILLA.format(i=i, cost=i % 8, power=1 + i % 6) for i in range(cards)]
        per_chunk = 1
    else:
        entries = "".join(f.read_text(encoding="utf-8").split("\ncards:\n", 1)[1]
                          for f in bundled_card_files())
        per_chunk = len(_ID.findall(entries))
        copies = max(1, round(cards / per_chunk))
        chunks = [_ID.sub(rf"\1\2x{k}", entries) for k in range(copies)]
    step = max(1, per_file // per_chunk)
    paths = []
    for i in range(0, len(chunks), step):
        p = out / f"pool-{i // step:03}.yaml"
        p.write_text("cards:\n" + "".join(chunks[i:i + step]), encoding="utf-8")
        paths.append(p)
    return paths, len(chunks) * per_chunk


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", type=int, default=60_000)
    ap.add_argument("--per-file", type=int, default=10_000)
    ap.add_argument("--vanilla", action="store_true", help="one-line units, not copies")
    ap.add_argument("--profile", action="store_true", help="print the 25 costliest calls")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths, n = pool_files(Path(tmp), args.cards, args.per_file, args.vanilla)
        size = sum(p.stat().st_size for p in paths)
        print(f"pool             {n:,} {'vanilla ' if args.vanilla else ''}cards in "
              f"{len(paths)} file(s), {size / 2**20:.1f} MB")
        prof = cProfile.Profile() if args.profile else None
        if prof:
            prof.enable()
        wall, cpu = time.perf_counter(), time.process_time()
        db = load_card_db(paths)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if prof:
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        assert len(db) == n
        print(f"load_card_db     {wall:.2f} s wall, {cpu:.2f} s CPU: "
              f"{n / cpu:,.0f} cards per CPU second")


if __name__ == "__main__":
    main()
