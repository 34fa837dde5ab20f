// The league's pages: the standings page polls /api/standings and /api/matches, a bot's page /api/bots/NAME, and
// each redraws; no reload, nothing from elsewhere.
"use strict";
(function () {
  const every = Number(document.body.dataset.poll || "2000");
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const num = (x, d) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));
  const signed = (x, d) => (x === null || x === undefined ? "–" : (x > 0 ? "+" : "") + Number(x).toFixed(d));
  function withPm(cell, value, pm) {
    cell.appendChild(document.createTextNode(value));
    if (pm !== null) cell.appendChild(el("span", "pm", " ± " + pm));
    return cell;
  }
  const botHref = (name) => "/bot/" + encodeURIComponent(name);

  // A line chart as SVG: points [x, y] or [x, y, sigma] (then a band of y ± sigma and labelled axes).
  const NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function chart(points, w, h, full) {
    const s = svg("svg", { viewBox: "0 0 " + w + " " + h, class: full ? "chart" : "spark", role: "img" });
    s.dataset.points = String(points.length);
    if (!points.length) return s;
    const band = (p) => (full && p.length > 2 ? p[2] : 0);
    let lo = Math.min(...points.map((p) => p[1] - band(p)));
    let hi = Math.max(...points.map((p) => p[1] + band(p)));
    if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
    const x0 = points[0][0], x1 = points[points.length - 1][0];
    const left = full ? 44 : 1, right = full ? 8 : 1, top = full ? 8 : 1, bottom = full ? 22 : 1;
    const X = (x) => left + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * (w - left - right);
    const Y = (y) => top + (hi - y) / (hi - lo) * (h - top - bottom);
    const path = (ps, f) => ps.map((p) => X(p[0]).toFixed(1) + "," + Y(f(p)).toFixed(1)).join(" ");
    if (full) {
      s.appendChild(svg("polygon", { class: "band", points: path(points, (p) => p[1] + band(p)) + " " +
        path(points.slice().reverse(), (p) => p[1] - band(p)) }));
      [hi, (hi + lo) / 2, lo].forEach((v) => {
        s.appendChild(svg("line", { class: "grid", x1: left, x2: w - right, y1: Y(v), y2: Y(v) }));
        s.appendChild(svg("text", { class: "tick", x: left - 4, y: Y(v) + 4, "text-anchor": "end" }, v.toFixed(1)));
      });
      s.appendChild(svg("text", { class: "tick", x: left, y: h - 6 }, "match " + x0));
      s.appendChild(svg("text", { class: "tick", x: w - right, y: h - 6, "text-anchor": "end" }, "match " + x1));
    }
    s.appendChild(svg("polyline", { class: "line", points: path(points, (p) => p[1]) }));
    const last = points[points.length - 1];
    s.appendChild(svg("circle", { class: "dot", cx: X(last[0]), cy: Y(last[1]), r: full ? 3 : 1.5 }));
    return s;
  }

  function standings(data) {
    $("title").textContent = data.name || "league";
    document.title = (data.name || "league") + ": league standings";
    $("summary").textContent = data.matches + " matches, " + data.hands + " hands";
    const body = $("standings-body");
    body.replaceChildren();
    const online = data.online || {}, trends = data.trends || {};
    data.bots.forEach((b, i) => {
      const tr = el("tr");
      tr.dataset.bot = b.name;
      tr.appendChild(el("td", "", String(i + 1)));
      const name = el("td", "name");
      if (b.dummy) {
        name.textContent = b.name + " (dummy)";
      } else {
        const a = el("a", "bot", b.name);
        a.href = botHref(b.name);
        name.appendChild(a);
      }
      if (b.name in online) {
        tr.dataset.online = online[b.name] ? "yes" : "no";
        name.appendChild(el("span", "online " + tr.dataset.online, online[b.name] ? " ● online" : " ○ away"));
      }
      tr.appendChild(name);
      const r = b.rating;
      tr.appendChild(withPm(el("td", "rating"), r ? num(r.mu, 1) : "–", r ? num(r.sigma, 1) : null));
      const trend = el("td", "trend");
      trend.appendChild(chart((trends[b.name] || []).map((mu, k) => [k, mu]), 64, 18, false));
      tr.appendChild(trend);
      const half = b.ci95 ? (b.ci95[1] - b.ci95[0]) / 2 : null;
      tr.appendChild(withPm(el("td", "mean"), signed(b.mean, 1), half === null ? null : num(half, 1)));
      tr.appendChild(el("td", "matches", String(b.matches)));
      tr.appendChild(el("td", "wide", String(b.hands)));
      tr.appendChild(el("td", "wide", b.first_rate === null ? "–" : num(100 * b.first_rate, 0) + "%"));
      tr.appendChild(el("td", "faults" + (b.fault_count ? " some" : ""), String(b.fault_count)));
      body.appendChild(tr);
    });
  }

  function matches(data) {
    const body = $("matches-body");
    body.replaceChildren();
    data.matches.forEach((m) => {
      const tr = el("tr");
      tr.dataset.match = m.id;
      const idCell = el("td", "name");
      if (m.viewer) {
        const a = el("a", "", m.id);
        a.href = "/match/" + encodeURIComponent(m.id);
        idCell.appendChild(a);
      } else {
        idCell.textContent = m.id;
      }
      tr.appendChild(idCell);
      const seats = el("td", "seats");
      const best = Math.max(...m.totals);
      m.seats.forEach((s, i) => {
        if (i) seats.appendChild(document.createTextNode(", "));
        seats.appendChild(el("span", m.totals[i] === best ? "first" : "", s + " " + signed(m.totals[i], 0)));
      });
      tr.appendChild(seats);
      tr.appendChild(el("td", "faults" + (m.faults ? " some" : ""), String(m.faults)));
      tr.appendChild(el("td", "wide", m.finished || ""));
      body.appendChild(tr);
    });
  }

  const token = () => $("token").value.trim();
  const auth = () => (token() ? { Authorization: "Bearer " + token() } : {});

  function say(outcome, text) {
    const out = $("submit-result");
    out.dataset.outcome = outcome;
    out.textContent = text;
  }

  function entries(data) {
    const body = $("entries-body");
    if (!body) return;
    body.replaceChildren();
    data.entries.forEach((e) => {
      const tr = el("tr");
      tr.dataset.entry = e.name;
      tr.appendChild(el("td", "name", e.name));
      tr.appendChild(el("td", "name", e.author));
      tr.appendChild(el("td", "status", e.status));
      tr.appendChild(el("td", "", e.check ? (e.check.ok ? "passed" : "failed") : "…"));
      const cell = el("td");
      if (e.status === "active" || e.status === "paused") {
        const b = el("button", "retire", "retire");
        b.type = "button";
        b.addEventListener("click", () => act(e.name, "retire"));
        cell.appendChild(b);
      }
      tr.appendChild(cell);
      body.appendChild(tr);
    });
  }

  async function act(name, action) {
    const r = await fetch("/api/entries/" + encodeURIComponent(name) + "/" + action, { method: "POST", headers: auth() });
    const data = await r.json();
    say(r.ok ? "accepted" : "error", r.ok ? name + ": " + data.status : name + ": " + data.error);
  }

  function report(entry) {
    const lines = [entry.name + ": " + (entry.status === "active" ? "entered the league" : "refused: its check failed")];
    const rep = entry.report || {};
    (rep.scenarios || []).forEach((s) => lines.push((s.status === "pass" ? "pass  " : "FAIL  ") + s.name + ": " +
      (s.note || s.received || "")));
    (rep.stderr_tail || []).forEach((l) => lines.push("  stderr: " + l));
    say(entry.status === "active" ? "accepted" : "refused", lines.join("\n"));
  }

  async function submit(ev) {
    ev.preventDefault();
    const file = $("archive").files[0];
    if (!file) return;
    const name = $("bot-name").value.trim();
    say("", "submitting…");
    try {
      const r = await fetch("/api/submit?bot=" + encodeURIComponent(name), { method: "POST", headers: auth(), body: file });
      const data = await r.json();
      if (r.status !== 202) { say("error", "refused: " + data.error); return; }
      say("", data.entrant + ": checking…");
      for (;;) {
        await new Promise((ok) => setTimeout(ok, 1000));
        const e = await fetch("/api/entries/" + encodeURIComponent(data.entrant), { headers: auth() });
        const entry = await e.json();
        if (!e.ok) { say("error", entry.error); return; }
        if (entry.status !== "checking") { report(entry); return; }
      }
    } catch (e) {
      say("error", "cannot reach the league (" + e.message + ")");
    }
  }
  // ---------------------------------------------------------------------------------------------- a bot's page
  const botName = document.body.dataset.page === "bot" ?
    decodeURIComponent(location.pathname.replace(/^\/bot\//, "")) : null;

  function bot(data) {
    $("title").textContent = data.name;
    document.title = data.name + ": league bot";
    const st = data.standing, r = st && st.rating;
    const parts = [data.kind + (data.active ? "" : ", not playing now")];
    if (data.online !== null && data.online !== undefined) parts.push(data.online ? "online" : "away");
    if (r) parts.push("rating " + num(r.mu, 1) + " ± " + num(r.sigma, 1));
    if (st) {
      const half = st.ci95 ? " ± " + num((st.ci95[1] - st.ci95[0]) / 2, 1) : "";
      parts.push(signed(st.mean, 1) + half + " points/hand", st.matches + " matches", st.fault_count + " faults");
    }
    $("summary").textContent = parts.join(" · ");
    const wide = Math.max(300, Math.min(900, $("chart").clientWidth || 600));  // its text at its own size
    $("chart").replaceChildren(chart(data.history, wide, 220, true));
    const h2h = $("h2h-body");
    h2h.replaceChildren();
    data.head_to_head.forEach((h) => {
      const tr = el("tr");
      tr.dataset.opponent = h.opponent;
      const name = el("td", "name");
      const a = el("a", "bot", h.opponent);
      a.href = botHref(h.opponent);
      name.appendChild(a);
      tr.appendChild(name);
      const half = h.ci95 ? num((h.ci95[1] - h.ci95[0]) / 2, 1) : null;
      tr.appendChild(withPm(el("td", "mean"), signed(h.mean_diff, 1), half));
      tr.appendChild(el("td", "matches", String(h.matches)));
      h2h.appendChild(tr);
    });
    const versions = $("versions-body");
    versions.replaceChildren();
    const shown = data.versions.length ? data.versions :
      [{ name: data.name, author: "the organiser", status: data.active ? "active" : "retired", check: null,
        created: "", current: true, builtin: true }];
    shown.forEach((v) => {
      const tr = el("tr", v.current ? "current" : "");
      tr.dataset.entry = v.name;
      const name = el("td", "name");
      if (v.current) name.textContent = v.name; else {
        const a = el("a", "bot", v.name);
        a.href = botHref(v.name);
        name.appendChild(a);
      }
      tr.appendChild(name);
      tr.appendChild(el("td", "name", v.author));
      tr.appendChild(el("td", "status", v.status));
      const check = v.builtin ? "in the league file" : !v.check ? "checking…" : v.check.ok ? "passed" :
        "failed" + (v.check.failed && v.check.failed.length ? ": " + v.check.failed.join(", ") : "");
      tr.appendChild(el("td", "name check", check));
      tr.appendChild(el("td", "wide", v.created || ""));
      versions.appendChild(tr);
    });
    $("report-form").hidden = !data.versions.length;
  }

  async function reports(ev) {
    ev.preventDefault();
    const out = $("reports");
    const rows = [...document.querySelectorAll("#versions-body tr[data-entry]")].map((tr) => tr.dataset.entry);
    const lines = [];
    for (const name of rows) {
      const r = await fetch("/api/entries/" + encodeURIComponent(name), { headers: auth() });
      const e = await r.json();
      if (!r.ok) { lines.push(name + ": " + e.error); continue; }
      if (!e.report) { lines.push(name + ": only its author or an organiser may read its report"); continue; }
      lines.push(name + ": " + (e.report.ok ? "passed" : "failed") + (e.report.error ? " (" + e.report.error + ")" : ""));
      (e.report.scenarios || []).forEach((s) => lines.push("  " + (s.status === "pass" ? "pass  " : "FAIL  ") +
        s.name + ": " + (s.note || s.received || "")));
    }
    out.textContent = lines.join("\n");
  }

  const form = $("submit-form");
  if (form) form.addEventListener("submit", submit);
  const reportForm = $("report-form");
  if (reportForm) reportForm.addEventListener("submit", reports);

  async function loadBot() {
    const r = await fetch("/api/bots/" + encodeURIComponent(botName));
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || "HTTP " + r.status);
    bot(data);
  }

  async function loadLeague() {
    const [s, m] = await Promise.all([fetch("/api/standings"), fetch("/api/matches")]);
    if (!s.ok || !m.ok) throw new Error("HTTP " + s.status + "/" + m.status);
    standings(await s.json());
    matches(await m.json());
    const en = await fetch("/api/entries");
    if (en.ok) entries(await en.json());
  }

  // Load now and every few seconds; the page says whether the league answers.
  async function poll(load) {
    try {
      await load();
      $("status").textContent = "updated " + new Date().toLocaleTimeString();
      document.body.dataset.state = "live";
    } catch (e) {
      $("status").textContent = "cannot reach the league (" + e.message + "); trying again";
      document.body.dataset.state = "away";
    }
    setTimeout(() => poll(load), every);
  }
  poll(botName !== null ? loadBot : loadLeague);
})();
