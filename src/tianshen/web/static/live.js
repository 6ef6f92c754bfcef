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

  // Told only when the script runs: with JavaScript off the footer's <noscript> says the page does not update.
  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });

  function tick() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      var left = Math.floor((Date.parse(el.dataset.deadline) - gameNow()) / 1000);
      if (isNaN(left)) { return; }
      if (left <= 0) {
        el.textContent = "已到时间";
      } else {
        var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600);
        var m = Math.floor(left % 3600 / 60), s = left % 60;
        el.textContent = "还剩 " + (d ? d + "天 " : "") + pad(h) + ":" + pad(m) + ":" + pad(s);
      }
      // the tab shows the phase and the time left (issue 38 item 6)
      if (el.dataset.title) { document.title = el.dataset.title + " · " + el.textContent; }
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
  // What the reader is looking at: the first keyed element (a post, a <details>, a section)
  // whose top is in view, and where; after a swap the page is scrolled so it stays there.
  function anchors() { return live.querySelectorAll("[data-key], section[id]"); }
  function anchorKey(el) { return el.dataset.key || "#" + el.id; }
  function viewAnchor() {
    var all = anchors();
    for (var i = 0; i < all.length; i++) {
      var top = all[i].getBoundingClientRect().top;
      if (top >= 0 && all[i].offsetParent !== null) { return {key: anchorKey(all[i]), top: top}; }
    }
    return null;
  }
  function restoreAnchor(a) {
    if (!a) { return; }
    var all = anchors();
    for (var i = 0; i < all.length; i++) {
      if (anchorKey(all[i]) === a.key) { window.scrollBy(0, all[i].getBoundingClientRect().top - a.top); return; }
    }
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
    var hex = sha256(salt ? salt + ":" + seed : seed);
    if (!salt) { hex = hex.slice(0, 16); }
    var ok = want && hex === want;
    out.textContent = (ok ? "✔ 一致：" : "✘ 不一致：") + hex;
    out.className = "verify-result " + (ok ? "ok" : "bad");
  }

  // SHA-256 of a string's UTF-8 bytes, in hex (FIPS 180-4), here rather than crypto.subtle,
  // which a page served over plain http may not have.
  var K = [];
  (function () {
    var n = 2, found = 0;
    while (found < 64) {
      var prime = true;
      for (var d = 2; d * d <= n; d++) { if (n % d === 0) { prime = false; break; } }
      if (prime) { K[found++] = (Math.pow(n, 1 / 3) % 1) * 4294967296 | 0; }
      n++;
    }
  })();
  function sha256(text) {
    var bytes = Array.prototype.slice.call(new TextEncoder().encode(text));
    var bits = bytes.length * 8;
    bytes.push(0x80);
    while (bytes.length % 64 !== 56) { bytes.push(0); }
    for (var i = 7; i >= 0; i--) { bytes.push(i >= 4 ? 0 : (bits >>> (i * 8)) & 255); }
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var w = new Array(64);
    function rot(x, n) { return (x >>> n) | (x << (32 - n)); }
    for (var off = 0; off < bytes.length; off += 64) {
      for (var t = 0; t < 64; t++) {
        if (t < 16) {
          w[t] = (bytes[off + 4 * t] << 24) | (bytes[off + 4 * t + 1] << 16) | (bytes[off + 4 * t + 2] << 8) | bytes[off + 4 * t + 3];
        } else {
          var s0 = rot(w[t - 15], 7) ^ rot(w[t - 15], 18) ^ (w[t - 15] >>> 3);
          var s1 = rot(w[t - 2], 17) ^ rot(w[t - 2], 19) ^ (w[t - 2] >>> 10);
          w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
        }
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
      for (t = 0; t < 64; t++) {
        var t1 = (k + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
        var t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h = [h[0] + a, h[1] + b, h[2] + c, h[3] + d, h[4] + e, h[5] + f, h[6] + g, h[7] + k].map(function (x) { return x | 0; });
    }
    return h.map(function (x) { return ("00000000" + (x >>> 0).toString(16)).slice(-8); }).join("");
  }
  window.tianshenSha256 = sha256;

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
        var opened = openState(), scrolled = scrolls(), anchor = viewAnchor();
        live.innerHTML = html;
        last = html;
        restoreOpen(opened);
        restoreScrolls(scrolled);
        restoreAnchor(anchor);
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
