/* report_page.js - the behaviour of the HTML report (viz/report.c embeds it
   in the page's head at build time): sortable tables, the timeline's zoom
   and pan, and the self-test line that the browser test reads.
   It runs before the body is parsed, so that errors in any later part of
   the page (and fetches the page's security policy blocks) are counted. */
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push("error: " + (e.message || (e.target && e.target.tagName) || "?"));
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    errors.push("unhandled rejection: " + e.reason);
  });
  document.addEventListener("securitypolicyviolation", function (e) {
    errors.push("blocked: " + e.blockedURI + " (" + e.violatedDirective + ")");
  });
  var consoleError = console.error;
  console.error = function () {
    errors.push("console: " + Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };

  /* ---- tables: click a column title to sort, again to reverse ---- */
  function cellKey(cell, numeric) {
    if (!numeric) return cell.textContent;
    var v = cell.getAttribute("data-v");
    return v === null ? NaN : parseFloat(v);
  }

  function sortBy(table, column, numeric, th) {
    var body = table.tBodies[0];
    var down = th.getAttribute("aria-sort") !== "descending" &&
               (th.getAttribute("aria-sort") === "ascending" || numeric);
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a.cells[column], numeric), y = cellKey(b.cells[column], numeric);
      if (numeric) {
        if (isNaN(x)) return isNaN(y) ? 0 : 1; /* unknown values last, either way */
        if (isNaN(y)) return -1;
        return down ? y - x : x - y;
      }
      return down ? y.localeCompare(x) : x.localeCompare(y);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", down ? "descending" : "ascending");
  }

  function setUpTables() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
        th.title = "sort by " + th.textContent;
        th.addEventListener("click", function () {
          sortBy(table, column, th.classList.contains("num"), th);
        });
      });
    });
  }

  /* ---- the timeline: the outer SVG's viewBox is the view ---- */
  function setUpTimeline() {
    var svg = document.getElementById("timeline");
    if (!svg) return;
    var full = { x: 0, y: 0, w: +svg.getAttribute("data-width"), h: +svg.getAttribute("data-height") };
    var view = { x: full.x, y: full.y, w: full.w, h: full.h };
    var minW = full.w / 256;

    function show() {
      svg.setAttribute("viewBox", view.x + " " + view.y + " " + view.w + " " + view.h);
    }
    function toSvg(clientX, clientY) {
      var m = svg.getScreenCTM();
      if (!m) return { x: view.x + view.w / 2, y: view.y + view.h / 2 };
      var p = svg.createSVGPoint();
      p.x = clientX;
      p.y = clientY;
      return p.matrixTransform(m.inverse());
    }
    function zoom(factor, at) {
      var w = Math.min(full.w, Math.max(minW, view.w * factor));
      var f = w / view.w;
      view.x = at.x - (at.x - view.x) * f;
      view.y = at.y - (at.y - view.y) * f;
      view.w = w;
      view.h = view.h * f;
      if (w === full.w) view = { x: full.x, y: full.y, w: full.w, h: full.h };
      show();
    }
    svg.addEventListener("wheel", function (e) {
      e.preventDefault();
      zoom(e.deltaY > 0 ? 1.25 : 0.8, toSvg(e.clientX, e.clientY));
    }, { passive: false });
    var drag = null;
    svg.addEventListener("pointerdown", function (e) {
      drag = { start: toSvg(e.clientX, e.clientY), x: view.x, y: view.y };
      svg.classList.add("dragging");
      if (svg.setPointerCapture) svg.setPointerCapture(e.pointerId);
    });
    svg.addEventListener("pointermove", function (e) {
      if (!drag) return;
      var p = toSvg(e.clientX, e.clientY);
      view.x -= p.x - drag.start.x;
      view.y -= p.y - drag.start.y;
      show();
    });
    function endDrag() {
      drag = null;
      svg.classList.remove("dragging");
    }
    svg.addEventListener("pointerup", endDrag);
    svg.addEventListener("pointercancel", endDrag);
    document.querySelectorAll(".tl-tools button").forEach(function (b) {
      b.addEventListener("click", function () {
        var centre = { x: view.x + view.w / 2, y: view.y + view.h / 2 };
        var how = b.getAttribute("data-zoom");
        if (how === "reset") {
          view = { x: full.x, y: full.y, w: full.w, h: full.h };
          show();
        } else {
          zoom(how === "in" ? 0.5 : 2, centre);
        }
      });
    });
  }

  /* ---- self-test: what the browser test checks ---- */
  function selfTest() {
    var lanes = 0;
    document.querySelectorAll("#timeline .lane").forEach(function (lane) {
      var box = lane.getBBox();
      if (box.width > 0 && box.height > 0) lanes++;
    });
    var expected = document.getElementById("timeline");
    var out = document.getElementById("selftest");
    out.textContent = "lanes=" + lanes +
      " expected_lanes=" + (expected ? expected.getAttribute("data-lanes") : "none") +
      " tables=" + document.querySelectorAll("table.data").length +
      " path_points=" + document.querySelectorAll("#critical-path circle").length +
      " errors=" + errors.length + (errors.length ? " first_error=" + errors[0] : "");
  }

  document.addEventListener("DOMContentLoaded", function () {
    try {
      setUpTables();
      setUpTimeline();
    } catch (e) {
      errors.push("setup: " + e);
    }
    selfTest();
  });
  window.addEventListener("load", selfTest);
})();
