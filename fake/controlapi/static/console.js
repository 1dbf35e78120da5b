// Refreshes a service page's request log and the clock every two seconds
// from the control API (the console's cookie lets a page read it). The
// page reads the same without this script; it only keeps it current.
(function () {
  "use strict";
  var service = document.body.dataset.service;

  function cell(tr, text, cls) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function query(q) {
    if (!q) return "";
    var parts = [];
    Object.keys(q).sort().forEach(function (k) {
      q[k].forEach(function (v) { parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v)); });
    });
    return parts.length ? "?" + parts.join("&") : "";
  }

  function row(r) {
    var tr = document.createElement("tr");
    tr.className = "request" + (r.fault ? " fault" : "");
    cell(tr, new Date(r.time).toISOString().replace(/\.\d+Z$/, "Z"));
    cell(tr, r.method);
    cell(tr, r.path + query(r.query), "path");
    cell(tr, r.status + (r.code ? " " + r.code : "") + (r.fault ? " (fault)" : ""), "status");
    cell(tr, r.duration_ms.toFixed(1));
    var route = cell(tr, "");
    var code = document.createElement("code");
    code.textContent = r.route;
    route.appendChild(code);
    var bodies = cell(tr, "");
    var details = document.createElement("details");
    var summary = document.createElement("summary");
    summary.textContent = r.body_size + " B \u2192 " + r.response_size + " B";
    details.appendChild(summary);
    [["request", r.body, "request-body"], ["answer", r.response_body, "response-body"]].forEach(function (b) {
      var h = document.createElement("h3");
      h.textContent = b[0];
      var pre = document.createElement("pre");
      pre.className = b[2];
      pre.textContent = b[1] || "";
      details.appendChild(h);
      details.appendChild(pre);
    });
    bodies.appendChild(details);
    return tr;
  }

  function refresh() {
    fetch("/api/clock", { credentials: "same-origin" }).then(function (resp) {
      return resp.ok ? resp.json() : null;
    }).then(function (c) {
      if (!c) return;
      document.getElementById("clock-now").textContent = new Date(c.now).toISOString().replace(/\.\d+Z$/, "Z");
    }).catch(function () {});
    if (!service) return;
    var tbody = document.querySelector("#request-log tbody");
    if (!tbody || tbody.querySelector("details[open]")) return; // do not close what is being read
    fetch("/api/" + encodeURIComponent(service) + "/requests?limit=100", { credentials: "same-origin" }).then(function (resp) {
      return resp.ok ? resp.json() : null;
    }).then(function (list) {
      if (!list) return;
      var rows = list.reverse().map(row);
      tbody.replaceChildren.apply(tbody, rows);
    }).catch(function () {});
  }

  setInterval(refresh, 2000);
})();
