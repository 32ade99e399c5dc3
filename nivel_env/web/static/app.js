// Nivel Arena in the browser: draws what the server sends for your seat and sends moves.
// The server checks every move against the engine; this page only shows and clicks.
"use strict";

const $ = (id) => document.getElementById(id);
let game = null;          // the last game state from the server
let replay = null;        // the replay being stepped through
let busy = false;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(method, path, body, raw) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = raw ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = raw ? "text/plain" : "application/json";
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: `${r.status} ${r.statusText}` }; }
  if (!r.ok) throw new Error(data.error || `${r.status} ${r.statusText}`);
  return data;
}

function show(section) {
  // leaving the viewer for the game or a new one closes its replay; the rules come back
  if (section !== "replay" && section !== "rules") closeReplay();
  for (const s of ["setup", "game", "replay", "rules"]) $(s).hidden = s !== section;
}

// ------------------------------------------------------------------ cards
function cardTitle(c) {
  return `${c.name} (${c.line})\n${c.text || "(no text)"}`;
}

function showDetail(c) {
  const d = $("detail");
  d.replaceChildren(el("strong", "", c.name), el("span", "dim", `  ${c.line}`),
                    el("pre", "", c.text || "(no text)"));
  d.hidden = false;
}

function cardChip(c, cls) {
  const e = el("span", `chip attr-${c.attribute || "none"} ${cls || ""}`, c.name);
  e.title = cardTitle(c);
  e.tabIndex = 0;
  e.addEventListener("click", () => showDetail(c));
  return e;
}

function cardBox(c, extra) {
  const e = el("div", `card attr-${c.attribute || "none"}`);
  e.title = cardTitle(c);
  e.append(el("div", "card-name", c.name));
  const bits = [c.type + (c.trigger ? " · T" : "")];
  if (c.cost !== undefined) bits.push(`cost ${c.cost}`);
  if (c.power !== undefined) bits.push(`P${c.power}/H${c.hit}`);
  e.append(el("div", "card-line", bits.join(" · ")));
  if (extra) e.append(extra);
  e.addEventListener("click", (ev) => { if (ev.target.tagName !== "BUTTON") showDetail(c); });
  return e;
}

let glossary = {};        // keyword name -> what it does, with its rule number

function explain(label) {  // "Guardian (Barrier 1)" -> the lines for Guardian and Barrier
  const names = Object.keys(glossary).filter((n) => label.includes(n));
  return names.map((n) => glossary[n]).join("\n");
}

// ------------------------------------------------------------------ moves
const VERBS = { attack: "Attack", defend: "Block", guardian: "Guardian", use: "Use",
                pick: "Choose", play: "Play", upgrade: "Upgrade", equip: "Equip" };

function moveLabel(m) {
  const verb = VERBS[m.name.split(" ")[0]] || m.name;
  if (m.to !== undefined) return m.to === "skill" ? "Use as skill" : `${verb} → lane ${m.to}`;
  return verb;
}

function moveButton(m, label) {
  const b = el("button", "move", label || m.name);
  b.type = "button";
  b.dataset.action = m.action;
  if (m.key) b.dataset.key = m.key;
  b.title = m.name + (m.key ? `  (key ${m.key})` : "");
  b.disabled = busy;
  b.addEventListener("click", () => sendMove(m.action));
  if (typeof m.to === "number") {            // show where the card would go
    const mark = (on) => document.querySelectorAll(
      `#board .lane-cell.you[data-lane="${m.to}"]`)
      .forEach((c) => c.classList.toggle("target", on));
    b.addEventListener("mouseenter", () => mark(true));
    b.addEventListener("mouseleave", () => mark(false));
    b.addEventListener("focus", () => mark(true));
    b.addEventListener("blur", () => mark(false));
  }
  return b;
}

function movesFor(where) {
  if (!game || game.over) return [];
  return game.legal.filter(where);
}

// ------------------------------------------------------------------ the board
function sideSummary(side, label) {
  const s = el("div", "side");
  const head = el("div", "side-head");
  const lead = cardChip(side.leader, "leader");
  head.append(el("strong", "", `${label}: `), lead,
    el("span", "", ` · level ${side.level}${side.awakened ? " (awakened)" : ""}` +
                   ` · size ${side.size}, cost in use ${side.cost_in_use}`),
    el("span", side.damage.length >= 7 ? "danger" : "", ` · damage ${side.damage.length}/10`),
    el("span", "dim",
       ` · deck ${side.deck} · hand ${side.hand_count} · trash ${side.trash.length}`));
  s.append(head);
  return { s, lead };
}

