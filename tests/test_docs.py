"""The documentation stands on its own: no pointers outside the repository, no internal
tracker references, a LICENSE that matches pyproject, and the rulings written out."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
