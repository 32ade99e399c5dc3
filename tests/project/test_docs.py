"""The documentation stands on its own: no pointers outside the repository, no internal
tracker references, a LICENSE that matches pyproject, and the rulings written out."""
import re

from conftest import ROOT

DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
SOURCES = sorted(p for d in ("nivel_env", "agents") for p in (ROOT / d).rglob("*.py"))


def test_docs_point_nowhere_outside_the_repository():
    for path in DOCS + SOURCES:
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "RULINGS.md" not in text, path
        assert not re.search(r"\bissue #?\d+\b", text, re.IGNORECASE), path


def test_license_matches_pyproject():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text()


def test_rulings_page_covers_every_option_and_section():
    from dataclasses import fields

    from nivel_env.engine import RuleConfig
    text = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    for section in "ABCDEFG":
        assert f"### {section}." in text
    for f in fields(RuleConfig):
        assert f"`{f.name}`" in text, f.name


def test_observation_and_action_sizes_in_the_docs_are_the_envs():
    """Every size the README and docs give for the observation vector and the action
    mask (``float32[N]``, ``(n, N)``, ``Total: N``) is the environments' own: the README
    said 9,519 after the vector had grown to 11,097.  (docs/benchmarks.md records
    earlier sizes on purpose and is left out.)"""
    from nivel_env import NivelArenaGymEnv, env
    obs_size = env().observation_space("player_0")["observation"].shape[0]
    n_actions = env().action_space("player_0").n
    assert NivelArenaGymEnv().observation_space.shape == (obs_size,)
    compact = env(obs="compact").observation_space("player_0")["observation"].shape[0]
    patterns = [
        (r"Total \(compact\): ([\d,]+) float32 values", compact),
        (r"float32\[([\d,]+)\]", obs_size), (r"float32 `\(n, ([\d,]+)\)`", obs_size),
        (r"Total: ([\d,]+) float32 values", obs_size),
        (r"observation vector of ([\d,]+)", obs_size),
        (r"int8\[([\d,]+)\]", n_actions), (r"bool `\(n, ([\d,]+)\)`", n_actions),
    ]
    found = 0
    for path in DOCS:
        if path.name == "benchmarks.md":
            continue
        text = path.read_text(encoding="utf-8")
        for pattern, size in patterns:
            for m in re.finditer(pattern, text):
                found += 1
                line = text.count("\n", 0, m.start()) + 1
                assert int(m.group(1).replace(",", "")) == size, \
                    f"{path.name}:{line}: {m.group(0)!r}, the environments' size is {size:,}"
    assert found >= 6


def test_every_test_path_the_docs_and_sources_name_exists():
    """A path under tests/ that the README, docs/, CI, a comment in the sources or a test
    names is there: when the tests moved into folders by package, some twenty such pointers
    (the golden files' ``--regenerate`` command among them) named files that were gone."""
    texts = DOCS + SOURCES + [ROOT / ".ci" / "run", *sorted(ROOT.glob("*.py")),
                              *sorted((ROOT / "tests").rglob("*.py"))]
    named = {(path.relative_to(ROOT).as_posix(), m) for path in texts
             for m in re.findall(r"\btests/[\w./*-]*[\w*]", path.read_text(encoding="utf-8"))}
    assert len(named) > 20, named                    # the pattern still finds the pointers
    missing = sorted((where, m) for where, m in named if not any(ROOT.glob(m)))
    assert not missing, f"(file, path under tests/ it names that is not there): {missing}"