function zoneRow(label, cards, folded) {
  if (folded && cards.length) {              // a long list (the trash) opens on a click
    const d = el("details", "zone");
    d.append(el("summary", "", `${label}: ${cards.length} card${cards.length === 1 ? "" : "s"}`));
    for (const c of cards) d.append(cardChip(c));
    return d;
  }
  const r = el("div", "zone");
  r.append(el("span", "zone-label", `${label}:`));
  if (!cards.length) r.append(el("span", "dim", " none"));
  for (const c of cards) r.append(cardChip(c));
  return r;
}

function unitCell(unit, sideName, lane, interactive) {
  const cell = el("div", `lane-cell ${sideName}`);
  cell.dataset.side = sideName;
  cell.dataset.lane = lane;
  if (!unit) cell.append(el("div", "empty", "—"));
  else {
    const stats = el("div", "stats", `P${unit.power} H${unit.hit}`);
    if (unit.power !== unit.card.power || unit.hit !== unit.card.hit)
      stats.append(el("span", "dim", ` (printed ${unit.card.power}/${unit.card.hit})`));
    const box = cardBox(unit.card, stats);
    box.classList.add("unit");
    if (unit.keywords.length) {
      const kw = el("div", "keywords");
      unit.keywords.forEach((k, i) => {
        const span = el("span", "keyword", k);
        span.title = explain(k);
        kw.append(span, i < unit.keywords.length - 1 ? ", " : "");
      });
      box.append(kw);
    }
    for (const it of unit.items) box.append(cardChip(it, "item"));
    cell.append(box);
  }
  if (interactive) {
    const ms = movesFor((m) => m.unit === sideName && m.lane === lane);
    if (ms.length) {
      const bar = el("div", "card-moves");
      for (const m of ms) bar.append(moveButton(m, moveLabel(m)));
      cell.append(bar);
    }
  }
  return cell;
}

function drawBoard(target, board, names, interactive) {
  const root = el("div", "board");
  const opp = sideSummary(board.opponent, names[1]);
  root.append(opp.s);
  const oz = el("div", "zones");
  oz.append(zoneRow("skills", board.opponent.skills), zoneRow("damage zone", board.opponent.damage),
            zoneRow("trash", board.opponent.trash, true));
  if (board.opponent.hand) oz.append(zoneRow(`${names[1]}'s hand`, board.opponent.hand));
  else if (board.opponent.known.length)
    oz.append(zoneRow("known in their hand", board.opponent.known));
  root.append(oz);

  const lanes = el("div", "lanes");
  for (let ln = 0; ln < 3; ln++) lanes.append(el("div", "lane-label", `lane ${ln}`));
  for (const side of ["opponent", "you"])
    for (let ln = 0; ln < 3; ln++)
      lanes.append(unitCell(board[side].lanes[ln], side, ln, interactive));
  root.append(lanes);

  const me = sideSummary(board.you, names[0]);
  root.append(me.s);
  if (interactive) {
    const ms = movesFor((m) => m.leader === "you");
    for (const m of ms)
      me.s.append(moveButton(m, `Use leader: ${m.name.split(": ").slice(1).join(": ")}`));
  }
  const mz = el("div", "zones");
  mz.append(zoneRow("skills", board.you.skills), zoneRow("damage zone", board.you.damage),
            zoneRow("trash", board.you.trash, true));
  root.append(mz);

  const hand = el("div", "hand");
  hand.append(el("h3", "", `${names[0] === "You" ? "Your" : names[0] + "'s"} hand`));
  const row = el("div", "hand-cards");
  (board.you.hand || []).forEach((c, i) => {
    const box = cardBox(c, el("div", "card-text", c.text || ""));
    box.dataset.hand = i;
    if (interactive) {
      const ms = movesFor((m) => m.hand === i);
      if (ms.length) {
        const bar = el("div", "card-moves");
        for (const m of ms) bar.append(moveButton(m, moveLabel(m)));
        box.append(bar);
      }
    }
    row.append(box);
  });
  if (!(board.you.hand || []).length) row.append(el("span", "dim", "(empty)"));
  hand.append(row);
  root.append(hand);
  target.replaceChildren(root);
}

