// The evening page stays live: poll the small JSON state once a second, and when it changes fetch the
// page again and swap its #live part (the forms outside it keep what the judge is typing).
(function () {
  var live = document.getElementById("live");
  if (!live || !live.dataset.live) return;
  var last = live.dataset.state || null;    // the state the page was drawn from
  var stale = false;
  var asked = 0;        // page fetches begun; only the latest one's answer is shown (they may end out of order)
  var drawn = Date.now();   // when the shown #live was drawn: a live score's "since the last" counts on from it
  function tick() {
    var gone = Math.floor((Date.now() - drawn) / 1000);
    live.querySelectorAll(".since[data-age]").forEach(function (el) {
      var s = parseInt(el.dataset.age, 10) + gone;
      el.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    });
  }
  function swap() {
    var mine = ++asked;
    fetch(location.href, {credentials: "same-origin"}).then(function (r) { return r.text(); }).then(function (html) {
      if (mine !== asked) return;          // an older page than one already asked for: the newer one will show
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.getElementById("live");
      if (fresh) { live.innerHTML = fresh.innerHTML; drawn = Date.now(); document.body.setAttribute("data-swapped", String(Date.now())); }
    }).catch(function () { if (mine === asked) stale = true; });   // not swapped: the next poll swaps again
  }
  function poll() {
    fetch(live.dataset.live, {credentials: "same-origin"}).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (text) {
      if ((last !== null && text !== last) || stale) { stale = false; swap(); }
      last = text;
      document.body.setAttribute("data-link", "open");
    }).catch(function () { document.body.setAttribute("data-link", "lost"); })
      .then(function () { tick(); setTimeout(poll, 1000); });
  }
  poll();
})();
