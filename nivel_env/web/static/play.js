// A game in play: the status line, the question and its moves, sending a move, and the
// input guard.  The guard: for GUARD_MS after the moves are drawn anew, input does nothing
// (the buttons show as not yet active), so the second click of a double click, or a key
// typed twice, never lands on a button that appeared where another was; and a move is sent
// only against the position that was on screen when the player acted (its move count).
"use strict";

let game = null;          // the last game state from the server
let busy = false;         // a request about this game is on its way
const GUARD_MS = 350;     // input this soon after the moves are drawn does nothing
const THINKING_DELAY_MS = 150;   // a wait this long shows the thinking badge
let drawn = { id: "", moves: -1, at: -Infinity };  // the position on screen, drawn when
let settled = true;       // GUARD_MS has passed since it was drawn
let settleTimer = 0;
let lastInput = -Infinity;  // when the latest pointerdown or keydown came (performance.now)

const VERBS = { attack: "Attack", defend: "Block", guardian: "Guardian", use: "Use",
                pick: "Choose", play: "Play", upgrade: "Upgrade", equip: "Equip" };

function noteInput() {  // listens (capturing) to every pointerdown and keydown
  lastInput = performance.now();
}

function tooSoon(at) {  // input at `at` came before the moves were drawn or within the guard
  return !settled || at < drawn.at + GUARD_MS;
}

function armGuard(g) {  // a new position is about to be drawn
  drawn = { id: g.id, moves: g.moves, at: performance.now() };
  settled = false;
  clearTimeout(settleTimer);
  settleTimer = setTimeout(() => { settled = true; enableMoves(); }, GUARD_MS);
}

function enableMoves() {
  document.querySelectorAll("#game button.move").forEach((b) => {
    b.disabled = busy || !settled;
  });
}

function setBusy(on) {  // leaves the error box alone: every error stays on screen
  busy = on;
  enableMoves();
}

async function waiting(words, work) {  // busy while `work` runs; a badge if it takes a while
  setBusy(true);
  const badge = $("thinking");
  $("thinking-words").textContent = words;
  const timer = setTimeout(() => { badge.hidden = false; }, THINKING_DELAY_MS);
  try { return await work(); } finally {
    clearTimeout(timer);
    badge.hidden = true;
    setBusy(false);
  }
}

// ------------------------------------------------------------------ moves
function moveLabel(m) {
  const verb = VERBS[m.name.split(" ")[0]] || m.name;
  if (m.to !== undefined) return m.to === "skill" ? "Use as skill" : `${verb} → lane ${m.to}`;
  return verb;
}

function markTarget(lane, on) {  // outline the lane a play button would put the card in
  document.querySelectorAll(`#board .lane-cell.you[data-lane="${lane}"]`)
    .forEach((c) => c.classList.toggle("target", on));
}

function moveButton(m, label) {
  const b = el("button", "move", label || m.name);
  b.type = "button";
  b.dataset.action = m.action;
  if (m.kind) b.dataset.kind = m.kind;
  if (m.key) b.dataset.key = m.key;
  b.title = m.name + (m.key ? `  (key ${m.key})` : "");
  b.disabled = busy || !settled;
  const seen = drawn.moves;
  b.addEventListener("click", () => { if (!tooSoon(lastInput)) choose(m, seen); });
  if (typeof m.to === "number") {
    for (const [ev, on] of [["mouseenter", true], ["mouseleave", false], ["focus", true],
                            ["blur", false]])
      b.addEventListener(ev, () => markTarget(m.to, on));
  }
  return b;
}

function movesFor(where) {
  if (!game || game.over) return [];
  return game.legal.filter(where);
}

function canStillAttack() {
  return movesFor((m) => m.kind === "attack").length > 0;
}

function choose(m, seen) {  // the player picked `m` on the position drawn after `seen` moves
  if (busy || !game || game.over || seen !== game.moves) return;
  if (m.kind === "end_attack" && canStillAttack() &&
      !confirm("End the turn with units that can still attack?")) return;
  sendMove(m.action, seen);
}

function gameKey(ev) {  // the terminal's one-letter keys: e end the phase, y / n, k / m
  if (!game || ev.repeat || ["INPUT", "SELECT", "TEXTAREA"].includes(
    document.activeElement.tagName)) return;
  const m = movesFor((x) => x.key === ev.key)[0];
  if (!m) return;
  ev.preventDefault();
  if (busy || tooSoon(performance.now())) return;   // typed ahead: dropped, never queued
  choose(m, drawn.moves);
}

async function sendMove(action, seen = game.moves) {
  if (busy || !game) return;
  const id = game.id;
  try {
    const next = await waiting("The opponent is thinking…", () => api(
      "POST", `/api/games/${id}/move`, { action, moves: seen, since: game.log_total }));
    showError("");
    showGame(next);
  } catch (e) {
    showError(e.message);
    // the page may be out of date: fetch the game as it is (nothing changed)
    try { showGame(await api("GET", `/api/games/${id}?since=${game.log_total}`)); }
    catch (_) { /* the error is shown above */ }
  }
}

