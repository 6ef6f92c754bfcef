// Keeps #live up to date: fetch its fragment every few seconds and swap it in when it
// changed, keeping what the reader opened, closed, scrolled or selected.  Runs the deadline
// countdowns in the game's clock, shows times in the reader's own zone, and checks the seed
// of a finished game.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var period = live && Number(live.dataset.period) || 2000;

  function pad(n) { return n < 10 ? "0" + n : "" + n; }

  // The game's clock: the server says what time it is in the game (a rehearsal's clock may
  // run faster than real time, data-scale) when the page came; the countdown runs from there.
  var loadedAt = Date.now();
  var clock = document.getElementById("game-clock");
  function gameNow() {
    var base = clock ? Date.parse(clock.dataset.gameNow || "") : NaN;
    if (isNaN(base)) { return Date.now(); }
    return base + (Date.now() - loadedAt) * (Number(clock.dataset.scale) || 1);
  }

  function tick() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      var left = Math.floor((Date.parse(el.dataset.deadline) - gameNow()) / 1000);
      if (isNaN(left)) { return; }
      if (left <= 0) { el.textContent = "已到时间"; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600);
      var m = Math.floor(left % 3600 / 60), s = left % 60;
      el.textContent = "还剩 " + (d ? d + "天 " : "") + pad(h) + ":" + pad(m) + ":" + pad(s);
    });
  }

  // The reader's own time beside the board's: only when his zone is another one.
  function localTimes() {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
    document.querySelectorAll("[data-local]").forEach(function (el) {
      var t = new Date(el.dataset.local);
      if (isNaN(t.getTime())) { return; }
      var shown = (t.getMonth() + 1) + "月" + t.getDate() + "日 " + pad(t.getHours()) + ":" + pad(t.getMinutes());
      el.textContent = "（你的当地时间 " + shown + (zone ? " " + zone : "") + "）";
    });
  }

  // What the reader opened or closed, by a stable key (data-key, else the summary's text).
  function keyOf(d) {
    var s = d.querySelector("summary");
    return d.dataset.key || (s ? s.textContent.trim() : "");
  }
  function openState() {
    var map = {};
    live.querySelectorAll("details").forEach(function (d) { map[keyOf(d)] = d.open; });
    return map;
  }
  function restoreOpen(map) {
    live.querySelectorAll("details").forEach(function (d) {
      var k = keyOf(d);
      if (Object.prototype.hasOwnProperty.call(map, k)) { d.open = map[k]; }
    });
  }
  // Scrolled boxes inside the fragment (.scroll tables, long lists), by their position.
  function scrolls() {
    var out = [];
    live.querySelectorAll(".scroll, ol, pre").forEach(function (el) { out.push([el.scrollLeft, el.scrollTop]); });
    return out;
  }
  function restoreScrolls(list) {
    live.querySelectorAll(".scroll, ol, pre").forEach(function (el, i) {
      if (list[i]) { el.scrollLeft = list[i][0]; el.scrollTop = list[i][1]; }
    });
  }
  // A selection inside the fragment: no swap while the reader is selecting there.
  function selecting() {
    var sel = window.getSelection && window.getSelection();
    return sel && !sel.isCollapsed && sel.anchorNode && live.contains(sel.anchorNode);
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
    if (e.target.closest && e.target.closest(".verify-button")) { verify(e.target.closest(".verify")); return; }
    pick(e.target.closest ? e.target.closest(".hexmap .cell") : null);
  });
  document.addEventListener("mouseover", function (e) {
    var cell = e.target.closest ? e.target.closest(".hexmap .cell") : null;
    if (cell) { pick(cell); }
  });

  // The seed of a finished game: sha256("salt:seed") (or of the seed alone, its first 16
  // digits, for a game without a salt) against the commitment the player list posted.
  function verify(box) {
    var out = box.querySelector(".verify-result");
    var seed = box.dataset.seed, salt = box.dataset.salt, want = box.dataset.commitment;
    if (!window.crypto || !window.crypto.subtle) { out.textContent = "这个浏览器不能在本页计算 sha256（需要 https）"; return; }
    var text = salt ? salt + ":" + seed : seed;
    window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(function (buf) {
      var hex = Array.prototype.map.call(new Uint8Array(buf), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
      if (!salt) { hex = hex.slice(0, 16); }
      var ok = want && hex === want;
      out.textContent = (ok ? "✔ 一致：" : "✘ 不一致：") + hex;
      out.className = "verify-result " + (ok ? "ok" : "bad");
    });
  }

  // The fragment as the page shows it, less what the script writes in (countdowns, local
  // times, the seed check): the same as `html`, read the same way?
  function bare(node) {
    node.querySelectorAll(".countdown, .local, .verify-result").forEach(function (el) { el.textContent = ""; });
    return node.innerHTML.trim();
  }
  function sameAsShown(html) {
    var fresh = document.createElement("template");
    fresh.innerHTML = html;
    var shown = live.cloneNode(true);
    shown.querySelectorAll("details").forEach(function (d) { d.removeAttribute("open"); });
    fresh.content.querySelectorAll("details").forEach(function (d) { d.removeAttribute("open"); });
    var box = document.createElement("div");
    box.appendChild(fresh.content);
    return bare(box) === bare(shown);
  }

  function stopped(message) {
    var note = document.getElementById("poll-note");
    if (!note) {
      note = document.createElement("p");
      note.id = "poll-note";
      note.className = "expired";
      live.parentNode.insertBefore(note, live);
    }
    note.textContent = message;
  }

  function poll() {
    fetch(live.dataset.src, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      if (r.status === 401 || r.status === 403) {
        stopped("登录已过期：请重新输入口令后刷新本页。");
        return null;
      }
      if (!r.ok) { throw new Error(r.status); }
      return r.text();
    }).then(function (html) {
      if (html === null) { return; }  // the session is gone: stop asking
      document.body.classList.remove("offline");
      if (last === null && sameAsShown(html)) { last = html; }  // the first poll: nothing new yet
      if (html !== last && !selecting()) {
        var opened = openState(), scrolled = scrolls();
        live.innerHTML = html;
        last = html;
        restoreOpen(opened);
        restoreScrolls(scrolled);
        tick();
        localTimes();
      }
      if (live.querySelector("[data-over]")) { return; }  // the game is over: nothing more will change
      setTimeout(poll, period);
    }).catch(function () {
      document.body.classList.add("offline");
      setTimeout(poll, period);
    });
  }

  setInterval(tick, 1000);
  tick();
  localTimes();
  if (live && live.dataset.src) { setTimeout(poll, period); }
})();
