"""The match viewer's page: HTML skeleton, CSS and JavaScript, as strings (filled in by :mod:`referee.viewer`).

DOM contract (tests and users' scripts rely on it; docs/viewer.md lists it):

* ``.seat[data-seat="N"]`` (``#seat-N``) per seat, with ``#hand-N`` (concealed tiles; the drawn tile apart as
  ``.tile.drawn``), ``#melds-N`` (``.meld[data-type]``), ``#river-N`` (every throw in order; a claimed one has
  ``.claimed``), ``#flowers-N``, ``#score-N``; classes ``to-move``, ``actor``, ``dealer``, ``winner``.
* every tile is ``.tile[data-tid][data-kind]``; the last action's tile also has ``.last``.
* ``#step-label`` (``data-step`` global index, ``data-hand`` 0-based), ``#action`` (the action text, ``data-kind``),
  ``#wall-count`` (``data-wall`` tiles left, ``data-live`` live tiles left), ``#to-move``.
* ``#winner-panel`` (``hidden`` except at a hand's end; ``data-outcome`` win, draw or cut): per win a ``.win``
  with ``.tai-item[data-key][data-tai]``, ``.payment[data-seat]``, ``.set`` groups of the arrangement; ``.fault``
  per fault of the hand.
* controls ``#prev-hand #prev #play #next #next-hand #hand-select #step-range #speed``; keys: ← →, ↑ ↓ or
  PgUp PgDn (hand), Home End (hand start/end), Space (play/pause).
"""

from __future__ import annotations

import html
import re

