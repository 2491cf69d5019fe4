/* Live pages without a framework: listen to /events and swap #live when the database changes;
   keep the projector's clock and page its rows when they do not fit. Pages work without this file. */
(function () {
  "use strict";
  var body = document.body;
  var pageIndex = 0;

  function pageRows() {
    /* projector: show as many rows as fit below the table's top, one page at a time */
    var table = document.querySelector("body.projector table.pages");
    if (!table) return;
    var rows = table.tBodies[0] ? Array.prototype.slice.call(table.tBodies[0].rows) : [];
    rows.forEach(function (r) { r.classList.remove("paged-out"); r.classList.remove("off"); });
    if (!rows.length) return;
    var top = rows[0].getBoundingClientRect().top;
    var rowH = rows[0].getBoundingClientRect().height || 1;
    var tail = 0;                                      /* what follows the table: the order, the pager */
    for (var el = table.nextElementSibling; el; el = el.nextElementSibling) tail += el.offsetHeight;
    var room = window.innerHeight - top - tail - 4;
    var per = Math.max(1, Math.floor(room / rowH));
    var pages = Math.ceil(rows.length / per);
    if (pageIndex >= pages) pageIndex = 0;
    rows.forEach(function (r, i) {
      if (Math.floor(i / per) !== pageIndex) r.classList.add("paged-out");
    });
    var pager = document.getElementById("pager");
    if (pager) {
      pager.textContent = pages > 1 ? (pager.getAttribute("data-word") + " " + (pageIndex + 1) + "/" + pages) : "";
      pager.setAttribute("data-page", String(pageIndex + 1));
      pager.setAttribute("data-pages", String(pages));
    }
    body.setAttribute("data-pages", String(pages));
  }

  function tick() {
    var clock = document.getElementById("clock");
    if (clock) {
      var d = new Date();
      var hh = String(d.getHours()), mm = String(d.getMinutes());
      clock.textContent = (hh.length < 2 ? "0" + hh : hh) + ":" + (mm.length < 2 ? "0" + mm : mm);
    }
  }

  /* the tables page's live rows: the time since each table's last entry, counted on between
     refreshes (from the age the server rendered), and a table quiet past the judge's limit flagged */
  var shownAt = Date.now();
  function ages() {
    var table = document.querySelector("table.live-tables");
    if (!table) return;
    var limit = Number(table.getAttribute("data-quiet-s") || "0");
    var gone = Math.floor((Date.now() - shownAt) / 1000);
    Array.prototype.forEach.call(table.querySelectorAll("td.since"), function (td) {
      var s = Number(td.getAttribute("data-age") || "0") + gone;
      var ss = String(s % 60);
      td.textContent = Math.floor(s / 60) + ":" + (ss.length < 2 ? "0" + ss : ss);
      if (limit && s > limit && td.parentNode.querySelector(".live-score")) td.parentNode.classList.add("quiet");
    });
  }
  window.setInterval(ages, 1000);

  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(window.location.href, { cache: "no-store", headers: { "X-Nakk-Live": "1" } })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("live"), old = document.getElementById("live");
        if (fresh && old) {
          old.parentNode.replaceChild(document.importNode(fresh, true), old);
          shownAt = Date.now();
          body.setAttribute("data-since", fresh.getAttribute("data-since") || "");
        }
        tick();
        pageRows();
        body.setAttribute("data-updates", String(Number(body.getAttribute("data-updates") || "0") + 1));
      })
      .catch(function () { /* the next change or reconnect fetches again */ })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  function listen() {
    if (!window.EventSource) return;
    var since = body.getAttribute("data-since") || "";
    /* The browser reconnects by itself (retry: 1 s) and sends Last-Event-ID; ?since covers a page
       that had no event yet, so a change made while it was cut off is fetched as soon as it is back. */
    var es = new EventSource("/events?since=" + encodeURIComponent(since));
    es.addEventListener("change", refresh);
    var state = document.getElementById("link-state");
    var liveWord = state ? state.textContent : "";
    es.onopen = function () {
      body.classList.remove("offline"); body.setAttribute("data-link", "open");
      if (state) state.textContent = liveWord;
    };
    es.onerror = function () {
      body.classList.add("offline"); body.setAttribute("data-link", "lost");
      if (state) state.textContent = state.getAttribute("data-offline");
    };
  }

  tick();
  pageRows();
  listen();
  window.setInterval(tick, 1000);
  var every = Number(body.getAttribute("data-page-seconds")) || 10;
  window.setInterval(function () { pageIndex += 1; pageRows(); }, every * 1000);
  window.addEventListener("resize", pageRows);
})();
