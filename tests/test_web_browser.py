"""The browser game in a real browser: headless Chromium (Debian's ``chromium`` package,
driven by Playwright) plays a whole game against the random opponent by clicking the
move buttons, checks the narration and the result, and saves screenshots.

Runs against ``python -m nivel_env serve`` started in its own process, as a user would.
Needs ``playwright`` (the dev extra) and a Chromium; ``.ci/run`` installs both, so in CI
this test runs (elsewhere it is skipped, saying what is missing).
"""
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("NIVEL_CHROMIUM") or shutil.which("chromium") or \
    shutil.which("chromium-browser")
SHOTS = Path(os.environ.get("NIVEL_SCREENSHOTS", ROOT / "results" / "screenshots"))

playwright = pytest.importorskip("playwright.sync_api", reason="needs playwright (dev extra)")
if not CHROMIUM and os.environ.get("CI"):
    pytest.fail("CI must install Debian's chromium for the browser test", pytrace=False)
pytestmark = pytest.mark.skipif(not CHROMIUM, reason="needs a Chromium (apt install chromium)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(*args):
    """``python -m nivel_env serve ARGS`` on a free port: (its URL, the process)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "nivel_env", "serve", "--port", str(port),
                             *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url + "/api/options", timeout=1).read()
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stdout.read().decode())
            time.sleep(0.1)
    return url, proc


@pytest.fixture(scope="module")
def server():
    url, proc = _serve()
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _new_game(page, server, seed: int, **choices) -> None:
    """Open the page and start a game against the random opponent."""
    page.goto(server)
    page.wait_for_selector("#opponent option", state="attached")
    page.select_option("#opponent", "random")
    for field, value in choices.items():
        page.select_option(f"#{field}", value)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")


def _play_to_the_end(page, rng, shot_at: int | None = None) -> int:
    clicks = 0
    while not page.locator("#result").is_visible():
        page.wait_for_selector("button.move:enabled, #result:visible", timeout=60_000)
        if page.locator("#result").is_visible():
            break
        if shot_at is not None and clicks == shot_at:
            page.screenshot(path=str(SHOTS / "browser-game.png"), full_page=True)
        buttons = page.locator("button.move:enabled")
        n = buttons.count()
        if n == 0:
            continue
        buttons.nth(rng.randrange(n)).click()
        clicks += 1
        assert clicks < 3000, "the game does not end"
    return clicks


def test_a_whole_game_against_the_random_opponent(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _new_game(page, server, 11, deck="ember-rush", opponent_deck="stone-bastion")
    # the seed deals every hidden card: shown once the game is over, as are the replay tools
    assert "seed" not in page.inner_text("#status")
    assert not page.locator("#review").is_visible()
    assert not page.locator("#save-replay").is_visible()
    # the first decision is the mulligan; the board shows both sides and the hand
    assert "Keep your opening hand" in page.inner_text("#question")
    assert page.locator(".hand-cards .card").count() == 5
    clicks = _play_to_the_end(page, random.Random(5), shot_at=12)
    log = page.inner_text("#log")
    assert "-- Turn 1:" in log and " attacks." in log and "damage zone" in log
    assert "Game over: you " in log
    result = page.inner_text("#result")
    assert result.startswith(("You win! ", "You lose. ", "A draw. ")), result
    why = log.split("Game over: ")[-1].split(" — ")[1].strip().rstrip(".")
    assert why[1:] in result                                          # ... and why
    assert not page.locator("#surrender").is_visible()
    assert "seed 11" in page.inner_text("#status")
    assert page.locator("#save-replay").is_visible()
    page.screenshot(path=str(SHOTS / "browser-game-over.png"), full_page=True)
    # the finished game steps back as a replay
    page.click("#review")
    page.wait_for_selector("#replay:not([hidden])")
    page.click("[data-step=next]")
    page.wait_for_function("document.querySelector('#replay-status').textContent"
                           ".includes('move 1 of')")
    assert "Next:" in page.inner_text("#replay-next")
    for step in range(2, 31):
        page.click("[data-step=next]")
        page.wait_for_function("document.querySelector('#replay-status').textContent"
                               f".includes('move {step} of')")
    assert "AI (random)'s hand:" in page.inner_text("#replay-board")   # both hands shown
    page.screenshot(path=str(SHOTS / "browser-replay.png"), full_page=True)
    assert clicks > 10 and not errors, errors
    page.close()


def test_leaving_a_replay_closes_it_so_reviews_never_run_out(server, browser):
    """The server keeps 4 open replays a client: the page closes each one it leaves
    (DELETE), so a player can review again and again."""
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.on("dialog", lambda d: d.accept())
    _new_game(page, server, 8)
    page.click("#surrender")
    page.wait_for_selector("#review:visible")
    for _ in range(5):
        page.click("#review")
        page.wait_for_selector("#replay:not([hidden])")
        assert page.locator("#error").is_hidden()
        page.click("#nav-new")                         # leaves the viewer
        page.reload()                                  # the finished game comes back
        page.wait_for_selector("#review:visible")
    page.close()


def test_the_rules_opened_from_a_replay_come_back_to_it(server, browser):
    """Reading the rules while stepping through a replay keeps the replay: Close returns to
    it where it was and stepping still works (the replay is closed only on leaving for the
    game or a new one)."""
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page.on("dialog", lambda d: d.accept())
    _new_game(page, server, 9)
    page.click("#surrender")
    page.wait_for_selector("#review:visible")
    page.click("#review")
    page.wait_for_selector("#replay:not([hidden])")
    page.locator("[data-step=next]").click()
    page.wait_for_function("replay && replay.step === 1")
    page.click("#nav-rules")
    page.wait_for_selector("#rules:not([hidden])")
    page.click("#rules-close")
    page.wait_for_selector("#replay:not([hidden])")
    page.locator("[data-step=next]").click()
    page.wait_for_function("replay && replay.step === 2")
    assert page.locator("#error").is_hidden(), page.inner_text("#error")
    page.close()


def test_an_illegal_move_from_a_stale_page_is_refused_and_shown(server, browser):
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
    _new_game(page, server, 3)
    page.wait_for_selector("button.move:enabled")
    assert "Keep your opening hand" in page.inner_text("#question")
    page.keyboard.press("k")                          # the terminal's keys work here too
    page.wait_for_function("document.querySelector('#log').textContent"
                           ".includes('You keep the opening hand.')")
    page.wait_for_selector("button.move:enabled")
    # send a move chosen on the position before the last move: refused, nothing changes
    state = page.evaluate("game")
    page.locator("button.move:enabled").first.click()
    page.wait_for_function(f"game.moves > {state['moves']}")
    page.evaluate(f"game.moves = {state['moves']}; sendMove({state['legal'][0]['action']})")
    page.wait_for_selector("#error:not([hidden])")
    assert "nothing changed" in page.inner_text("#error")
    # a reloaded page picks the game up where it was
    moves = page.evaluate("game.moves")
    page.reload()
    page.wait_for_selector("#game:not([hidden])")
    assert page.evaluate("game.moves") == moves and "Turn " in page.inner_text("#status")
    assert "seed" not in page.inner_text("#status") and page.locator("#review").is_hidden()
    assert page.locator("#log li").count() > 3
    page.close()


def test_a_refused_new_game_says_why(browser):
    """A 429 (too many games for this client) is shown, not cleared as the page stops
    waiting (issue 29)."""
    url, proc = _serve("--games-per-client", "1")
    try:
        page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 900})
        _new_game(page, url, 4)
        page.click("#nav-new")
        page.click("#start")
        page.wait_for_selector("#error:not([hidden])")
        assert "at most 1" in page.inner_text("#error")
        page.wait_for_timeout(300)                     # and it stays
        assert page.locator("#error").is_visible() and not page.locator("#game").is_visible()
        page.close()
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_phone_sized_screen_shows_the_whole_game(server, browser):
    # under the page's own Content-Security-Policy (the others lift it: their checks
    # evaluate script text, which the policy forbids)
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    _new_game(page, server, 21)
    page.wait_for_selector("button.move:enabled")
    for _ in range(8):                                  # a few moves in
        page.locator("button.move:enabled").first.click()
        page.wait_for_selector("button.move:enabled, #result:visible")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 2, f"the page is {width}px wide on a 390px screen"
    page.screenshot(path=str(SHOTS / "browser-phone.png"), full_page=True)
    assert not errors, errors
    page.close()
