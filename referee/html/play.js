// The play page's script: log in to the referee's WebSocket as a seat (name and token from the address's
// fragment), show the table as the seat sees it, offer exactly the legal answers the referee sent, and answer with
// one of them.  Messages: wrappers/messages.py (hello, ready, reply; welcome, seat, hand, table, hand_over,
// abandon, unseat, over).  Tile markup and a result's rendering are shared with the viewer (MJ).
(function () {
"use strict";
const DATA = JSON.parse(document.getElementById("play-data").textContent);
MJ.init(DATA.tiles, DATA.items);
const {esc, tile, signed, cls} = MJ;
const $ = (id) => document.getElementById(id);
const PROTOCOL = 1;
const FINAL_CLOSE = {4001: "the name or token was refused", 4002: "this page speaks another protocol version",
                     4003: "this seat is already open in another tab or browser", 1000: "the match is over"};
const RELATIVE = ["bottom", "right", "top", "left"];  // the person at the bottom, then in turn order
const POS_CLASSES = RELATIVE.map((r) => "pos-" + r);
const BACK = '<span class="tile back"><svg viewBox="0 0 30 40"><use href="#k-back"/></svg></span>';

const params = new URLSearchParams((location.hash || "").replace(/^#/, ""));
const NAME = params.get("name") || "", TOKEN = params.get("token") || "";

let ws = null, position = 0, names = ["", "", "", ""], table = null, ask = null, deadline = 0, tick = null;
let chosen = -1, retry = 500, final = false, hands = 0;

function setState(state, text) {
  document.body.dataset.state = state;
  if (text !== undefined) $("status").textContent = text;
}
function note(text) {
  const li = document.createElement("li");
  li.textContent = new Date().toLocaleTimeString() + " " + text;
  const ul = $("notes");
  ul.appendChild(li);
  while (ul.children.length > 12) ul.removeChild(ul.firstChild);
}
const seatName = (p) => p + " " + (names[p - 1] || "seat " + p);

// ------------------------------------------------------------------------------------------------ connection
function connect() {
  if (!NAME || !TOKEN) {
    setState("refused", "open the address mjref printed: it ends with #name=…&token=…");
    return;
  }
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  setState(document.body.dataset.state === "connecting" ? "connecting" : "away", "connecting…");
  ws = new WebSocket(scheme + location.hostname + ":" + DATA.ws_port);
  ws.onopen = () => send({type: "hello", v: PROTOCOL, name: NAME, token: TOKEN});
  ws.onmessage = (e) => { let m; try { m = JSON.parse(e.data); } catch (err) { return; } handle(m); };
  ws.onclose = (e) => {
    ws = null;
    clearAsk();
    if (final || FINAL_CLOSE[e.code]) {
      final = true;
      setState(e.code === 1000 ? "over" : "refused", FINAL_CLOSE[e.code] || "the match is over");
      return;
    }
    setState("away", "disconnected: reconnecting (you play again from the next hand)…");
    setTimeout(connect, retry);
    retry = Math.min(10000, retry * 2);
  };
}
function send(m) { if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m)); }

function handle(m) {
  switch (m.type) {
    case "welcome":
      retry = 500;
      $("who").textContent = "playing as " + m.name;
      setState("waiting", "logged in: waiting for the next hand…");
      break;
    case "seat":
      position = m.position;
      document.body.dataset.position = String(position);
      placeSeats();
      note("you sit at seat " + position + " (" + m.timeout + " s per question)");
      break;
    case "hand":
      position = m.position;
      document.body.dataset.position = String(position);
      placeSeats();  // the last hand's result stays up until this one ends: the next hand starts at once
      send({type: "ready", hand: m.hand, started: false});
      setState("waiting", "hand " + (m.hand + 1) + ": waiting for your turn…");
      break;
    case "table":
      table = m;
      names = m.seats.map((s) => s.name);
      render();
      if (m.ask) startAsk(m.ask); else clearAsk();
      break;
    case "hand_over":
      showResult(m.result);
      break;
    case "abandon":
      clearAsk();
      setState("away", "the stand-in plays the rest of this hand (" + m.kind + "); you are back at the next hand");
      note("fault: " + m.kind + ": " + m.detail);
      break;
    case "unseat":
    case "over":
      final = true;
      clearAsk();
      setState("over", "the match is over" + (m.reason ? ": " + m.reason : ""));
      break;
    default:
      break;
  }
}

// ------------------------------------------------------------------------------------------------ the table
function placeSeats() {
  for (const p of [1, 2, 3, 4]) {
    const el = $("seat-" + p);
    el.classList.remove(...POS_CLASSES);
    el.classList.add("pos-" + RELATIVE[(p - position + 4) % 4]);
    el.classList.toggle("me", p === position);
  }
}

function meldHtml(x) {
  const words = x.type === "gong" && x.promoted ? "promoted gong" : (MJ.MELD_WORDS[x.type] || x.type);
  const tiles = x.tiles.length ? x.tiles : [0, 0, 0, 0];
  return '<span class="meld meld-' + x.type + '" data-type="' + x.type + '" title="' + esc(words) + '">' +
    tiles.map((t) => (t ? tile(t, t === x.claimed ? "in" : "") : BACK)).join("") +
    (x.source ? '<span class="from">from<br>' + x.source + "</span>" : "") + "</span>";
}

function render() {
  const t = table;
  if (!t) return;
  const winners = new Set(t.winners);
  for (const s of t.seats) {
    const p = s.position, el = $("seat-" + p);
    el.querySelector(".name").textContent = p + " " + s.name + (p === position && s.name !== "you" ? " (you)" : "");
    el.querySelector(".wind").textContent = MJ.WINDS[(p - t.dealer + 4) % 4];
    el.classList.toggle("dealer", t.dealer === p);
    el.classList.toggle("winner", winners.has(p));
    el.querySelector(".badges").innerHTML = t.dealer === p ? '<span class="badge dealer">dealer</span>' : "";
    $("score-" + p).textContent = t.totals[p - 1];
    $("melds-" + p).innerHTML = s.melds.map(meldHtml).join("");
    $("river-" + p).innerHTML = s.river.map((x) => tile(x, "")).join("");
    $("flowers-" + p).innerHTML = s.flowers.map((x) => tile(x, "")).join("");
    if (p !== position) {  // another seat's concealed tiles, face down: at every question each holds the deal's
      // 16 (taiwan16) or 13 (classical) tiles, less 3 per meld
      const n = winners.has(p) ? 0 : Math.max(0, (t.deal || 16) - 3 * s.melds.length);
      $("hand-" + p).innerHTML = BACK.repeat(n);
    }
  }
  renderHand();
  $("wall-count").textContent = t.live;
  $("wall-count").dataset.wall = t.wall;
  $("wall-count").dataset.live = t.live;
  const cap = (w) => w.charAt(0) + w.slice(1).toLowerCase();
  $("round-info").textContent = "Hand " + (t.hand + 1) + " · " + cap(t.round_wind) + " round · " + cap(t.hand_wind) +
    " hand · dealer " + t.dealer;
  renderScores(t.totals);
}

function throwable() {
  const out = new Map();
  if (ask && ask.ask === "throw") {
    for (const line of ask.legal) {
      const m = /^\/throw (\d+)$/.exec(line);
      if (m) out.set(+m[1], line);
    }
  }
  return out;
}

function renderHand() {
  const t = table;
  const lines = throwable();
  const rest = t.concealed.slice();
  let drawn = null;
  if (t.drawn !== null && t.drawn !== undefined && rest.includes(t.drawn)) {
    rest.splice(rest.indexOf(t.drawn), 1);
    drawn = t.drawn;
  }
  const order = drawn === null ? rest : rest.concat([drawn]);
  const el = $("hand-" + position);
  el.innerHTML = order.map((x, i) => {
    const c = (x === drawn && i === order.length - 1 ? "drawn" : "") + (lines.has(x) ? " playable" : "") +
      (i === chosen ? " chosen" : "");
    return tile(x, c.trim());
  }).join("");
  for (const node of el.querySelectorAll(".tile.playable")) {
    node.addEventListener("click", () => answer(lines.get(+node.dataset.tid)));
  }
}

function renderScores(totals) {
  $("scores").innerHTML = "<table class=pay><tr><th>seat</th><th>points</th></tr>" + [1, 2, 3, 4].map((p) =>
    '<tr data-seat="' + p + '"' + (p === position ? ' class="me"' : "") + "><td>" + esc(seatName(p)) +
    '</td><td class="' + cls(totals[p - 1]) + '">' + totals[p - 1] + "</td></tr>").join("") + "</table>";
}

// ------------------------------------------------------------------------------------------------ questions
const ASK_WORDS = {throw: "Your turn: click a tile to throw it", eat: "Eat (chow) the tile just thrown?",
                   pong: "Pong the tile just thrown?", gong: "Gong?", hu: "Win (hu)?"};
const GONG_WORDS = {0: "concealed gong", 1: "promoted gong", 4: "gong"};

function describe(line) {
  const parts = line.split(" ");
  const kind = parts[0].slice(1);
  if (kind === "pass") return {kind, label: "Pass", tiles: []};
  if (kind === "hu") return {kind, label: "Hu: win", tiles: ask.tile ? [ask.tile] : []};
  if (kind === "gong") return {kind, label: GONG_WORDS[parts[1]] || "gong", tiles: parts.slice(2).map(Number)};
  if (kind === "pong") return {kind, label: "Pong", tiles: parts.slice(1).map(Number).concat(ask.tile ? [ask.tile] : [])};
  if (kind === "eat") {
    const own = parts.slice(1).map(Number);
    return {kind, label: "Eat", tiles: own.concat(ask.tile ? [ask.tile] : []).sort((a, b) => a - b)};
  }
  return {kind, label: line, tiles: []};
}

function startAsk(a) {
  ask = a;
  chosen = -1;
  deadline = Date.now() + a.seconds * 1000;
  setState("asked", "your move");
  $("prompt").textContent = ASK_WORDS[a.ask] || a.ask;
  $("key-hint").textContent = "";
  const buttons = a.legal.filter((l) => !l.startsWith("/throw"));
  $("answers").innerHTML = buttons.map((line, i) => {
    const d = describe(line);
    return '<button class="answer" data-kind="' + d.kind + '" data-line="' + esc(line) + '" title="' + esc(line) +
      '"><kbd>' + (i + 1) + "</kbd> " + esc(d.label) + " " + d.tiles.map((x) => tile(x, x === a.tile ? "in" : "")).join("") +
      "</button>";
  }).join("") + (a.ask === "throw" ? '<p class="hint">click a tile in your hand (D: the drawn tile)</p>' : "");
  for (const b of $("answers").querySelectorAll("button.answer")) {
    b.addEventListener("click", () => answer(b.dataset.line));
  }
  renderHand();
  if (tick) clearInterval(tick);
  showCountdown();
  tick = setInterval(showCountdown, 200);
}

function showCountdown() {
  const el = $("countdown");
  if (!ask) { el.hidden = true; return; }
  const left = Math.max(0, (deadline - Date.now()) / 1000);
  el.hidden = false;
  el.dataset.seconds = left.toFixed(1);
  el.textContent = Math.ceil(left) + " s";
  el.classList.toggle("urgent", left < 10);
}

function clearAsk() {
  ask = null;
  chosen = -1;
  if (tick) clearInterval(tick);
  tick = null;
  $("answers").innerHTML = "";
  $("prompt").textContent = "";
  $("key-hint").textContent = "";
  showCountdown();
  if (table && position) renderHand();
}

function answer(line) {
  if (!ask || !ask.legal.includes(line)) return;  // only what the referee offered
  send({type: "reply", q: ask.q, line: line});
  clearAsk();
  setState("waiting", "waiting for your turn…");
}

// ------------------------------------------------------------------------------------------------ hand over
function showResult(r) {
  hands += 1;
  const panel = $("winner-panel");
  panel.hidden = false;
  let h;
  if (r.outcome === "draw" || !r.wins.length) {
    panel.dataset.outcome = "draw";
    h = "<h2>Hand " + (r.hand + 1) + ": exhaustive draw</h2><p>No one won; the live wall is used up.</p>";
  } else {
    panel.dataset.outcome = "win";
    h = "<h2>Hand " + (r.hand + 1) + ": " + (r.wins.length > 1 ? r.wins.length + " winners" : "win") + "</h2>";
    for (const w of r.wins) h += MJ.winHtml(w, seatName, !!r.classical);
  }
  // classical: every player's score line with mj-server's explanation and the settlement, as in the viewer
  if (r.classical) h += MJ.classicalHtml(r.classical, seatName);
  h += MJ.settleHtml(r, seatName);
  panel.innerHTML = h;
  renderScores(r.totals);
  for (const p of [1, 2, 3, 4]) $("score-" + p).textContent = r.totals[p - 1];
  setState("hand-over", "hand " + (r.hand + 1) + " is over: the next one starts at once");
  const unit = r.classical ? " points" : " tai";
  note("hand " + (r.hand + 1) + ": " + (r.wins.length ? r.wins.map((w) => seatName(w.seat) + " wins " + w.tai +
    unit).join("; ") : "draw") + "; you " + signed(r.scores[position - 1] - r.penalties[position - 1]));
}

// ------------------------------------------------------------------------------------------------ keys
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || !ask) return;
  const k = e.key;
  const buttons = Array.from($("answers").querySelectorAll("button.answer"));
  const byKind = (kind) => buttons.find((b) => b.dataset.kind === kind);
  let b = null;
  if (/^[1-9]$/.test(k)) b = buttons[+k - 1];
  else if (k === "h" || k === "H") b = byKind("hu");
  else if (k === "p" || k === "P") b = byKind("pong");
  else if (k === "g" || k === "G") b = byKind("gong");
  else if (k === "e" || k === "E") b = byKind("eat");
  else if (k === "Escape" || k === "x" || k === "X") b = byKind("pass");
  else if (ask.ask === "throw" && (k === "d" || k === "D")) {
    const lines = throwable();
    if (table.drawn !== null && lines.has(table.drawn)) answer(lines.get(table.drawn));
    else $("key-hint").textContent = "D: there is no drawn tile this turn (the dealer's first throw): click a tile " +
      "of your hand, or choose one with ← → and press Enter";
    e.preventDefault();
    return;
  } else if (ask.ask === "throw" && (k === "ArrowLeft" || k === "ArrowRight")) {
    const n = $("hand-" + position).querySelectorAll(".tile").length;
    chosen = chosen < 0 ? (k === "ArrowLeft" ? n - 1 : 0) : (chosen + (k === "ArrowLeft" ? n - 1 : 1)) % n;
    renderHand();
    e.preventDefault();
    return;
  } else if (ask.ask === "throw" && k === "Enter" && chosen >= 0) {
    const node = $("hand-" + position).querySelectorAll(".tile")[chosen];
    const lines = throwable();
    if (node && lines.has(+node.dataset.tid)) answer(lines.get(+node.dataset.tid));
    e.preventDefault();
    return;
  }
  if (b) { b.click(); e.preventDefault(); }
});

window.MJPLAY = {state: () => ({position, table, ask, hands})};
connect();
})();
