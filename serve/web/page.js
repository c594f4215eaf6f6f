// page.js — what both pages of `meeple serve` (index.js, play.js) build with: elements found by id and
// made with their text as text, never as HTML; and a value read as a list only when it is one.
"use strict";
const MEEPLE_PAGE = (function () {
  const $ = (id) => document.getElementById(id);
  const asList = (v) => (Array.isArray(v) ? v : []);

  // el("button", {text: "Play", class: "act", "data-action": a}, child, …)
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  };

  return { $, asList, el };
})();
