// The board as the server sends it for one seat: each side's summary and zones, the lanes
// (the battle in progress marked on them), and the hand with each card's whole text.  With
// `interactive`, each legal move is a button on the card, unit or leader it concerns
// (moveButton, play.js); a replay draws the same board without buttons.
"use strict";

function sideSummary(side, label) {
  const s = el("div", "side");
  const head = el("div", "side-head");
  head.append(el("strong", "", `${label}: `), cardChip(side.leader, "leader"),
    el("span", "", ` · level ${side.level}${side.awakened ? " (awakened)" : ""}` +
                   ` · size ${side.size}, cost in use ${side.cost_in_use}`),
    el("span", side.damage.length >= 7 ? "danger" : "", ` · damage ${side.damage.length}/10`),
    el("span", "dim",
       ` · deck ${side.deck} · hand ${side.hand_count} · trash ${side.trash.length}`));
  s.append(head);
  return s;
}

function sideZones(side, who, names) {  // who: "you" or "opponent"
  const z = el("div", "zones");
  z.append(zoneRow(`${who} skills`, "skills", side.skills),
           zoneRow(`${who} damage`, "damage zone", side.damage),
           zoneRow(`${who} trash`, "trash", side.trash));
  if (who === "opponent" && side.hand) z.append(zoneRow("opponent hand", names[1] + "'s hand",
                                                        side.hand));
  else if (who === "opponent" && side.known.length)
    z.append(zoneRow("opponent known", "known in their hand", side.known));
  return z;
}

function unitBox(unit) {
  const stats = el("div", "stats", `P${unit.power} H${unit.hit}`);
  if (unit.power !== unit.card.power || unit.hit !== unit.card.hit)
    stats.append(el("span", "dim", ` (printed ${unit.card.power}/${unit.card.hit})`));
  const box = cardBox(unit.card, stats);
  box.classList.add("unit");
  if (unit.keywords.length) {
    const kw = el("div", "keywords");
    unit.keywords.forEach((k, i) => {
      const span = el("span", "keyword", k);
      span.title = explain(k).join("\n");
      kw.append(span, i < unit.keywords.length - 1 ? ", " : "");
    });
    box.append(kw);
  }
  for (const it of unit.items) box.append(cardChip(it, "item"));
  return box;
}

function battleRole(battle, sideName, lane) {  // "attacking", "blocking" or ""
  if (!battle) return "";
  const at = (who) => who && who.side === sideName && who.lane === lane;
  return at(battle.attacker) ? "attacking" : at(battle.defender) ? "blocking" : "";
}

function movesBar(ms) {
  const bar = el("div", "card-moves");
  for (const m of ms) bar.append(moveButton(m, moveLabel(m)));
  return bar;
}

function unitCell(board, sideName, lane, interactive) {
  const unit = board[sideName].lanes[lane];
  const cell = el("div", `lane-cell ${sideName}`);
  cell.dataset.side = sideName;
  cell.dataset.lane = lane;
  const role = battleRole(board.battle, sideName, lane);
  if (role) {
    cell.classList.add(role);
    cell.append(el("div", `battle-tag ${role}`, role));
  }
  if (board.battle && board.battle.attacker.lane === lane) cell.classList.add("battle-lane");
  cell.append(unit ? unitBox(unit) : el("div", "empty", "—"));
  const ms = interactive ? movesFor((m) => m.unit === sideName && m.lane === lane) : [];
  if (ms.length) cell.append(movesBar(ms));
  return cell;
}

function lanesGrid(board, interactive) {
  const lanes = el("div", "lanes");
  const fight = board.battle ? board.battle.attacker.lane : -1;
  for (let ln = 0; ln < 3; ln++)
    lanes.append(el("div", `lane-label${ln === fight ? " battle-lane" : ""}`,
                    ln === fight ? `lane ${ln} · battle` : `lane ${ln}`));
  for (const side of ["opponent", "you"])
    for (let ln = 0; ln < 3; ln++) lanes.append(unitCell(board, side, ln, interactive));
  return lanes;
}

function handRow(cards, title, interactive) {
  // a card that cannot be played now stays, greyed, with the server's reason under its text
  const hand = el("div", "hand");
  hand.append(el("h3", "", title));
  const row = el("div", "hand-cards");
  cards.forEach((c, i) => {
    const box = cardBox(c, el("div", "card-text", c.text || ""));
    box.dataset.hand = i;
    if (interactive && c.cannot) {
      box.classList.add("unplayable");
      box.append(el("div", "cannot", `Can't play: ${c.cannot}`));
    }
    const ms = interactive ? movesFor((m) => m.hand === i) : [];
    if (ms.length) box.append(movesBar(ms));
    row.append(box);
  });
  if (!cards.length) row.append(el("span", "dim", "(empty)"));
  hand.append(row);
  return hand;
}

function drawBoard(target, board, names, interactive) {
  const root = el("div", "board");
  root.append(sideSummary(board.opponent, names[1]), sideZones(board.opponent, "opponent", names),
              lanesGrid(board, interactive));
  const me = sideSummary(board.you, names[0]);
  if (interactive)
    for (const m of movesFor((x) => x.leader === "you"))
      me.append(moveButton(m, `Use leader: ${m.name.split(": ").slice(1).join(": ")}`));
  root.append(me, sideZones(board.you, "you", names),
              handRow(board.you.hand || [], `${names[0] === "You" ? "Your" : names[0] + "'s"} hand`,
                      interactive));
  target.replaceChildren(root);
}