CSS = r"""
:root { --felt: #1f4f3a; --felt-dark: #173d2c; --panel: rgba(255,255,255,0.09); --ink: #f3f1e7;
  --muted: #b9c8bd; --gold: #f2c230; --red: #e0604f; --green: #7fd49a; }
* { box-sizing: border-box; }
body { margin: 0; font-family: "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 14px;
  background: #12281e; color: var(--ink); }
header.bar { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 18px;
  padding: 8px 14px; background: #0d1f17; border-bottom: 1px solid #2d4d3d; }
header.bar h1 { font-size: 16px; margin: 0; font-weight: 600; }
header.bar .sub { color: var(--muted); font-size: 12px; }
.controls { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.controls button, .controls select { background: #24402f; color: var(--ink); border: 1px solid #3d6a52;
  border-radius: 5px; padding: 4px 9px; font-size: 14px; cursor: pointer; }
.controls button:hover { background: #2f5540; }
.controls button.on { background: #8a6d12; border-color: var(--gold); }
.controls input[type=range] { width: 180px; }
.keys { color: var(--muted); font-size: 11px; }
/* align-items: start: a tall side column (a hand's win panel) no longer stretches the table (to 1035 px at
   1440x900, seat 1 below the fold); the side column scrolls with the page instead. */
main.wrap { display: grid; grid-template-columns: minmax(0, 1fr) 400px; gap: 12px; padding: 12px;
  align-items: start; }
.table { display: grid; grid-template-columns: minmax(330px, 1fr) 220px minmax(330px, 1fr);
  grid-template-areas: "top top top" "left center right" "bottom bottom bottom"; gap: 10px;
  background: radial-gradient(ellipse at center, #2a6a4d 0%, var(--felt) 60%, var(--felt-dark) 100%);
  border: 8px solid #5a3b22; border-radius: 18px; padding: 12px; min-height: 760px; }
.seat { background: var(--panel); border: 2px solid transparent; border-radius: 10px; padding: 7px 9px;
  display: flex; flex-direction: column; gap: 5px; min-width: 0; }
.seat.pos-top { grid-area: top; } .seat.pos-left { grid-area: left; } .seat.pos-right { grid-area: right; }
.seat.pos-bottom { grid-area: bottom; flex-direction: column-reverse; }
.seat.pos-top, .seat.pos-bottom { align-items: center; }
.seat.to-move { border-color: rgba(242,194,48,0.55); }
.seat.actor { border-color: var(--gold); box-shadow: 0 0 14px rgba(242,194,48,0.45); }
.seat.winner { border-color: var(--green); box-shadow: 0 0 18px rgba(127,212,154,0.6); }
.seat.faulted { border-color: var(--red); box-shadow: 0 0 14px rgba(224,96,79,0.6); }
.seat-head { display: flex; align-items: baseline; gap: 8px; font-size: 13px; width: 100%; }
.seat-head .wind { display: inline-block; min-width: 20px; text-align: center; font-weight: 700; color: #10241a;
  background: var(--ink); border-radius: 4px; padding: 0 4px; }
.seat-head .name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.seat-head .kind { color: var(--muted); font-size: 11px; }
.seat-head .score { margin-left: auto; font-weight: 700; font-variant-numeric: tabular-nums; }
.seat-head .badge { font-size: 11px; border-radius: 4px; padding: 0 5px; }
.badge.dealer { background: #8a6d12; } .badge.fault { background: #8c2f25; } .badge.turn { background: #3b6c52; }
.row { display: flex; flex-wrap: wrap; gap: 6px; align-items: flex-end; min-height: 10px; }
.hand { gap: 2px; min-height: 47px; }
.tile { display: inline-block; line-height: 0; position: relative; border-radius: 4px; }
.tile svg { display: block; width: 100%; height: 100%; }
.hand .tile { width: 34px; height: 45px; }
.hand .gap { width: 10px; }
.melds .tile, .set .tile { width: 27px; height: 36px; }
.river .tile, .flowers .tile { width: 24px; height: 32px; }
.river { gap: 2px; max-width: 100%; }
.pos-left .river, .pos-right .river { max-width: 330px; }
.pos-top .river, .pos-bottom .river { max-width: 500px; }
.meld { display: inline-flex; gap: 1px; padding: 2px; border-radius: 5px; background: rgba(0,0,0,0.18);
  align-items: flex-end; }
.meld .from { font-size: 10px; color: var(--muted); align-self: center; padding: 0 3px; line-height: 1.1; }
.meld-concealed_gong, .meld-concealed_pong { background: rgba(0,0,0,0.4); outline: 1px dashed var(--muted); }
.tile.in { transform: translateY(-4px); }
.tile.claimed { opacity: 0.33; }
.tile.drawn { margin-left: 8px; }
.tile.last { outline: 3px solid var(--gold); outline-offset: 0; box-shadow: 0 0 10px var(--gold); }
.tile.won { outline: 3px solid var(--green); box-shadow: 0 0 10px var(--green); }
.label { color: var(--muted); font-size: 10px; text-transform: uppercase; letter-spacing: 0.05em; }
.center { grid-area: center; align-self: center; text-align: center; background: rgba(0,0,0,0.25);
  border-radius: 12px; padding: 12px 8px; display: flex; flex-direction: column; gap: 8px; }
.center .round { font-size: 13px; color: var(--muted); }
#wall-count { font-size: 30px; font-weight: 700; font-variant-numeric: tabular-nums; }
.wallbar { height: 6px; background: rgba(255,255,255,0.15); border-radius: 3px; overflow: hidden; }
.wallbar div { height: 100%; background: var(--gold); }
#step-label { font-size: 12px; color: var(--muted); }
#action { font-size: 13px; min-height: 3.6em; background: rgba(0,0,0,0.25); border-radius: 7px; padding: 6px; }
#action[data-kind=fault] { color: #ffd0c8; background: rgba(140,47,37,0.6); }
#action[data-kind=end] { color: #d9ffe4; background: rgba(40,110,70,0.6); }
#to-move { font-size: 12px; }
aside.side { display: flex; flex-direction: column; gap: 12px; min-width: 0; }
.card { background: #183427; border: 1px solid #2d4d3d; border-radius: 10px; padding: 10px 12px; }
.card h2 { font-size: 14px; margin: 0 0 8px; }
#winner-panel { border-color: var(--green); }
#winner-panel[data-outcome=draw] { border-color: var(--muted); }
#winner-panel[data-outcome=cut] { border-color: var(--red); }
.win { margin-bottom: 10px; }
.win h3 { font-size: 14px; margin: 0 0 6px; color: var(--green); }
.sets { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 6px; }
.set { display: inline-flex; flex-direction: column; align-items: center; gap: 2px; }
.set .tiles { display: inline-flex; gap: 1px; }
.set .what { font-size: 10px; color: var(--muted); }
.set.status-exposed .tiles, .set.status-claimed .tiles { padding-bottom: 2px; border-bottom: 2px solid var(--muted); }
ul.tai { list-style: none; margin: 0 0 6px; padding: 0; }
ul.tai li { display: flex; justify-content: space-between; border-bottom: 1px dotted #35584a; padding: 2px 0; }
ul.tai li.total { font-weight: 700; border-bottom: none; }
table.pay, table.sheet { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
table.pay td, table.pay th, table.sheet td, table.sheet th { padding: 2px 5px; text-align: right;
  border-bottom: 1px solid #2d4d3d; font-size: 12px; }
table.pay td:first-child, table.pay th:first-child, table.sheet td.res, table.sheet th.res { text-align: left; }
.pos { color: var(--green); } .neg { color: var(--red); }
table.sheet tr.hand-row { cursor: pointer; }
table.sheet tr.hand-row:hover { background: #214535; }
table.sheet tr.current { background: #2f5540; }
table.sheet td.res { max-width: 150px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.sheet tr.totals td { font-weight: 700; border-top: 2px solid #3d6a52; }
table.sheet:not(.reveal) tr.future td:not(:first-child) > *, table.sheet:not(.reveal) tr.future td:not(:first-child) {
  color: transparent; }
table.sheet:not(.reveal) tr.future td.res::after { content: "not played yet"; color: var(--muted); }
table.sheet:not(.reveal) tr.future td.res { color: transparent; font-size: 0; }
table.sheet:not(.reveal) tr.future td.res::after { font-size: 12px; }
table.sheet:not(.reveal):not(.over) tr.totals { visibility: hidden; }
.card h2 .keys { font-weight: normal; margin-left: 8px; }
.fault { color: #ffb4a8; font-size: 12px; margin: 3px 0; }
#action-log { list-style: none; margin: 0; padding: 0; font-size: 12px; max-height: 260px; overflow: auto; }
#action-log li { padding: 2px 0; border-bottom: 1px solid #24402f; color: var(--muted); }
#action-log li:last-child { color: var(--ink); font-weight: 600; }
#action-log li.k-fault { color: #ffb4a8; }
.meta { color: var(--muted); font-size: 12px; line-height: 1.5; }
details.fault-group { margin: 3px 0; }
details.fault-group summary { cursor: pointer; color: #ffb4a8; font-size: 12px; }
details.fault-group .count { display: inline-block; min-width: 26px; text-align: center; background: #8c2f25;
  color: var(--ink); border-radius: 4px; margin-right: 4px; font-variant-numeric: tabular-nums; }
details.fault-group .fault { margin-left: 12px; }
/* Narrower screens: the side panel goes under the table, then the table becomes one column (top, left, centre,
   right, bottom), tiles shrink, and wide tables scroll inside their card instead of the page. */
@media (max-width: 1340px) {
  main.wrap { grid-template-columns: minmax(0, 1fr); }
}
@media (max-width: 1000px) {
  main.wrap { padding: 6px; gap: 8px; }
  .table { grid-template-columns: minmax(0, 1fr); grid-template-areas: "top" "left" "center" "right" "bottom";
    min-height: 0; border-width: 4px; padding: 6px; gap: 6px; }
  .pos-left .river, .pos-right .river, .pos-top .river, .pos-bottom .river { max-width: 100%; }
  .seat.pos-bottom { flex-direction: column; }
  .controls input[type=range] { width: 120px; }
  .card { overflow-x: auto; }
}
@media (max-width: 520px) {
  header.bar { padding: 6px 8px; }
  .hand .tile { width: 24px; height: 32px; }
  .melds .tile, .set .tile { width: 21px; height: 28px; }
  .river .tile, .flowers .tile { width: 19px; height: 25px; }
  .keys { display: none; }
  .controls input[type=range] { width: 90px; }
  table.sheet td.res { max-width: 90px; }
}
"""

