// The New game panel: the menus the server offers, each deck's list to read before choosing,
// the player's open games (resume or close), and starting a game.
"use strict";

const MINUTE = 60;

function fillSelect(sel, items, first) {
  sel.replaceChildren();
  if (first) sel.append(new Option(first, ""));
  for (const [v, label] of items) sel.append(new Option(label, v));
}

function fillOptions(o) {
  const decks = o.decks.map((d) => [d.name, `${d.title} (${d.leader})`]);
  fillSelect($("deck"), decks, "dealt by the seed");
  fillSelect($("opponent_deck"), decks, "dealt by the seed");
  fillSelect($("opponent"), o.opponents.map((p) => [p.name, p.label]));
  o.opponents.forEach((p, i) => { $("opponent").options[i].disabled = !p.available; });
  $("opponent").value = o.default_opponent;
  fillSelect($("difficulty"), o.difficulties.map((d) => [d, d]));
  const plans = Object.fromEntries(o.decks.map((d) => [d.name, d]));
  $("deck").addEventListener("change", () => {
    const d = plans[$("deck").value];
    $("deck-plan").textContent = d ? `${d.title}: ${d.plan}` : "";
  });
  for (const b of document.querySelectorAll("button.deck-list")) {
    const sel = $(b.dataset.for);
    const sync = () => { b.disabled = !sel.value; };
    sel.addEventListener("change", sync);
    sync();
  }
}

// ------------------------------------------------------------------ deck lists
function deckEntry(entry) {  // "3 × Cinder Pup  unit · cost 1 · P2/H1", its text on a tap
  const row = el("li", "deck-card");
  row.append(el("span", "count", `${entry.count} ×`), cardChip(entry.card),
             el("span", "dim", cardStats(entry.card)));
  return row;
}

async function showDeckList(name) {
  if (!name) return;
  try {
    const d = await api("GET", `/api/decks/${encodeURIComponent(name)}`);
    $("deck-sheet-title").textContent = `${d.title}: ${d.size} cards`;
    const body = $("deck-sheet-body");
    const lead = el("p");
    lead.append(el("span", "dim", "Leader: "), cardChip(d.leader, "leader"));
    const list = el("ul", "deck-cards");
    for (const entry of d.cards) list.append(deckEntry(entry));
    body.replaceChildren(lead, el("p", "hint", d.plan || ""), list);
    openDialog($("deck-sheet"));
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ the player's games
function ago(seconds) {
  return seconds < MINUTE ? "just now" : seconds < 60 * MINUTE
    ? `${Math.floor(seconds / MINUTE)} min ago` : `${Math.floor(seconds / 3600)} h ago`;
}

function gameWords(row) {  // "Ember Rush vs Stone Bastion (random) · turn 5 · your move · ..."
  const state = row.over ? { win: "over: you won", loss: "over: you lost",
                             draw: "over: a draw" }[row.outcome]
    : row.your_move ? "your move" : "the opponent's move";
  const when = row.turn ? `turn ${row.turn}` : "opening hands";
  return `${row.deck} vs ${row.opponent_deck} (${row.opponent}) · ${when} · ` +
    `${state} · started ${ago(row.started_s)}, last played ${ago(row.idle_s)}`;
}

function myGameRow(row) {
  const li = el("li", "my-game");
  li.dataset.id = row.id;
  const onScreen = game && game.id === row.id;
  li.append(el("span", "", gameWords(row) + (onScreen ? " · on screen" : "")));
  const resume = el("button", "small", row.over ? "Open" : "Resume");
  resume.type = "button";
  resume.addEventListener("click", () => resumeGame(row.id));
  const close = el("button", "small", row.over ? "Forget" : "Close");
  close.type = "button";
  close.title = row.over ? "forget this finished game" : "surrender this game and forget it";
  close.addEventListener("click", () => closeGame(row));
  li.append(resume, close);
  return li;
}

async function refreshMyGames() {
  try {
    const { games } = await api("GET", "/api/games");
    $("my-games-list").replaceChildren(...games.map(myGameRow));
    $("my-games").hidden = !games.length;
  } catch (e) { showError(e.message); }
}

async function resumeGame(id) {
  try { showError(""); showGame(await api("GET", `/api/games/${id}`)); }
  catch (e) { showError(e.message); refreshMyGames(); }
}

async function closeGame(row) {  // close: surrender (1.2.4) if in play, and forget
  if (!row.over && !confirm("Close this game? You surrender it (1.2.4) and it is forgotten.")) {
    return;
  }
  try {
    await api("DELETE", `/api/games/${row.id}`);
    showError("");
    if (game && game.id === row.id) { game = null; remember("nivelGame", null); }
  } catch (e) { showError(e.message); }
  refreshMyGames();
}

function showSetup() {
  show("setup");
  refreshMyGames();
}

// ------------------------------------------------------------------ starting a game
async function startGame(ev) {
  ev.preventDefault();
  const body = Object.fromEntries(new FormData($("setup-form")).entries());
  if (!body.seed) delete body.seed;
  await newGame(body);
}

async function startGuided() {  // the guided first game: the server's fixed deal
  await newGame({ tutorial: true });
}

async function newGame(body) {
  if (busy || !(await endGameOnScreen())) return;
  try {
    const g = await waiting("Dealing…", () => api("POST", "/api/games", body));
    showError("");
    showGame(g);
  } catch (e) { showError(e.message); refreshMyGames(); }
}
