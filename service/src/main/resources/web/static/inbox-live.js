// Keeps the inbox and a conflict's page current while they stay open: polls the page's JSON view (same session,
// same org), writes what changed into the page the server rendered, and says how fresh it is. Paused while the tab
// is hidden. Without this file the pages work the same, as of loading. Values are written as text, never as markup.
(function () {
  "use strict";
  var EVERY_MS = 5000;

  // A resolution is final: acting on everything a filter matches asks once more. Without the script the form
  // goes straight through, as every form of the pages does.
  var bulk = document.getElementById("bulk");
  if (bulk) {
    bulk.addEventListener("submit", function (event) {
      var button = event.submitter;
      if (button && button.value === "matching" && !window.confirm("Apply this to every conflict that matches the "
          + "current filter (the newest 500 at most)?")) {
        event.preventDefault();
      }
    });
  }

  // The age line is not announced: it changes every second. What a reader needs to hear is the reload offer.
  var status = document.getElementById("live-status");
  if (!status || !status.getAttribute("data-live-url") || !window.fetch) { return; }
  var url = status.getAttribute("data-live-url");
  var lastOk = null;
  var timer = null;
  var stopped = false;

  function setText(el, text) {
    if (el && el.textContent !== String(text)) { el.textContent = String(text); }
  }

  function badge(el, prefix, value, label) {
    if (!el) { return; }
    el.className = "badge " + prefix + value;
    setText(el, label);
  }

  function cell(text, className) {
    var td = document.createElement("td");
    if (className) { td.className = className; }
    if (text !== null) { td.textContent = text; }
    return td;
  }

  // A row the page did not have (a conflict that arrived since), built as the server builds one.
  function newRow(c, withPick) {
    var tr = document.createElement("tr");
    tr.setAttribute("data-id", c.id);
    tr.className = "live-new";
    if (withPick) {
      var pick = cell(null, "pick");
      var box = document.createElement("input");
      box.type = "checkbox"; box.name = "id"; box.value = c.id; box.setAttribute("form", "bulk");
      box.setAttribute("aria-label", "Select " + c.target);
      pick.appendChild(box);
      tr.appendChild(pick);
    }
    var target = cell(null, "target");
    var a = document.createElement("a");
    a.href = c.link; a.textContent = c.target;
    target.appendChild(a);
    tr.appendChild(target);
    tr.appendChild(cell(c.action));
    var winner = cell(null);
    var code = document.createElement("code");
    code.textContent = c.winner;
    winner.appendChild(code);
    tr.appendChild(winner);
    var state = document.createElement("span");
    state.setAttribute("data-field", "state");
    badge(state, "", c.state, c.state_label);
    var stateCell = cell(null); stateCell.appendChild(state); tr.appendChild(stateCell);
    var inbox = document.createElement("span");
    inbox.setAttribute("data-field", "inbox");
    badge(inbox, "inbox-", c.inbox_status, c.inbox_status);
    var inboxCell = cell(null); inboxCell.appendChild(inbox); tr.appendChild(inboxCell);
    decided(inbox, c);
    var time = document.createElement("time");
    time.setAttribute("datetime", c.received_iso); time.title = c.received_exact; time.textContent = c.received_relative;
    var timeCell = cell(null); timeCell.appendChild(time); tr.appendChild(timeCell);
    return tr;
  }

  // Who resolved or acknowledged the conflict, and when, after its inbox badge, as the server writes it.
  function decided(badgeEl, c) {
    if (!badgeEl) { return; }
    var td = badgeEl.parentNode;
    var old = td.querySelector(".by");
    if (!c.decided_by) {
      if (old) { td.removeChild(old); }
      return;
    }
    var by = document.createElement("span");
    by.className = "by";
    by.appendChild(document.createTextNode("by "));
    var actor = document.createElement("span");
    actor.className = "actor";
    actor.textContent = c.decided_by;
    by.appendChild(actor);
    if (c.decided_iso) {
      by.appendChild(document.createTextNode(", "));
      var time = document.createElement("time");
      time.setAttribute("datetime", c.decided_iso); time.title = c.decided_exact; time.textContent = c.decided_relative;
      by.appendChild(time);
    }
    if (old && old.textContent === by.textContent) { return; }
    if (old) {
      td.replaceChild(by, old);
    } else {
      td.appendChild(document.createTextNode(" "));
      td.appendChild(by);
    }
  }

  function applyInbox(view) {
    Object.keys(view.counts).forEach(function (key) {
      document.querySelectorAll('[data-count="' + key + '"]').forEach(function (el) { setText(el, view.counts[key]); });
    });
    var body = document.querySelector("table.conflicts tbody");
    if (!body) { return; }
    var withPick = !!document.getElementById("bulk");
    var previous = null;
    view.conflicts.forEach(function (c) {
      var row = body.querySelector('tr[data-id="' + c.id + '"]');
      if (!row) {
        row = newRow(c, withPick);
        body.insertBefore(row, previous ? previous.nextSibling : body.firstChild);
      } else {
        badge(row.querySelector('[data-field="state"]'), "", c.state, c.state_label);
        badge(row.querySelector('[data-field="inbox"]'), "inbox-", c.inbox_status, c.inbox_status);
        decided(row.querySelector('[data-field="inbox"]'), c);
      }
      previous = row;
    });
  }

  // The parts of a conflict's page that only the workers change. When its synthesis moves on (queued again, a merge
  // written, a failure), they are taken from the page as the server renders it now, so that the body never
  // contradicts the facts above it. The decision form is left alone: a note being typed there must not be lost.
  var SYNTHESIS_SECTIONS = ["merge-heading", "calls-heading", "history-heading"];

  function offerReload() {
    var changed = document.getElementById("live-changed");
    if (changed) { changed.hidden = false; }
  }

  function refreshSynthesisSections() {
    fetch(window.location.pathname, {credentials: "same-origin", headers: {"Accept": "text/html"}, cache: "no-store"})
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html === null) { offerReload(); return; }
        var fresh = new DOMParser().parseFromString(html, "text/html");
        SYNTHESIS_SECTIONS.forEach(function (heading) {
          var selector = 'section[aria-labelledby="' + heading + '"]';
          var shown = document.querySelector(selector);
          var current = fresh.querySelector(selector);
          if (shown && current) { shown.replaceWith(document.importNode(current, true)); }
        });
      })
      .catch(offerReload);
  }

  var seen = null;
  function applyConflict(view) {
    badge(document.querySelector('dl.facts [data-field="state"]'), "", view.state, view.state_label);
    badge(document.querySelector('dl.facts [data-field="inbox"]'), "inbox-", view.inbox_status, view.inbox_status);
    setText(document.querySelector('dl.facts [data-field="attempts"]'), view.attempts);
    var now = {synthesis: view.state + "|" + view.has_merge + "|" + view.attempts, decision: view.inbox_status};
    if (seen !== null && seen.synthesis !== now.synthesis) { refreshSynthesisSections(); }
    // A decision someone else made is the server's to render around the form: offer the reload.
    if (seen !== null && seen.decision !== now.decision) { offerReload(); }
    seen = now;
  }

  function showAge() {
    if (stopped) { return; }
    status.hidden = false;
    if (lastOk === null) { setText(status, "Live: connecting…"); return; }
    var s = Math.max(0, Math.round((Date.now() - lastOk) / 1000));
    setText(status, "Live · updated " + s + " s ago" + (document.visibilityState === "hidden" ? " (paused)" : ""));
  }

  function poll() {
    timer = null;
    if (stopped || document.visibilityState === "hidden") { return; }
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}, cache: "no-store"})
      .then(function (response) {
        if (response.status === 401 || response.status === 404) {
          stopped = true;
          setText(status, response.status === 401 ? "Signed out: reload to sign in again." : "No longer here.");
          return null;
        }
        return response.ok ? response.json() : null;
      })
      .then(function (view) {
        if (!view) { return; }
        if (view.conflicts) { applyInbox(view); } else { applyConflict(view); }
        lastOk = Date.now();
        showAge();
      })
      .catch(function () { /* The next poll tries again; the age shown keeps growing meanwhile. */ })
      .then(schedule);
  }

  function schedule() {
    if (!stopped && timer === null && document.visibilityState !== "hidden") { timer = setTimeout(poll, EVERY_MS); }
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      showAge();
    } else if (timer === null) {
      poll();
    }
  });
  setInterval(showAge, 1000);
  showAge();
  poll();
})();