SHARED_JS = r"""
// Tile markup and a hand's result, shared by the match viewer and the play page (mjref play): one copy.
const MJ = (function () {
"use strict";
let TILES = {}, ITEMS = {};
const WINDS = ["E", "S", "W", "N"];
const HOW = {self_draw: "by self-draw", throw: "on a throw", robbed_gong: "by robbing the gong",
             flowers: "with eight flowers"};
const SET_WORDS = {chow: "chow", pung: "pung", kong: "kong", pair: "pair"};
const MELD_WORDS = {eat: "eat", pong: "pong", gong: "gong", concealed_gong: "concealed gong",
                    concealed_pong: "concealed pong"};
function init(tiles, items) { TILES = tiles || {}; ITEMS = items || {}; }
function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
}
const kindOf = (t) => Math.floor(t / 10);
function tileName(t) { const n = TILES[kindOf(t)]; return n ? n[0] + " " + n[1] : String(t); }
function tileEn(t) { const n = TILES[kindOf(t)]; return n ? n[0] : String(t); }
function tile(t, cls) {
  if (!Number.isSafeInteger(t)) t = esc(String(t));  // a log is checked on reading; never markup here either
  const k = kindOf(t);
  return '<span class="tile' + (cls ? " " + cls : "") + '" data-tid="' + t + '" data-kind="' + k + '" title="' +
    esc(tileName(t)) + " (" + t + ')"><svg viewBox="0 0 30 40"><use href="#k-' + k + '"/></svg></span>';
}
const signed = (v) => (v > 0 ? "+" + v : String(v));
const cls = (v) => (v > 0 ? "pos" : v < 0 ? "neg" : "");

// One win of a result record (the log's ``wins[]``): heading, arrangement, tai items, payments.
function winHtml(w, seatName, classical) {
  const from = w.thrower ? " from " + esc(seatName(w.thrower)) : "";
  const with_ = w.tile ? " with " + esc(tileEn(w.tile)) : "";
  let h = '<div class="win" data-seat="' + w.seat + '"><h3>' + esc(seatName(w.seat)) + " wins " +
    esc(HOW[w.how] || w.how) + from + with_ + "</h3>";
  if (Array.isArray(w.arrangement) && w.arrangement.length) {
    h += '<div class="sets">' + w.arrangement.map((g) =>
      '<span class="set set-' + esc(g.type) + " status-" + esc(g.status) + '" title="' + esc(g.status) + '">' +
      '<span class="tiles">' + g.tiles.map((t) => tile(t, g.winning && t === w.tile ? "won" : "")).join("") +
      '</span><span class="what">' + esc(SET_WORDS[g.type] || g.type) + (g.status !== "concealed" ? " · " +
      esc(g.status) : "") + "</span></span>").join("") + "</div>";
  }
  if (classical) h += '<p class="points">' + w.tai + " points (every player's score below)</p>";
  else h += '<ul class="tai">' + w.items.map((it) => {
    const t = ITEMS[it.key] || [it.key.replace(/_/g, " "), ""];
    return '<li class="tai-item" data-key="' + esc(it.key) + '" data-tai="' + it.tai + '" title="' + esc(t[1]) +
      '"><span>' + esc(t[0]) + "</span><b>" + it.tai + "</b></li>";
  }).join("") + '<li class="total"><span>Total</span><b class="tai-total">' + w.tai + " tai</b></li></ul>";
  h += "<table class=pay><tr><th>seat</th><th>pays / gets</th></tr>" + w.payments.map((v, j) =>
    '<tr class="payment" data-seat="' + (j + 1) + '" data-amount="' + v + '"><td>' + esc(seatName(j + 1)) +
    '</td><td class="' + cls(v) + '">' + signed(v) + "</td></tr>").join("") + "</table></div>";
  return h;
}

// A classical result (the log's ``classical``): every player's sets as scored, score and explanation, and the
// settlement's lines, as mj-server writes them.
function classicalHtml(c, seatName) {
  let h = '<table class="classical"><tr><th>seat</th><th>sets</th><th>left over</th><th>explanation</th>' +
    "<th>score</th></tr>";
  for (const p of c.players) {
    h += '<tr class="player-score" data-seat="' + p.seat + '"><td>' + esc(seatName(p.seat)) + "</td><td>" +
      esc(p.sets.join(" ")) + (p.flowers.length ? " · " + esc(p.flowers.join(" ")) : "") + "</td><td>" +
      esc(p.concealed.join(" ")) + "</td><td><pre>" + esc(p.explanation.join("\n")) + "</pre></td><td><b>" +
      p.score + "</b></td></tr>";
  }
  h += "</table>";
  if (c.cannon) h += "<p>" + esc(seatName(c.cannon)) + " let off a cannon</p>";
  return h + '<pre class="settlement">' + esc(c.settlement.filter((x) => x).join("\n")) + "</pre>";
}

// A result record's settlement per seat: the hand's score, the fault penalty, the running total.
function settleHtml(r, seatName) {
  return "<table class=pay><tr><th>seat</th><th>hand</th><th>penalty</th><th>total</th></tr>" +
    [0, 1, 2, 3].map((j) => '<tr class="settle" data-seat="' + (j + 1) + '"><td>' + esc(seatName(j + 1)) +
      '</td><td class="' + cls(r.scores[j]) + '">' + signed(r.scores[j]) + '</td><td class="' + cls(-r.penalties[j]) +
      '">' + signed(-r.penalties[j]) + "</td><td><b>" + r.totals[j] + "</b></td></tr>").join("") +
    "</table>";
}

return {init, esc, kindOf, tileName, tileEn, tile, signed, cls, winHtml, classicalHtml, settleHtml, WINDS, HOW,
        SET_WORDS, MELD_WORDS};
})();
"""

