"""The game's own random generator: SplitMix64 over one Python int.

One int of state makes ``clone()`` and serialisation trivial and gives the same
stream on every platform and process; the global ``random`` and ``np.random``
are never touched.
"""
_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    return (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK


def next_u64(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def shuffle(state: int, items: list) -> int:
    """Fisher-Yates shuffle of ``items`` in place; returns the new state."""
    for i in range(len(items) - 1, 0, -1):
        state, r = next_u64(state)
        j = r % (i + 1)
        items[i], items[j] = items[j], items[i]
    return state
