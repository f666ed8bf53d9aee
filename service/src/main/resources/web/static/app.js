// Keeps "3 min ago" true while a page stays open. The server already wrote every text; without this file the
// pages work the same, with times as of loading.
(function () {
  "use strict";
  function relative(then, now) {
    var s = Math.round((now - then) / 1000);
    var future = s < 0;
    s = Math.abs(s);
    var amount;
    if (s < 45) { return future ? "in a few seconds" : "just now"; }
    if (s < 3600) { amount = Math.max(1, Math.round(s / 60)) + " min"; }
    else if (s < 86400) { amount = Math.floor(s / 3600) + " h"; }
    else if (s < 30 * 86400) { var d = Math.floor(s / 86400); amount = d + (d === 1 ? " day" : " days"); }
    else { return null; }
    return future ? "in " + amount : amount + " ago";
  }
  function refresh() {
    var now = Date.now();
    document.querySelectorAll("time[datetime]").forEach(function (el) {
      var then = Date.parse(el.getAttribute("datetime"));
      var text = isNaN(then) ? null : relative(then, now);
      if (text !== null && el.textContent !== text) { el.textContent = text; }
    });
  }
  setInterval(refresh, 30000);
})();
