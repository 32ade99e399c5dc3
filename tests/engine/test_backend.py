"""The backend switch: which engine ``new_game`` builds (``engine.backend.resolve_backend``)
and the optional native core's front (``nivel_env.native``).

The native core's availability is set by hand here (``native._loaded``), so these tests
say the same on a machine with the core built and on one installed without a compiler.
"""
from __future__ import annotations

import subprocess
import sys
import types
import warnings

import pytest

from conftest import ROOT
from nivel_env import native
from nivel_env.engine import Game, backend, new_game

WHY = "the native core is not built: test reason"


@pytest.fixture
def unavailable(monkeypatch):
    monkeypatch.setattr(native, "_loaded", (None, WHY))
    monkeypatch.setattr(backend, "_fallback_said", False)


@pytest.fixture
def available(monkeypatch):
    monkeypatch.setattr(native, "_loaded", (types.ModuleType("nivel_env.native._core"), ""))


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("NIVEL_BACKEND", raising=False)


def test_the_default_is_the_native_core_where_it_loads(available, monkeypatch):
    assert backend.DEFAULT == "auto"
    assert backend.resolve_backend() == "native"
    monkeypatch.setenv("NIVEL_BACKEND", "  ")
    assert backend.resolve_backend(None) == "native"


def test_the_default_is_python_where_the_core_is_not_built(unavailable):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert backend.resolve_backend() == "python" == backend.resolve_backend(None)
    assert len(said) == 1 and WHY in str(said[0].message)


def test_the_environment_variable_picks_when_no_argument(available, monkeypatch):
    for value, expect in (("python", "python"), ("native", "native"), (" Native ", "native"),
                          ("auto", "native")):
        monkeypatch.setenv("NIVEL_BACKEND", value)
        assert backend.resolve_backend() == expect, value


def test_an_explicit_argument_wins_over_the_environment(unavailable, monkeypatch):
    monkeypatch.setenv("NIVEL_BACKEND", "native")
    assert backend.resolve_backend("python") == "python"
    monkeypatch.setenv("NIVEL_BACKEND", "nonsense")
    assert backend.resolve_backend("python") == "python"


def test_a_bad_environment_value_names_the_variable_and_the_choices(monkeypatch):
    monkeypatch.setenv("NIVEL_BACKEND", "cpp")
    with pytest.raises(ValueError) as e:
        backend.resolve_backend()
    assert "NIVEL_BACKEND" in str(e.value) and "'cpp'" in str(e.value)
    assert "python, native, auto" in str(e.value)


@pytest.mark.parametrize("bad", ["cpp", "", 1, True])
def test_a_bad_argument_names_the_argument_and_the_choices(bad):
    with pytest.raises(ValueError, match=r"backend is .*expected one of python, native, auto"):
        backend.resolve_backend(bad)


def test_native_where_unavailable_says_why(unavailable, monkeypatch):
    with pytest.raises(native.NativeCoreUnavailable) as e:
        backend.resolve_backend("native")
    assert str(e.value) == f"backend='native': {WHY}"
    monkeypatch.setenv("NIVEL_BACKEND", "native")
    with pytest.raises(ImportError, match="NIVEL_BACKEND=native: " + WHY):
        backend.resolve_backend()


def test_auto_falls_back_to_python_and_says_so_once(unavailable, monkeypatch):
    with pytest.warns(RuntimeWarning, match="games run on the Python engine") as said:
        assert backend.resolve_backend("auto") == "python"
    assert WHY in str(said[0].message)
    monkeypatch.setenv("NIVEL_BACKEND", "auto")
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a second warning would raise here
        assert backend.resolve_backend() == "python"
        assert backend.resolve_backend("auto") == "python"


def test_auto_takes_native_when_available(available):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert backend.resolve_backend("auto") == "native"


def _play(g, moves=40):
    for _ in range(moves):
        if g.is_terminal():
            break
        legal = g.legal_actions()
        g.apply_action(legal[len(legal) // 2])
    return g


def test_python_backend_is_todays_game(decks, available, monkeypatch):
    g = new_game(*decks, seed=3, backend="python")
    assert type(g) is Game and g.backend == Game.backend == "python"
    before = _play(g).to_dict()
    monkeypatch.setenv("NIVEL_BACKEND", "python")
    h = new_game(*decks, seed=3)
    assert type(h) is Game and _play(h).to_dict() == before
    with pytest.raises(AttributeError):         # a class attribute, not per-game state
        g.backend = "native"


def test_native_backend_calls_the_native_game(decks, db, available, monkeypatch):
    calls = []
    fake = types.ModuleType("nivel_env.native.game")
    fake.new_native_game = lambda *args: calls.append(args) or "a native game"
    monkeypatch.setitem(sys.modules, "nivel_env.native.game", fake)
    assert new_game(*decks, seed=9, db=db, mirror=True, backend="native") == "a native game"
    assert calls == [(decks[0], decks[1], 9, None, db, True)]
    monkeypatch.setenv("NIVEL_BACKEND", "native")
    assert new_game(*decks, seed=4) == "a native game"


def test_native_backend_unavailable_builds_no_game(decks, unavailable):
    with pytest.raises(native.NativeCoreUnavailable, match=WHY):
        new_game(*decks, seed=1, backend="native")


def test_the_core_front_says_why_in_words(unavailable):
    assert not native.available() and native.why_unavailable() == WHY
    with pytest.raises(ImportError, match=WHY):
        native.core()
    missing = ModuleNotFoundError("No module named 'nivel_env.native._core'",
                                  name="nivel_env.native._core")
    words = native.explain(missing)
    assert "not built" in words and "C++17 compiler" in words and "pip install -e ." in words
    broken = native.explain(ImportError("undefined symbol: _ZN5nivel4stepEv"))
    assert "does not load" in broken and "undefined symbol" in broken
    assert "pip install -e ." in broken


def test_the_core_front_matches_the_real_import():
    """Whatever this machine has: available() is whether the module imports."""
    try:
        import nivel_env.native._core as real
    except ImportError as err:
        assert not native.available() and native.why_unavailable() == native.explain(err)
    else:
        assert native.available() and native.why_unavailable() == ""
        assert native.core() is real


def test_importing_the_engine_does_not_load_the_core():
    code = ("import sys, nivel_env.engine, nivel_env.native\n"
            "assert 'nivel_env.native._core' not in sys.modules, 'loaded'\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
