// Nivel Arena in the browser: draws what the server sends for your seat and sends moves.
// The server checks every move against the engine; this page only shows and clicks.
// api.js talks to the server, cards.js and board.js draw, play.js plays a game, setup.js
// starts one, replay.js steps through replays; this file shows panels and wires it up.
"use strict";

function show(section) {
  // leaving the viewer for the game or a new one closes its replay; the rules come back
  if (section !== "replay" && section !== "rules") closeReplay();
  for (const s of ["setup", "game", "replay", "rules"]) $(s).hidden = s !== section;
}

function fillRules(rules) {
  glossary = rules.glossary;
  const body = $("rules-body");
  for (const [head, text] of rules.basics) {
    const p = el("p");
    p.append(el("strong", "", head + ". "), document.createTextNode(text));
    body.append(p);
  }
  body.append(el("h3", "", "Keywords"));
  const ul = el("ul");
  for (const k of rules.keywords) ul.append(el("li", "", k));
  body.append(ul);
}

function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || document.querySelector("dialog[open]")) return;
  if (!$("game").hidden) gameKey(ev);
  else if (!$("replay").hidden) replayKey(ev);
}

function wire() {
  document.addEventListener("pointerdown", noteInput, true);
  document.addEventListener("keydown", noteInput, true);
  document.addEventListener("keydown", onKey);
  $("setup-form").addEventListener("submit", startGame);
  $("nav-new").addEventListener("click", showSetup);
  $("nav-rules").addEventListener("click", () => show("rules"));
  $("rules-close").addEventListener("click",
                                  () => show(replay ? "replay" : game ? "game" : "setup"));
  $("start-guided").addEventListener("click", startGuided);
  $("hint").addEventListener("click", askHint);
  $("surrender").addEventListener("click", surrender);
  $("rematch").addEventListener("click", rematch);
  $("review").addEventListener("click", reviewGame);
  document.querySelectorAll("button.deck-list").forEach((b) => b.addEventListener(
    "click", () => showDeckList($(b.dataset.for).value)));
  document.querySelectorAll("dialog").forEach((d) => {
    closeOnBackdrop(d);
    d.querySelector("button.close").addEventListener("click", () => d.close());
  });
  window.addEventListener("pagehide", closeReplay);
  $("replay-file").addEventListener("change", (ev) => loadReplayFile(ev.target.files[0]));
  document.querySelectorAll("[data-step]").forEach((b) => b.addEventListener("click", () => {
    const to = { start: 0, prev: replay.step - 1, next: replay.step + 1,
                 end: replay.steps }[b.dataset.step];
    stepReplay(to);
  }));
  $("replay-step").addEventListener("change", (ev) => stepReplay(Number(ev.target.value)));
}

async function init() {
  try {
    fillOptions(await api("GET", "/api/options"));
    fillRules(await api("GET", "/api/rules"));
  } catch (e) { showError(`the page could not load its menus: ${e.message}`); return; }
  // a reloaded page picks its game up again (the id is the only key to it)
  const saved = recalled("nivelGame");
  if (saved) {
    try { showGame(await api("GET", `/api/games/${saved}`)); return; }
    catch (e) { remember("nivelGame", null); }
  }
  refreshMyGames();
}

wire();
init();