// ------------------------------------------------------------------ drawing a game
function statusLine(g) {
  const b = g.board;
  const decks = `${g.deck} vs ${g.opponent_deck} (${g.opponent})`;
  // the server sends the seed only once the game is over: it deals every hidden card
  if (g.over) return `Game over after ${b.turn} turns · ${decks} · seed ${g.seed}`;
  const order = `you ${b.turn ? "went" : "go"} ${b.first ? "first" : "second"}`;
  if (b.phase === "setup") {                       // opening hands, 5.1.6
    const who = b.deciding === "you" ? "keep yours or draw 5 new cards (once)"
                                     : "the opponent decides on theirs";
    return `Opening hands: ${who} · ${decks} · ${order}`;
  }
  const whose = b.your_turn ? "your" : "the opponent's";
  return `Turn ${b.turn} · ${whose} turn, ${b.phase} phase · ${decks} · ${order}`;
}

function renderMoves(g) {
  const bar = $("moves");
  bar.replaceChildren();
  const general = (m) => m.hand === undefined && m.unit === undefined && m.leader === undefined;
  for (const m of movesFor(general)) bar.append(moveButton(m, m.name));
}

function renderLog(g) {  // lines from g.log_from on; from 0 they are the whole log
  const log = $("log");
  if (g.log_from === 0) log.replaceChildren();
  for (const line of g.log) log.append(el("li", line.startsWith("-- Turn") ? "turn-line" : "",
                                          line));
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
}

function renderResult(g) {
  const res = $("result");
  res.hidden = !g.over;
  if (!g.over) return;
  const last = $("log").lastElementChild ? $("log").lastElementChild.textContent : "";
  const why = last.startsWith("Game over") ? last.split(" — ").slice(1).join(" — ") : "";
  res.textContent = { win: "You win!", loss: "You lose.", draw: "A draw." }[g.outcome] +
    (why ? ` ${why[0].toUpperCase()}${why.slice(1)}` : "");
  res.className = `result ${g.outcome}`;
}

function renderTools(g) {
  $("surrender").hidden = g.over;
  // the replay holds the seed: the server gives it (to save or review) once the game is over
  $("save-replay").hidden = $("review").hidden = $("rematch").hidden = !g.over;
  $("save-replay").href = g.over ? `/api/games/${g.id}/replay` : "#";
}

function renderForecast(g) {  // before a block: what each answer does, from the board now
  const lines = g.over ? [] : g.board.forecast || [];
  $("forecast").replaceChildren(...lines.map((line) => el("li", "", line)));
  $("forecast").hidden = !lines.length;
}

// ------------------------------------------------------------------ the coach
let shownHint = null;     // {moves, hint}: the coach's hint for the position on screen

function renderCoach(g) {  // the guided game's hint at every move, another game's on asking
  const h = g.coach || (shownHint && shownHint.id === g.id && shownHint.moves === g.moves
    ? shownHint.hint : null);
  $("coach").hidden = !h || g.over;
  $("hint").hidden = g.over || Boolean(g.guided);
  document.querySelectorAll("#game button.move.hinted")
    .forEach((b) => b.classList.remove("hinted"));
  if (!h || g.over) return;
  $("coach-why").textContent = h.why;
  $("coach-lesson").textContent = h.lesson ? `Lesson: ${h.lesson}` : "";
  $("coach-lesson").hidden = !h.lesson;
  document.querySelectorAll(`#game button.move[data-action="${h.action}"]`)
    .forEach((b) => b.classList.add("hinted"));
}

async function askHint() {
  if (!game || game.over || busy) return;
  try {
    const { hint } = await api("GET", `/api/games/${game.id}/hint`);
    shownHint = { id: game.id, moves: game.moves, hint };
    renderCoach(game);
  } catch (e) { showError(e.message); }
}

function render() {
  const g = game;
  if (g.id !== drawn.id || g.moves !== drawn.moves) armGuard(g);
  $("status").textContent = statusLine(g);
  drawBoard($("board"), g.board, ["You", "Opponent"], true);
  $("question").textContent = g.over ? "" : (g.board.question || "The opponent is thinking…");
  renderForecast(g);
  renderMoves(g);
  renderCoach(g);
  renderLog(g);
  renderResult(g);
  renderTools(g);
}

function showGame(g) {  // `g` becomes the game on screen (a reloaded page picks it up)
  game = g;
  remember("nivelGame", g.id);
  show("game");
  render();
}

// ------------------------------------------------------------------ ending a game
async function surrender() {
  if (!game || game.over || !confirm("Surrender this game?")) return;
  try {
    const next = await waiting("Surrendering…", () => api(
      "POST", `/api/games/${game.id}/surrender`, { since: game.log_total }));
    showError("");
    showGame(next);
  } catch (e) { showError(e.message); }
}

async function endGameOnScreen() {  // before a new game: true when none is left in play
  if (!game || game.over) return true;
  if (!confirm("Start a new game? The game in play ends: you surrender it (1.2.4).")) {
    return false;
  }
  try {
    game = await api("POST", `/api/games/${game.id}/surrender`, { since: game.log_total });
    return true;
  } catch (e) { showError(e.message); return false; }
}

async function rematch() {  // the same decks, opponent, difficulty and seat; a fresh seed
  if (!game || !game.over) return;
  try {
    const next = await waiting("Dealing…", () => api("POST", `/api/games/${game.id}/rematch`));
    showError("");
    showGame(next);
  } catch (e) { showError(e.message); }
}