JS = r"""
(function () {
"use strict";
const DATA = JSON.parse(document.getElementById("match-data").textContent);
const META = DATA.meta, HANDS = DATA.hands, TILES = DATA.tiles, ITEMS = DATA.items;
const STATE = ["h", "t", "w", "c", "d", "m", "r", "f", "z"];
const SEATWISE = new Set(["c", "m", "r", "f"]);
const WINDS = MJ.WINDS, MELD_WORDS = MJ.MELD_WORDS;
const {esc, tileName, tile, signed, cls} = MJ;
MJ.init(TILES, ITEMS);

function expand(encoded) {
  const out = [];
  let prev = null;
  for (const e of encoded) {
    const s = {k: e.k, a: e.a, s: e.s || 0, x: e.x || 0, e: e.e || 0};
    const fresh = e.n || prev === null;
    for (const k of STATE) {
      if (fresh) s[k] = e[k];
      else if (!(k in e)) s[k] = prev[k];
      else if (SEATWISE.has(k)) s[k] = e[k].map((v, i) => (v === null ? prev[k][i] : v));
      else s[k] = e[k];
    }
    out.push(s);
    prev = s;
  }
  return out;
}
const STEPS = expand(DATA.steps);
window.MJREF = {meta: META, hands: HANDS, steps: STEPS, go: go};

const $ = (id) => document.getElementById(id);
const seatName = (p) => p + " " + META.seats[p - 1].name;

let cur = 0, timer = null;

// ------------------------------------------------------------------------------------------------ static parts
function buildStatic() {
  const sel = $("hand-select");
  sel.innerHTML = HANDS.map((h, i) =>
    '<option value="' + i + '">Hand ' + (i + 1) + " · " + h.round[0] + h.wind[0] + " d" + h.dealer + "</option>").join("");
  const head = "<tr><th>#</th><th class=res>result</th>" +
    META.seats.map((s) => '<th title="' + esc(s.name) + '">' + s.position + "</th>").join("") + "</tr>";
  const rows = HANDS.map((h, i) => {
    const res = h.result ? h.result.text : "cut off";
    const cells = [0, 1, 2, 3].map((j) => {
      const d = h.after[j] - h.before[j];
      return '<td class="' + cls(d) + '">' + signed(d) + "<br><b>" + h.after[j] + "</b></td>";
    }).join("");
    return '<tr class="hand-row" data-hand="' + i + '"><td>' + (i + 1) + '</td><td class=res title="' + esc(res) +
      '">' + esc(res) + "</td>" + cells + "</tr>";
  }).join("");
  const tot = '<tr class="totals"><td></td><td class=res>' + (META.complete ? "final" : "so far") + "</td>" +
    META.totals.map((v) => '<td class="' + cls(v) + '">' + v + "</td>").join("") + "</tr>";
  $("score-sheet").innerHTML = "<table class=sheet>" + head + rows + tot + "</table>";
  $("reveal").addEventListener("change", (e) => {
    document.querySelector("#score-sheet table").classList.toggle("reveal", e.target.checked);
  });
  for (const tr of document.querySelectorAll("#score-sheet tr.hand-row")) {
    tr.addEventListener("click", () => { stop(); go(HANDS[+tr.dataset.hand].start); });
  }
  const seats = META.seats.map((s) => esc(s.position + " " + s.name) + " <span class=kind>(" + esc(s.spec) + ")</span>");
  const rules = META.rules;
  $("match-meta").innerHTML = "seed " + esc(META.seed) + " · " + HANDS.length + " of " + esc(META.hands_planned) +
    " hands" + (META.complete ? "" : " · <b>incomplete log</b>") + " · flowers " + (rules.flowers ? "on" : "off") +
    " · dead wall " + esc(META.dead_wall) + "<br>" + seats.join("<br>");
}

// ------------------------------------------------------------------------------------------------ one step
function faultsSoFar(s) {
  const hand = HANDS[s.h], n = [0, 0, 0, 0];
  for (let i = hand.start; i <= cur; i++) if (STEPS[i].k === "fault") n[STEPS[i].s - 1] += 1;
  return n;
}

function renderSeat(p, s, hand, faults, winners) {
  const i = p - 1;
  const el = $("seat-" + p);
  el.classList.toggle("to-move", s.t === p);
  el.classList.toggle("actor", s.s === p && s.k !== "fault" && !s.e);
  el.classList.toggle("faulted", s.s === p && s.k === "fault");
  el.classList.toggle("dealer", hand.dealer === p);
  el.classList.toggle("winner", winners.has(p));
  el.querySelector(".wind").textContent = WINDS[(p - hand.dealer + 4) % 4];
  $("score-" + p).textContent = s.z[i];
  el.querySelector(".badges").innerHTML = (hand.dealer === p ? '<span class="badge dealer">dealer</span> ' : "") +
    (s.t === p ? '<span class="badge turn">to move</span> ' : "") +
    (faults[i] ? '<span class="badge fault">' + faults[i] + " fault" + (faults[i] > 1 ? "s" : "") + "</span>" : "");
  let h = s.c[i].map((t) => tile(t, "")).join("");
  if (s.d[i]) h += tile(s.d[i], "drawn" + (s.e && winners.has(p) ? " won" : ""));
  $("hand-" + p).innerHTML = h;
  $("melds-" + p).innerHTML = s.m[i].map((m) =>
    '<span class="meld meld-' + m.k + '" data-type="' + m.k + '" title="' + esc(MELD_WORDS[m.k] || m.k) + '">' +
    m.t.map((t) => tile(t, t === m.c ? "in" : "")).join("") +
    (m.f ? '<span class="from">from<br>' + m.f + "</span>" : "") + "</span>").join("");
  $("river-" + p).innerHTML = s.r[i].map((t) => (t < 0 ? tile(-t, "claimed") : tile(t, ""))).join("");
  $("flowers-" + p).innerHTML = s.f[i].map((t) => tile(t, "")).join("");
}

function renderWinner(s, hand) {
  const panel = $("winner-panel");
  if (!s.e) { panel.hidden = true; panel.removeAttribute("data-outcome"); return; }
  panel.hidden = false;
  const r = hand.result;
  let h = "";
  if (!r) {
    panel.dataset.outcome = "cut";
    h = "<h2>Hand " + (s.h + 1) + ": the log ends here</h2><p>The match was cut off in this hand.</p>";
  } else if (r.outcome === "draw" || !r.wins.length) {
    panel.dataset.outcome = "draw";
    h = "<h2>Hand " + (s.h + 1) + ": exhaustive draw</h2><p>No one won; the live wall is used up.</p>";
  } else {
    panel.dataset.outcome = "win";
    h = "<h2>Hand " + (s.h + 1) + ": " + (r.wins.length > 1 ? r.wins.length + " winners" : "win") + "</h2>";
    for (const w of r.wins) h += MJ.winHtml(w, seatName, !!r.classical);
    if (r.classical) h += MJ.classicalHtml(r.classical, seatName);
  }
  if (r) h += MJ.settleHtml(r, seatName);
  if (hand.faults.length) {  // grouped by seat and kind: a count per group, the faults themselves folded away
    const groups = new Map();
    for (const f of hand.faults) {
      const key = f.seat + " " + f.kind;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(f);
    }
    h += "<h2>Faults</h2>";
    for (const fs of groups.values()) {
      const f0 = fs[0];
      h += '<details class="fault-group" data-seat="' + f0.seat + '" data-kind="' + esc(f0.kind) + '" data-count="' +
        fs.length + '"><summary><span class="count">' + fs.length + "×</span>" + esc(seatName(f0.seat)) + ": <b>" +
        esc(f0.kind) + "</b></summary>" + fs.map((f) => '<p class="fault" data-seat="' + f.seat + '">' +
        esc(f.detail) + (f.line ? " (answered <code>" + esc(f.line) + "</code>" + (f.question ? " to <code>" +
        esc(f.question) + "</code>" : "") + ")" : "") + "</p>").join("") + "</details>";
    }
  }
  panel.innerHTML = h;
}

function render() {
  const s = STEPS[cur], hand = HANDS[s.h];
  const winners = new Set(s.e && hand.result ? hand.result.wins.map((w) => w.seat) : []);
  const faults = faultsSoFar(s);
  for (const p of [1, 2, 3, 4]) renderSeat(p, s, hand, faults, winners);
  for (const el of document.querySelectorAll(".tile.last")) el.classList.remove("last");
  if (s.s && s.x) {
    const t = document.querySelector("#seat-" + s.s + ' .tile[data-tid="' + s.x + '"]');
    if (t) t.classList.add("last");
  }
  const live = Math.max(0, s.w - META.dead_wall);
  const wc = $("wall-count");
  wc.textContent = live;
  wc.dataset.wall = s.w;
  wc.dataset.live = live;
  $("wall-bar").style.width = (100 * live / Math.max(1, HANDS[s.h] ? (STEPS[hand.start].w - META.dead_wall) : 1)) + "%";
  $("round-info").textContent = hand.round.charAt(0) + hand.round.slice(1).toLowerCase() + " round · " +
    hand.wind.charAt(0) + hand.wind.slice(1).toLowerCase() + " hand · dealer " + hand.dealer;
  $("to-move").textContent = s.t ? "to move: " + seatName(s.t) : (s.e ? "hand over" : "");
  const act = $("action");
  act.textContent = s.a;
  act.dataset.kind = s.k;
  const label = $("step-label");
  label.textContent = "Hand " + (s.h + 1) + "/" + HANDS.length + " · step " + (cur - hand.start + 1) + "/" +
    (hand.end - hand.start + 1);
  label.dataset.step = cur;
  label.dataset.hand = s.h;
  const range = $("step-range");
  range.min = hand.start; range.max = hand.end; range.value = cur;
  $("hand-select").value = String(s.h);
  renderWinner(s, hand);
  const log = [];
  for (let i = Math.max(hand.start, cur - 11); i <= cur; i++) {
    log.push('<li class="k-' + STEPS[i].k + '">' + esc(STEPS[i].a) + "</li>");
  }
  $("action-log").innerHTML = log.join("");
  $("log-card").hidden = !!s.e;
  for (const tr of document.querySelectorAll("#score-sheet tr.hand-row")) {
    const i = +tr.dataset.hand;
    tr.classList.toggle("current", i === s.h);
    tr.classList.toggle("future", i > s.h || (i === s.h && !s.e));  // not played yet: hidden unless revealed
  }
  const sheet = document.querySelector("#score-sheet table");
  sheet.classList.toggle("over", s.h === HANDS.length - 1 && !!s.e);
  if (document.body.dataset.ready) {  // a deep link to this step (not on the first render: the URL stays clean)
    try { history.replaceState(null, "", "#step=" + cur); } catch (e) { /* some file:// pages refuse */ }
  }
}

function go(i) {
  cur = Math.max(0, Math.min(STEPS.length - 1, i));
  render();
}
const handOf = () => HANDS[STEPS[cur].h];
function prevHand() { const h = STEPS[cur].h; go(cur > HANDS[h].start ? HANDS[h].start : HANDS[Math.max(0, h - 1)].start); }
function nextHand() { const h = STEPS[cur].h; if (h + 1 < HANDS.length) go(HANDS[h + 1].start); else go(STEPS.length - 1); }

// ------------------------------------------------------------------------------------------------ autoplay
function speed() { return +$("speed").value || 4; }
function tick() {
  if (cur >= STEPS.length - 1) { stop(); return; }
  go(cur + 1);
  timer = setTimeout(tick, (1000 / speed()) * (STEPS[cur].e ? 6 : 1));
}
function play() { if (timer) return; $("play").classList.add("on"); $("play").textContent = "⏸ pause"; timer = setTimeout(tick, 1000 / speed()); }
function stop() { if (timer) clearTimeout(timer); timer = null; $("play").classList.remove("on"); $("play").textContent = "▶ play"; }
function toggle() { if (timer) stop(); else play(); }

function bind() {
  $("prev").addEventListener("click", () => { stop(); go(cur - 1); });
  $("next").addEventListener("click", () => { stop(); go(cur + 1); });
  $("prev-hand").addEventListener("click", () => { stop(); prevHand(); });
  $("next-hand").addEventListener("click", () => { stop(); nextHand(); });
  $("play").addEventListener("click", toggle);
  $("hand-select").addEventListener("change", (e) => { stop(); go(HANDS[+e.target.value].start); });
  $("step-range").addEventListener("input", (e) => { stop(); go(+e.target.value); });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "SELECT" || (tag === "INPUT" && e.target.type !== "range")) return;
    const k = e.key;
    if (k === "ArrowRight") { stop(); go(cur + 1); }
    else if (k === "ArrowLeft") { stop(); go(cur - 1); }
    else if (k === "ArrowDown" || k === "PageDown") { stop(); nextHand(); }
    else if (k === "ArrowUp" || k === "PageUp") { stop(); prevHand(); }
    else if (k === "Home") { stop(); go(handOf().start); }
    else if (k === "End") { stop(); go(handOf().end); }
    else if (k === " " || k === "Spacebar") { toggle(); }
    else return;
    e.preventDefault();
  });
}

buildStatic();
bind();
const m = /step=(\d+)/.exec(location.hash || "");
go(m ? +m[1] : 0);
document.body.dataset.ready = "1";
})();
"""