// ------------------------------------------------------------------ a game
function render() {
  const g = game;
  const b = g.board;
  const whose = b.your_turn ? "your" : "the opponent's";
  // the server sends the seed only once the game is over: it deals every hidden card
  $("status").textContent = g.over
    ? `Game over after ${b.turn} turns · ${g.deck} vs ${g.opponent_deck} (${g.opponent}) · ` +
      `seed ${g.seed}`
    : `Turn ${b.turn} · ${whose} turn, ${b.phase} phase · ${g.deck} vs ${g.opponent_deck} ` +
      `(${g.opponent}) · you went ${b.first ? "first" : "second"}`;
  drawBoard($("board"), b, ["You", "Opponent"], true);
  $("question").textContent = g.over ? "" : (b.question || "The opponent is thinking…");
  const bar = $("moves");
  bar.replaceChildren();
  const general = (m) => m.hand === undefined && m.unit === undefined && m.leader === undefined;
  for (const m of movesFor(general)) bar.append(moveButton(m, m.name));
  const log = $("log");
  for (const line of g.log) {
    const li = el("li", line.startsWith("-- Turn") ? "turn-line" : "", line);
    log.append(li);
  }
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
  const res = $("result");
  res.hidden = !g.over;
  if (g.over) {
    const last = $("log").lastElementChild ? $("log").lastElementChild.textContent : "";
    const why = last.startsWith("Game over") ? last.split(" — ").slice(1).join(" — ") : "";
    res.textContent = { win: "You win!", loss: "You lose.", draw: "A draw." }[g.outcome] +
      (why ? ` ${why[0].toUpperCase()}${why.slice(1)}` : "");
    res.className = `result ${g.outcome}`;
  }
  $("surrender").hidden = g.over;
  // the replay holds the seed: the server gives it (to save or review) once the game is over
  $("save-replay").hidden = $("review").hidden = !g.over;
  $("save-replay").href = g.over ? `/api/games/${g.id}/replay` : "#";
}

async function startGame(ev) {
  ev.preventDefault();
  const f = new FormData($("setup-form"));
  const body = Object.fromEntries(f.entries());
  if (!body.seed) delete body.seed;
  showError("");
  setBusy(true, "Dealing…");
  try {
    game = await api("POST", "/api/games", body);
    localStorage.setItem("nivelGame", game.id);
    $("log").replaceChildren();
    $("detail").hidden = true;
    show("game");
    render();
  } catch (e) { showError(e.message); } finally { setBusy(false); }
}

function setBusy(on, text) {  // leaves the error box alone: every error stays on screen
  busy = on;
  document.querySelectorAll("button.move").forEach((b) => { b.disabled = on; });
  if (on && text) $("question").textContent = text;
}

async function sendMove(action) {
  if (busy || !game) return;
  setBusy(true, "The opponent is thinking…");
  try {
    game = await api("POST", `/api/games/${game.id}/move`,
                     { action, moves: game.moves, since: game.log_total });
    showError("");
    render();
  } catch (e) {
    busy = false;
    showError(e.message);
    // the page may be out of date: fetch the game as it is (nothing changed)
    try {
      game = await api("GET", `/api/games/${game.id}?since=${game.log_total}`);
      render();
    } catch (_) { /* the error is shown above */ }
    return;
  }
  setBusy(false);
}

