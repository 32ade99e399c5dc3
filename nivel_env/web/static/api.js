// Talking to the server: the player token, JSON requests, and errors put in words.
// Every request carries the token (X-Nivel-Player): the server lists a player's games by
// it, never by address, and a page on another site cannot send such a header at all.
"use strict";

const $ = (id) => document.getElementById(id);
const PLAYER_HEADER = "X-Nivel-Player";
const TOKEN_KEY = "nivelPlayer";
let memoryToken = "";     // where localStorage is refused (some private windows)

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function showError(message) {  // stays on screen until the next action succeeds
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function newPlayerToken() {  // 128 random bits as 32 hex digits
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function playerToken() {  // made once and kept: it names this browser's games
  let token = memoryToken;
  try { token = localStorage.getItem(TOKEN_KEY) || token; } catch (e) { /* memory only */ }
  if (!/^[0-9a-f]{32}$/.test(token)) {
    token = newPlayerToken();
    try { localStorage.setItem(TOKEN_KEY, token); } catch (e) { /* memory only */ }
  }
  memoryToken = token;
  return token;
}

function remember(key, value) {  // localStorage where allowed; null forgets
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch (e) { /* the page still works, it only forgets on reload */ }
}

function recalled(key) {
  try { return localStorage.getItem(key); } catch (e) { return null; }
}

async function api(method, path, body, raw) {
  const opts = { method, headers: { [PLAYER_HEADER]: playerToken() } };
  if (body !== undefined) {
    opts.body = raw ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = raw ? "text/plain" : "application/json";
  }
  let r;
  try { r = await fetch(path, opts); } catch (e) {
    throw new Error("cannot reach the server (the network or the server is down); " +
                    "try again");
  }
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: `${r.status} ${r.statusText}` }; }
  if (!r.ok) throw new Error(data.error || `${r.status} ${r.statusText}`);
  return data;
}

function forget(path) {  // a DELETE that may outlive the page (leaving it closes a replay)
  fetch(path, { method: "DELETE", keepalive: true,
                headers: { [PLAYER_HEADER]: playerToken() } }).catch(() => {});
}
