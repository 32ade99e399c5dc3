// Cards: a chip in a zone, a box on the board or in a hand, the sheet a tap opens to read a
// card's whole text (a dialog: Close or Escape), and the zones (skills, damage, trash) that
// fold open to show every card in them.
"use strict";

let glossary = {};        // keyword name -> what it does, with its rule number

function explain(text) {  // "Guardian (Barrier 1)" -> the lines for Guardian and Barrier
  return Object.keys(glossary).filter((n) => text.includes(n)).map((n) => glossary[n]);
}

function cardTitle(c) {
  return `${c.name} (${c.line})\n${c.text || "(no text)"}`;
}

function cardStats(c) {   // "unit · T · cost 3 · P4/H1"
  const bits = [c.type + (c.trigger ? " · T" : "")];
  if (c.cost !== undefined) bits.push(`cost ${c.cost}`);
  if (c.power !== undefined) bits.push(`P${c.power}/H${c.hit}`);
  return bits.join(" · ");
}

function openDialog(dialog) {
  if (!dialog.open) dialog.showModal();
}

function closeOnBackdrop(dialog) {  // a click outside the sheet's box closes it
  dialog.addEventListener("click", (ev) => { if (ev.target === dialog) dialog.close(); });
}

function showCard(c) {
  $("card-sheet-title").textContent = c.name;
  const body = $("card-sheet-body");
  body.replaceChildren(el("p", "dim", c.line), el("p", "card-full-text", c.text || "(no text)"));
  const words = explain(c.text || "");
  if (words.length) {
    const ul = el("ul", "glossary");
    for (const w of words) ul.append(el("li", "", w));
    body.append(ul);
  }
  openDialog($("card-sheet"));
}

function readable(e, c) {  // pointing shows the text; a tap, click or Enter opens the sheet
  e.title = cardTitle(c);
  e.tabIndex = 0;
  e.addEventListener("click", (ev) => { if (!ev.target.closest("button")) showCard(c); });
  e.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && ev.target === e) { ev.preventDefault(); showCard(c); }
  });
}

function cardChip(c, cls) {
  const e = el("span", `chip attr-${c.attribute || "none"} ${cls || ""}`, c.name);
  readable(e, c);
  return e;
}

function cardBox(c, extra) {
  const e = el("div", `card attr-${c.attribute || "none"}`);
  e.append(el("div", "card-name", c.name), el("div", "card-line", cardStats(c)));
  if (extra) e.append(extra);
  readable(e, c);
  return e;
}

// ------------------------------------------------------------------ zones
// which zones are open, by "side zone": kept across redraws (the board is drawn anew after
// every move); skills, damage and known hand cards start open, trashes folded
const openZones = new Set(["you skills", "you damage", "opponent skills", "opponent damage",
                           "opponent hand", "opponent known"]);

function zoneRow(key, label, cards) {
  const d = el("details", cards.length ? "zone" : "zone zone-empty");
  d.dataset.zone = key;
  d.open = cards.length > 0 && openZones.has(key);
  const count = cards.length ? plural(cards.length, "card") : "none";
  const summary = el("summary", "", `${label}: ${count}`);
  if (!cards.length) summary.addEventListener("click", (ev) => ev.preventDefault());
  d.append(summary);
  const row = el("div", "zone-cards");
  for (const c of cards) row.append(cardChip(c));
  d.append(row);
  d.addEventListener("toggle", () => {
    if (d.open) openZones.add(key);
    else openZones.delete(key);
  });
  return d;
}