async function surrender() {
  if (!game || !confirm("Surrender this game?")) return;
  try {
    game = await api("POST", `/api/games/${game.id}/surrender`, { since: game.log_total });
    render();
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ replays
function closeReplay() {  // the server keeps a few replays a client; free this one's place
  if (!replay) return;
  fetch(`/api/replays/${replay.id}`, { method: "DELETE", keepalive: true }).catch(() => {});
  replay = null;
}

function openReplay(r) {
  closeReplay();
  replay = r;
  show("replay");
  renderReplay();
}

function winner(r, names) {
  const mine = r.result[r.seat];
  return mine > 0 ? `${names[r.seat]} won` : mine < 0 ? `${names[1 - r.seat]} won` : "a draw";
}

function renderReplay() {
  const r = replay;
  const names = r.players.map((p, i) => (p === "you" ? "You" : `P${i} ${p}`));
  $("replay-status").textContent = `Replay: ${r.decks[0]} (${r.players[0]}) vs ${r.decks[1]} ` +
    `(${r.players[1]}) · seed ${r.seed} · move ${r.step} of ${r.steps}` +
    (r.result ? ` · result ${winner(r, names)}` : "");
  $("replay-step").max = r.steps;
  $("replay-step").value = r.step;
  const told = r.lines.map((l) => el("li", "", l));
  if (r.last)
    told.unshift(el("li", "turn-line", `Move ${r.step}: ${r.last.player} — ${r.last.name}`));
  $("replay-lines").replaceChildren(...told);
  $("replay-next").textContent = r.next ? `Next: ${r.next.player} — ${r.next.name}`
                                        : "End of the replay.";
  drawBoard($("replay-board"), r.board, [names[r.seat], names[1 - r.seat]], false);
}

async function stepReplay(to) {
  if (!replay) return;
  const step = Math.max(0, Math.min(replay.steps, to));
  try { replay = await api("GET", `/api/replays/${replay.id}?step=${step}`); renderReplay(); }
  catch (e) { showError(e.message); }
}

async function loadReplayFile(file) {
  if (!file) return;
  try {
    const text = await file.text();
    openReplay(await api("POST", `/api/replays?name=${encodeURIComponent(file.name)}`, text,
                         true));
    showError("");
  } catch (e) { showError(e.message); }
  $("replay-file").value = "";
}

// ------------------------------------------------------------------ setup
async function init() {
  try {
    const o = await api("GET", "/api/options");
    const fill = (sel, items, first) => {
      sel.replaceChildren();
      if (first) sel.append(new Option(first, ""));
      for (const [v, label] of items) sel.append(new Option(label, v));
    };
    const decks = o.decks.map((d) => [d.name, `${d.title} (${d.leader})`]);
    const plans = Object.fromEntries(o.decks.map((d) => [d.name, d]));
    $("deck").addEventListener("change", () => {
      const d = plans[$("deck").value];
      $("deck-plan").textContent = d ? `${d.title}: ${d.plan}` : "";
    });
    fill($("deck"), decks, "dealt by the seed");
    fill($("opponent_deck"), decks, "dealt by the seed");
    fill($("opponent"), o.opponents.map((p) => [p.name, p.label]));
    o.opponents.forEach((p, i) => { $("opponent").options[i].disabled = !p.available; });
    $("opponent").value = o.default_opponent;
    fill($("difficulty"), o.difficulties.map((d) => [d, d]));
    const rules = await api("GET", "/api/rules");
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
  } catch (e) { showError(`cannot reach the server: ${e.message}`); return; }
  // a reloaded page picks its game up again (the id is the only key to it)
  const saved = localStorage.getItem("nivelGame");
  if (saved) {
    try { game = await api("GET", `/api/games/${saved}`); show("game"); render(); }
    catch (e) { localStorage.removeItem("nivelGame"); }
  }
}

$("setup-form").addEventListener("submit", startGame);
$("nav-new").addEventListener("click", () => show("setup"));
$("nav-rules").addEventListener("click", () => { show("rules"); });
$("rules-close").addEventListener("click",
                                () => show(replay ? "replay" : game ? "game" : "setup"));
$("surrender").addEventListener("click", surrender);
$("review").addEventListener("click", async () => {
  if (!game) return;
  try { openReplay(await api("POST", `/api/games/${game.id}/review`)); }
  catch (e) { showError(e.message); }
});
window.addEventListener("pagehide", closeReplay);
$("replay-file").addEventListener("change", (ev) => loadReplayFile(ev.target.files[0]));
document.querySelectorAll("[data-step]").forEach((b) => b.addEventListener("click", () => {
  const to = { start: 0, prev: replay.step - 1, next: replay.step + 1,
               end: replay.steps }[b.dataset.step];
  stepReplay(to);
}));
$("replay-step").addEventListener("change", (ev) => stepReplay(Number(ev.target.value)));
document.addEventListener("keydown", (ev) => {
  // the terminal's one-letter keys work here too: e end the phase, y / n, k / m
  if (!$("game").hidden && game && !busy && !ev.ctrlKey && !ev.metaKey && !ev.altKey &&
      !["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) {
    const m = game.legal.find((x) => x.key === ev.key);
    if (m) { ev.preventDefault(); sendMove(m.action); return; }
  }
  if (!$("replay").hidden && replay) {
    if (ev.key === "ArrowRight") stepReplay(replay.step + 1);
    if (ev.key === "ArrowLeft") stepReplay(replay.step - 1);
  }
});
init();