_SEAT = """<div class="seat pos-{pos}" id="seat-{p}" data-seat="{p}">
  <div class="seat-head"><span class="wind">?</span><span class="name" title="{spec}">{p} {name}</span>
    <span class="kind">{kind}</span><span class="badges"></span><span class="score" id="score-{p}">0</span></div>
  <div class="row"><div class="row hand" id="hand-{p}"></div><div class="row melds" id="melds-{p}"></div>
    <div class="row flowers" id="flowers-{p}"></div></div>
  <div class="row river" id="river-{p}"></div>
</div>"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>@@TITLE@@</title>
<style>@@CSS@@</style>
</head>
<body>
@@SYMBOLS@@
<header class="bar">
  <div><h1>@@TITLE@@</h1><div class="sub">mjref match viewer · every hand face up (a spectator's view)</div></div>
  <div class="controls">
    <button id="prev-hand" title="previous hand (↑ / PgUp)">◀◀</button>
    <button id="prev" title="step back (←)">◀</button>
    <button id="play" title="autoplay (Space)">▶ play</button>
    <button id="next" title="step forward (→)">▶</button>
    <button id="next-hand" title="next hand (↓ / PgDn)">▶▶</button>
    <select id="hand-select" title="jump to a hand"></select>
    <input id="step-range" type="range" min="0" max="0" value="0" title="steps of this hand">
    <label class="keys">speed <select id="speed" title="autoplay speed (steps per second)">
      <option value="1">1/s</option><option value="2">2/s</option><option value="4" selected>4/s</option>
      <option value="8">8/s</option><option value="16">16/s</option><option value="40">40/s</option></select></label>
    <span class="keys">← → step · ↑ ↓ hand · Home End · Space play</span>
  </div>
</header>
<main class="wrap">
  <section class="table" id="table">
    @@SEATS@@
    <div class="center">
      <div class="round" id="round-info"></div>
      <div><div class="label">wall · live tiles left</div><div id="wall-count">0</div>
        <div class="wallbar"><div id="wall-bar"></div></div></div>
      <div id="to-move"></div>
      <div id="action" aria-live="polite"></div>
      <div id="step-label"></div>
    </div>
  </section>
  <aside class="side">
    <div class="card" id="winner-panel" hidden></div>
    <div class="card" id="log-card"><h2>This hand</h2><ul id="action-log"></ul></div>
    <div class="card"><h2>Score sheet <label class="keys"><input type="checkbox" id="reveal"> show results not yet
      played</label></h2><div id="score-sheet"></div></div>
    <div class="card"><h2>Match</h2><div class="meta" id="match-meta"></div></div>
  </aside>
</main>
<script type="application/json" id="match-data">@@DATA@@</script>
<script>@@JS@@</script>
</body>
</html>
"""

_POSITIONS = {1: "bottom", 2: "right", 3: "top", 4: "left"}


def render(*, title: str, data_json: str, symbols: str, seats: list[dict[str, str]] | None = None) -> str:
    """Fill the page.  ``data_json`` must already be safe inside a ``<script>`` element."""
    seat_info = seats or []
    parts = []
    for p in (3, 4, 2, 1):  # document order: top, left, right, bottom (the grid places them)
        info = seat_info[p - 1] if len(seat_info) >= p else {}
        parts.append(_SEAT.format(pos=_POSITIONS[p], p=p, name=html.escape(info.get("name", f"seat {p}")),
                                  spec=html.escape(info.get("spec", "")), kind=html.escape(info.get("kind", ""))))
    return fill(_PAGE, {"CSS": CSS, "JS": SHARED_JS + JS, "SYMBOLS": symbols, "SEATS": "\n    ".join(parts),
                        "TITLE": html.escape(title), "DATA": data_json})


def fill(template: str, values: dict[str, str]) -> str:
    """Replace every ``@@NAME@@`` in one pass (a value that contains ``@@X@@`` is left as it is)."""
    return re.sub(r"@@([A-Z_]+)@@", lambda m: values[m.group(1)], template)
