// ktune dashboard: the list of runs follows the database. Every few seconds, while the
// page is in view, it reads the list again and swaps it in where it changed, so that runs
// started since appear and running ones count their evaluations. It reads the server's
// page itself rather than /api/runs: the rows are then written by one template, the
// server's, with seeds exact (JSON numbers in JavaScript lose the bits of a uint64 seed
// beyond 2^53) and times in the zone of the first load.
"use strict";

const REFRESH_MS = 5000;
const S = {pending: 0, refreshes: 0, changes: 0};
const note = document.getElementById("refresh");

async function refresh() {
  if (!document.hidden) {
    S.pending++;
    try {
      const r = await fetch(location.pathname, {cache: "no-store"});
      const text = await r.text();
      if (!r.ok) throw new Error(r.status + " " + text.trim());
      const now = new DOMParser().parseFromString(text, "text/html").getElementById("list");
      if (!now) throw new Error("the server's page has no list of runs");
      const list = document.getElementById("list");
      if (now.innerHTML !== list.innerHTML) {
        list.innerHTML = now.innerHTML;
        S.changes++;
      }
      S.refreshes++;
      note.textContent = "The list follows the database: read at " + new Date().toLocaleTimeString() + ".";
    } catch (err) {
      note.textContent = "Cannot reach the dashboard's server (" + err.message + "); trying again.";
    } finally {
      S.pending--;
    }
  }
  setTimeout(refresh, REFRESH_MS);
}

note.textContent = "The list follows the database: it is read again every " + REFRESH_MS / 1000 + " s.";
setTimeout(refresh, REFRESH_MS);

// settled resolves once no read is under way: what a test waits for.
window.dashboard = {
  settled() {
    return new Promise(resolve => {
      const check = () => S.pending === 0 ? resolve() : setTimeout(check, 50);
      setTimeout(check, 50);
    });
  },
  state: S,
};
