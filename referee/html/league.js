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
      tr.appendChild(el("td", "name", m.id));
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

  async function poll() {
    try {
      const [s, m] = await Promise.all([fetch("/api/standings"), fetch("/api/matches")]);
      if (!s.ok || !m.ok) throw new Error("HTTP " + s.status + "/" + m.status);
      standings(await s.json());
      matches(await m.json());
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
