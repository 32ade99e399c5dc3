// The replay viewer: a finished game's replay or a loaded file, stepped through with both
// hands shown and each move told in words.  The server keeps a few replays a client: the
// page closes each one it leaves.
"use strict";

let replay = null;        // the replay being stepped through

function closeReplay() {  // free this replay's place on the server
  if (!replay) return;
  forget(`/api/replays/${replay.id}`);
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

async function reviewGame() {
  if (!game) return;
  try { openReplay(await api("POST", `/api/games/${game.id}/review`)); showError(""); }
  catch (e) { showError(e.message); }
}

function replayKey(ev) {
  if (!replay) return;
  if (ev.key === "ArrowRight") stepReplay(replay.step + 1);
  if (ev.key === "ArrowLeft") stepReplay(replay.step - 1);
}
