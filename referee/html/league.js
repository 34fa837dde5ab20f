// The league's page: polls /api/standings and /api/matches and redraws; no reload, nothing from elsewhere.
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

  function standings(data) {
    $("title").textContent = data.name || "league";
    document.title = (data.name || "league") + ": league standings";
    $("summary").textContent = data.matches + " matches, " + data.hands + " hands";
    const body = $("standings-body");
    body.replaceChildren();
    data.bots.forEach((b, i) => {
      const tr = el("tr");
      tr.dataset.bot = b.name;
      tr.appendChild(el("td", "", String(i + 1)));
      tr.appendChild(el("td", "name", b.name + (b.dummy ? " (dummy)" : "")));
      const r = b.rating;
      tr.appendChild(withPm(el("td", "rating"), r ? num(r.mu, 1) : "–", r ? num(r.sigma, 1) : null));
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
  const form = $("submit-form");
  if (form) form.addEventListener("submit", submit);

  async function poll() {
    try {
      const [s, m] = await Promise.all([fetch("/api/standings"), fetch("/api/matches")]);
      if (!s.ok || !m.ok) throw new Error("HTTP " + s.status + "/" + m.status);
      standings(await s.json());
      matches(await m.json());
      const en = await fetch("/api/entries");
      if (en.ok) entries(await en.json());
      $("status").textContent = "updated " + new Date().toLocaleTimeString();
      document.body.dataset.state = "live";
    } catch (e) {
      $("status").textContent = "cannot reach the league (" + e.message + "); trying again";
      document.body.dataset.state = "away";
    }
    setTimeout(poll, every);
  }
  poll();
})();
