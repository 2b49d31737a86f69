/* sparring report: the conversation index and pages. No network, no innerHTML with data:
   every element is built with textContent. */
(function () {
  "use strict";
  var source = document.getElementById("sparring-conversations");
  var data = JSON.parse(source.textContent);
  var pageSize = parseInt(source.getAttribute("data-page-size"), 10) || 50;
  var byId = new Map();
  data.forEach(function (c) { byId.set(c.id, c); });
  var search = document.getElementById("conv-search");
  var failingOnly = document.getElementById("conv-failing");
  var tbody = document.querySelector("#conv-table tbody");
  var range = document.getElementById("conv-range");
  var pageView = document.getElementById("conversation-page");
  var filtered = data;
  var page = 0;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") { node.textContent = attrs[key]; } else { node.setAttribute(key, attrs[key]); }
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function href(id) { return "#conv=" + encodeURIComponent(id); }
  function seconds(value) { return value === null || value === undefined ? "–" : value.toFixed(3); }
  function text(value) { return typeof value === "string" ? value : JSON.stringify(value); }
  function failing(c) { return c.errors.length > 0 || c.failed.length > 0; }
  function haystack(c) {
    return [c.id, c.profile, c.simulator].concat(c.failed)
      .concat(c.errors.map(function (e) { return e[0] + " " + e[1]; })).join(" ").toLowerCase();
  }

  function applyFilter() {
    var needle = search.value.trim().toLowerCase();
    filtered = data.filter(function (c) {
      return (!failingOnly.checked || failing(c)) && (!needle || haystack(c).indexOf(needle) >= 0);
    });
    page = 0;
    renderIndex();
  }

  function renderIndex() {
    var pages = Math.max(1, Math.ceil(filtered.length / pageSize));
    page = Math.min(Math.max(page, 0), pages - 1);
    var start = page * pageSize;
    var rows = filtered.slice(start, start + pageSize).map(function (c) {
      return el("tr", {}, [
        el("td", {}, [el("a", { href: href(c.id), text: c.id })]),
        el("td", { text: c.profile }),
        el("td", { text: c.simulator }),
        el("td", { "class": "num", text: String(c.turns.length) }),
        el("td", {}, c.errors.map(function (e) {
          return el("span", { "class": "status status-fail", text: e[0] + " " + e[1] });
        })),
        el("td", {}, c.failed.map(function (r) { return el("span", { "class": "tag", text: r }); })),
        el("td", { "class": "num", text: seconds(c.duration) })
      ]);
    });
    tbody.replaceChildren.apply(tbody, rows);
    range.textContent = filtered.length === 0 ? " no conversation " :
      " " + (start + 1) + "–" + Math.min(start + pageSize, filtered.length) + " of " + filtered.length + " ";
  }

  function table(head, rows) {
    return el("table", {}, [el("tr", {}, head.map(function (h) { return el("th", { text: h }); }))]
      .concat(rows.map(function (r) {
        return el("tr", {}, r.map(function (v) { return el("td", { text: v === null || v === undefined ? "" : text(v) }); }));
      })));
  }

  function renderConversation(id) {
    var c = byId.get(id);
    var nodes = [el("p", {}, [el("a", { href: "#conversations", text: "← all conversations" })])];
    if (!c) {
      nodes.push(el("p", { "class": "error", text: "No conversation " + id + " in this run." }));
      pageView.replaceChildren.apply(pageView, nodes);
      return;
    }
    var at = filtered.indexOf(c);
    if (at > 0) { nodes[0].appendChild(el("a", { href: href(filtered[at - 1].id), text: "  ‹ previous" })); }
    if (at >= 0 && at < filtered.length - 1) { nodes[0].appendChild(el("a", { href: href(filtered[at + 1].id), text: "  next ›" })); }
    nodes.push(el("h3", { text: c.id }));
    var facts = ["profile " + c.profile, "user simulator " + c.simulator, "duration " + seconds(c.duration) + " s",
      "cost US$" + c.cost.toFixed(4)];
    if (c.language) { facts.push("language " + c.language); }
    if (c.plan) { facts.push("repeat " + c.repeat + " of " + c.plan); }
    if (c.source) { facts.push("imported from " + c.source); }
    nodes.push(el("p", {}, facts.map(function (f) { return el("span", { "class": "tag", text: f }); })));
    var hits = new Set();
    if (c.errors.length) {
      nodes.push(el("h4", { text: "Generic failures" }));
      nodes.push(el("ul", {}, c.errors.map(function (e) {
        if (e[4] !== null) { hits.add(e[4]); }
        var where = e[4] === null ? "" : " at turn " + e[4];
        return el("li", {}, [el("span", { "class": "status status-fail", text: e[0] + " " + e[1] }),
          " " + e[2] + (e[3] ? " (" + e[3] + ")" : "") + where]);
      })));
    }
    if (c.verdicts.length) {
      nodes.push(el("h4", { text: "Rule verdicts" }));
      nodes.push(el("ul", {}, c.verdicts.map(function (v) {
        if (v[1] === "fail" || v[1] === "error") { v[4].forEach(function (t) { hits.add(t); }); }
        return el("li", {}, [el("span", { "class": "status status-" + v[1], text: v[1] }), " " + v[0] +
          " (" + v[3] + ")" + (v[2] ? ": " + v[2] : "")]);
      })));
    }
    if (c.goals.length) {
      nodes.push(el("h4", { text: "Goals" }));
      nodes.push(el("ul", {}, c.goals.map(function (g) { return el("li", { text: g }); })));
    }
    if (c.notes.length) { nodes.push(el("p", { "class": "error", text: "Notes: " + c.notes.join("; ") })); }
    var broken = new Map();
    (c.breakdowns || []).forEach(function (b) { broken.set(b[0], b); });
    nodes.push(el("h4", { text: "Turns" }));
    nodes.push(el("div", { "class": "turns" }, c.turns.map(function (t, i) {
      var meta = "#" + i + " " + (t[0] === "user" ? "user" : "chatbot") +
        (t[2] === null ? "" : " · " + seconds(t[2]) + " s");
      var parts = [el("span", { "class": "meta", text: meta }), t[1]];
      if (t[3].length) {
        parts.push(el("div", { "class": "buttons" }, t[3].map(function (b) {
          return el("span", { "class": "tag", title: b[1] || "", text: "▣ " + b[0] });
        })));
      }
      var b = broken.get(i);
      if (b) {
        var label = "breakdown (" + b[4] + (b[1] === null ? "" : ", score " + b[1].toFixed(2)) + ")" +
          (b[2].length ? ": " + b[2].join(", ") : "");
        parts.push(el("div", { "class": "breakdown-note", title: b[3], text: label + " — " + b[3] }));
      }
      return el("div", { "class": "bubble " + t[0] + (hits.has(i) ? " hit" : "") +
        (b ? " broken" : "") }, parts);
    })));
    if (c.outputs.length) {
      nodes.push(el("h4", { text: "Outputs" }));
      nodes.push(table(["output", "value", "type", "strategy", "evidence", "confidence"], c.outputs));
    }
    var names = Object.keys(c.variables);
    if (names.length) {
      nodes.push(el("h4", { text: "Variables" }));
      nodes.push(table(["variable", "value"], names.map(function (n) { return [n, c.variables[n]]; })));
    }
    pageView.replaceChildren.apply(pageView, nodes);
  }

  function route() {
    var hash = location.hash;
    if (hash.indexOf("#conv=") === 0) {
      renderConversation(decodeURIComponent(hash.slice(6)));
      pageView.hidden = false;
      document.body.classList.add("conversation-mode");
      window.scrollTo(0, 0);
    } else if (document.body.classList.contains("conversation-mode")) {
      document.body.classList.remove("conversation-mode");
      pageView.hidden = true;
      var target = hash ? document.getElementById(hash.slice(1)) : null;
      if (target) { target.scrollIntoView(); }
    }
  }

  search.addEventListener("input", applyFilter);
  failingOnly.addEventListener("change", applyFilter);
  document.getElementById("conv-prev").addEventListener("click", function () { page -= 1; renderIndex(); });
  document.getElementById("conv-next").addEventListener("click", function () { page += 1; renderIndex(); });
  window.addEventListener("hashchange", route);
  renderIndex();
  route();
})();
