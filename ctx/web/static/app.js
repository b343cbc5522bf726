// ctx ui: the only script. Every page works without it (CSP script-src 'self', no inline
// script). It adds: a confirmation before a destructive form (data-confirm); times on hover
// in the browser's own zone; pan and zoom on the graph.
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form && form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
    }
  });

  function localTimes() {
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium", timeZoneName: "short" });
    } catch (e) {
      return;
    }
    document.querySelectorAll("time[datetime]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (!isNaN(when.getTime())) {
        el.title = fmt.format(when) + " (your local time)";
      }
    });
  }

  function graph() {
    var svg = document.getElementById("graph");
    if (!svg) return;
    var tools = document.getElementById("graph-tools");
    var wrap = document.getElementById("graph-wrap");
    if (wrap && wrap.scrollWidth > wrap.clientWidth) {  // a phone: start at the middle
      wrap.scrollLeft = (wrap.scrollWidth - wrap.clientWidth) / 2;
      wrap.scrollTop = (wrap.scrollHeight - wrap.clientHeight) / 2;
    }
    var base = svg.viewBox.baseVal;
    var home = { x: base.x, y: base.y, w: base.width, h: base.height };
    var view = { x: home.x, y: home.y, w: home.w, h: home.h };
    function apply() {
      svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
    }
    function zoom(factor, cx, cy) {
      var w = Math.min(home.w * 4, Math.max(home.w / 20, view.w * factor));
      var f = w / view.w;
      if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
      view.x = cx - (cx - view.x) * f;
      view.y = cy - (cy - view.y) * f;
      view.w = w;
      view.h = view.h * f;
      apply();
    }
    function point(event) {
      var rect = svg.getBoundingClientRect();
      return { x: view.x + (event.clientX - rect.left) / rect.width * view.w,
               y: view.y + (event.clientY - rect.top) / rect.height * view.h };
    }
    svg.addEventListener("wheel", function (event) {
      event.preventDefault();
      var p = point(event);
      zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
    }, { passive: false });
    var drag = null;
    svg.addEventListener("pointerdown", function (event) {
      if (event.target.closest && event.target.closest("a")) return; // a click opens the node
      drag = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y };
      svg.setPointerCapture(event.pointerId);
    });
    svg.addEventListener("pointermove", function (event) {
      if (!drag) return;
      var rect = svg.getBoundingClientRect();
      view.x = drag.vx - (event.clientX - drag.x) / rect.width * view.w;
      view.y = drag.vy - (event.clientY - drag.y) / rect.height * view.h;
      apply();
    });
    function end() { drag = null; }
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    if (tools) {
      tools.hidden = false;
      tools.addEventListener("click", function (event) {
        var what = event.target.getAttribute && event.target.getAttribute("data-zoom");
        if (what === "in") zoom(1 / 1.4);
        else if (what === "out") zoom(1.4);
        else if (what === "reset") { view = { x: home.x, y: home.y, w: home.w, h: home.h }; apply(); }
        else if (what === "labels") svg.classList.toggle("labels");
      });
    }
  }

  function ready() {
    localTimes();
    graph();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
