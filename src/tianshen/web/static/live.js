// Keeps #live up to date: fetch its fragment every few seconds and swap it in when it
// changed (open <details> stay open).  Also runs the deadline countdowns.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var period = live && Number(live.dataset.period) || 2000;

  function pad(n) { return n < 10 ? "0" + n : "" + n; }

  function tick() {
    var now = Date.now();
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      var left = Math.floor((Date.parse(el.dataset.deadline) - now) / 1000);
      if (isNaN(left)) { return; }
      if (left <= 0) { el.textContent = "已到时间"; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600);
      var m = Math.floor(left % 3600 / 60), s = left % 60;
      el.textContent = "还剩 " + (d ? d + "天 " : "") + pad(h) + ":" + pad(m) + ":" + pad(s);
    });
  }

  function openKeys() {
    var keys = [];
    live.querySelectorAll("details[open] > summary").forEach(function (s) { keys.push(s.textContent); });
    return keys;
  }

  function reopen(keys) {
    live.querySelectorAll("details > summary").forEach(function (s) {
      if (keys.indexOf(s.textContent) >= 0) { s.parentNode.open = true; }
    });
  }

  var last = null;
  // The hex map: a tapped (or hovered) cell lights up its neighbours, from the map's own
  // table (data-neighbours), copies over the edge included.  Listened for on the document:
  // the map is swapped in anew by every poll.
  function pick(cell) {
    document.querySelectorAll(".hexmap .picked, .hexmap .near").forEach(function (el) {
      el.classList.remove("picked", "near");
    });
    if (!cell) { return; }
    var near = (cell.dataset.neighbours || "").split(" ");
    document.querySelectorAll(".hexmap .cell").forEach(function (el) {
      if (el.dataset.cell === cell.dataset.cell) { el.classList.add("picked"); }
      else if (near.indexOf(el.dataset.cell) >= 0) { el.classList.add("near"); }
    });
  }
  document.addEventListener("click", function (e) {
    pick(e.target.closest ? e.target.closest(".hexmap .cell") : null);
  });
  document.addEventListener("mouseover", function (e) {
    var cell = e.target.closest ? e.target.closest(".hexmap .cell") : null;
    if (cell) { pick(cell); }
  });

  function poll() {
    fetch(live.dataset.src, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error(r.status); }
      return r.text();
    }).then(function (html) {
      document.body.classList.remove("offline");
      if (last === null) { last = live.innerHTML; }
      if (html !== last) {
        var keys = openKeys();
        live.innerHTML = html;
        last = html;
        reopen(keys);
        tick();
      }
    }).catch(function () {
      document.body.classList.add("offline");
    }).finally(function () {
      setTimeout(poll, period);
    });
  }

  setInterval(tick, 1000);
  tick();
  if (live && live.dataset.src) { setTimeout(poll, period); }
})();
