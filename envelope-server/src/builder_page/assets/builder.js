// The builder page's script (extensions E11): a sender places fields on the pictures of the
// pages of one template or one draft envelope, and saves (and, for a draft, sends) through the
// documented API with the link's token as its key. Plain ES2017, one IIFE, no dependencies and
// no build step (docs/BUILDER.md says why); the page's CSP allows only this file.
//
// What it must never do: overwrite a change made elsewhere (every save carries If-Match; a 409
// keeps the user's layout on screen until they choose to reload), put a secret in a message to
// the embedding page, or decide a rule about fields that the API decides (its answer is shown
// in its own words).
(function () {
  "use strict";

  var dataEl = document.getElementById("builder-data");
  if (!dataEl) { return; }
  var cfg = JSON.parse(dataEl.textContent);
  var W = cfg.words;
  // The token is the last segment of the page's own URL; it never travels in the page's HTML.
  var token = decodeURIComponent(location.pathname.split("/").pop());
  var isDraft = cfg.kind === "envelope";
  var base = (isDraft ? "envelopes/" : "templates/") + encodeURIComponent(cfg.id);
  var TYPES = ["signature", "initials", "date", "text", "checkbox", "number", "radio", "select",
    "attachment"];
  // A new field's size in points, by type.
  var SIZES = {
    signature: [160, 40], initials: [60, 30], date: [100, 20], text: [160, 20],
    checkbox: [14, 14], number: [80, 20], radio: [120, 20], select: [140, 20],
    attachment: [160, 20]
  };
  var MIN = 4; // smallest width or height, in points

  function $(id) { return document.getElementById(id); }
  var els = {
    name: $("b-name"), status: $("b-status"), error: $("b-error"), errorText: $("b-error-text"),
    reload: $("reload"), save: $("save"), send: $("send"), pages: $("pages"),
    palette: document.querySelector(".palette"), form: $("field-form"), none: $("field-none"),
    type: $("f-type"), role: $("f-role"), key: $("f-key"), label: $("f-label"),
    required: $("f-required"),
    optionsRow: $("f-options-row"), options: $("f-options"), x: $("f-x"), y: $("f-y"),
    width: $("f-width"), height: $("f-height"), del: $("f-delete"), locked: $("f-locked"),
    people: $("people"), addPerson: $("add-person")
  };

  var state = {
    etag: null, obj: null, layout: null, roles: [], signers: [], signersChanged: false,
    fields: [], sheets: [], selected: null, dirty: false, busy: false, sent: false, uid: 0
  };

  function fill(text, args) {
    return String(text).replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(args, k) ? String(args[k]) : m;
    });
  }
  function round(v) { return Math.round(v * 100) / 100; }
  function clamp(v, lo, hi) { return Math.min(Math.max(v, lo), Math.max(lo, hi)); }

  // ---- The API ------------------------------------------------------------------------------

  function call(method, path, body, extra) {
    var headers = { "Authorization": "Bearer " + token, "Accept": "application/json" };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    Object.keys(extra || {}).forEach(function (k) { headers[k] = extra[k]; });
    return fetch(cfg.api + path, {
      method: method, headers: headers, credentials: "omit", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (res) {
      return res.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (ignored) { json = null; }
        return { status: res.status, ok: res.ok, etag: res.headers.get("ETag"), json: json };
      });
    });
  }

  // The API's error in its own words: the flat error object, or one under `error`.
  function apiError(r) {
    var e = (r.json && (r.json.error || r.json)) || {};
    return {
      code: e.code || null,
      message: e.message || ("HTTP " + r.status),
      param: typeof e.param === "string" ? e.param : null
    };
  }

  function tell(type) {
    // What happened, to the embedding page; only the object's ID, never the token.
    if (window.parent && window.parent !== window) {
      window.parent.postMessage({ type: type, id: cfg.id }, "*");
    }
  }

  // ---- Status and errors ----------------------------------------------------------------------

  function status(text) { els.status.textContent = text || ""; }

  function showError(text, conflict) {
    els.errorText.textContent = text;
    els.reload.hidden = !conflict;
    els.error.hidden = false;
    els.error.classList.toggle("conflict", !!conflict);
  }

  function hideError() {
    els.error.hidden = true;
    els.reload.hidden = true;
    els.errorText.textContent = "";
  }

  function describe(r, prefix) {
    var e = apiError(r);
    return prefix + " " + e.message + (e.param ? " (" + e.param + ")" : "");
  }

  // ---- Loading --------------------------------------------------------------------------------

  function load(tries) {
    tries = tries || 0;
    status(W.loading);
    hideError();
    return Promise.all([call("GET", base), call("GET", base + "/pages")]).then(function (rs) {
      var o = rs[0];
      var l = rs[1];
      // The two reads name their versions; a change between them is read again, so that the
      // tag a save sends is the one of what the page shows.
      if (o.ok && l.ok && o.etag && l.etag && o.etag !== l.etag && tries < 3) {
        return load(tries + 1);
      }
      if (!o.ok || !l.ok) {
        var bad = o.ok ? l : o;
        if (bad.status === 401) { showError(W.link_expired, false); } else {
          showError(describe(bad, W.load_failed), false);
        }
        status("");
        return;
      }
      // The layout holds the fields the page edits: its tag is the one a save names.
      state.etag = l.etag || o.etag;
      state.obj = o.json;
      state.layout = l.json;
      fromObject();
      renderAll();
      status("");
    }, function () {
      status("");
      showError(W.offline, false);
    });
  }

  function fromObject() {
    var obj = state.obj;
    var layout = state.layout;
    var locked = {};
    (layout.document_fields || []).forEach(function (k) { locked[k] = true; });
    var list = layout.fields || obj.fields || [];
    state.fields = list.map(function (f) {
      return {
        uid: ++state.uid, type: f.type, role: f.role || null, key: f.key || "",
        filledBy: f.filled_by || null, origRole: f.role || null,
        required: f.required !== false, page: f.page || 1, document: f.document || 1,
        x: f.x, y: f.y, width: f.width, height: f.height,
        options: Array.isArray(f.options) ? f.options.slice() : null,
        label: typeof f.label === "string" ? f.label : "",
        // Kept as they are: the page does not edit conditions or formulas (extensions E14),
        // the API does.
        condition: f.condition || null,
        formula: typeof f.formula === "string" ? f.formula : null,
        locked: !!(f.key && locked[f.key]), el: null
      };
    });
    if (isDraft) {
      state.signers = (obj.signers || []).map(function (s) {
        // What the page does not edit stays: the order, the kind, the in-person host (E13).
        return { name: s.name || "", email: s.email || "", role: s.role, locale: s.locale || null,
                 order: s.order || null, kind: s.kind || "signer", inPerson: s.in_person || null };
      });
      state.roles = state.signers.map(function (s) { return s.role; });
    } else {
      state.roles = (obj.roles || []).slice();
    }
    state.signersChanged = false;
    state.selected = null;
    state.dirty = false;
    var title = fill(W.title, { name: obj.name || cfg.id });
    els.name.textContent = obj.name || cfg.id;
    var dot = document.title.indexOf(" · ");
    document.title = title + (dot >= 0 ? document.title.slice(dot) : "");
  }

  // ---- The pages ------------------------------------------------------------------------------

  var observer = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (!e.isIntersecting) { return; }
      var sh = sheetByEl(e.target);
      if (sh && !sh.requested) { observer.unobserve(e.target); picture(sh, 0); }
    });
  }, { rootMargin: "800px 0px" }) : null;

  function sheetByEl(el) {
    for (var i = 0; i < state.sheets.length; i++) {
      if (state.sheets[i].el === el) { return state.sheets[i]; }
    }
    return null;
  }

  function sheetOf(f) {
    for (var i = 0; i < state.sheets.length; i++) {
      var s = state.sheets[i];
      if (s.doc === f.document && s.page === f.page) { return s; }
    }
    return null;
  }

  function renderAll() {
    state.sheets.forEach(function (s) { if (s.url) { URL.revokeObjectURL(s.url); } });
    if (observer) { observer.disconnect(); }
    state.sheets = [];
    els.pages.textContent = "";
    var docs = state.layout.documents || [];
    docs.forEach(function (doc) {
      var index = doc.index || 1;
      if (docs.length > 1) {
        var h = document.createElement("h2");
        h.className = "doc-title";
        h.textContent = fill(W.document, { number: index, name: doc.name || "" });
        els.pages.appendChild(h);
      }
      (doc.pages || []).forEach(function (size, i) {
        var el = document.createElement("div");
        el.className = "sheet";
        el.setAttribute("role", "group");
        el.setAttribute("aria-label", fill(W.page, {
          page: i + 1, count: doc.pages.length, document: doc.name || state.obj.name || ""
        }));
        el.setAttribute("data-document", index);
        el.setAttribute("data-page", i + 1);
        // Every page's box has its size at once, from the layout: the pictures come later.
        el.style.aspectRatio = size.width + " / " + size.height;
        el.style.maxWidth = Math.round(size.width * 4 / 3) + "px";
        var img = document.createElement("img");
        img.className = "page-img";
        img.alt = "";
        img.width = Math.round(size.width);
        img.height = Math.round(size.height);
        img.hidden = true;
        el.appendChild(img);
        els.pages.appendChild(el);
        var sh = { el: el, img: img, doc: index, page: i + 1, w: size.width, h: size.height,
                   requested: false, url: null };
        state.sheets.push(sh);
        if (observer) { observer.observe(el); } else { picture(sh, 0); }
      });
    });
    state.fields.forEach(drawField);
    renderPeople();
    showPanel();
  }

  // A page's picture: fetched with the token (an <img> cannot send it), shown from a blob.
  function picture(sh, attempt) {
    sh.requested = true;
    var path = base + "/pages/" + sh.page + (isDraft ? "?document=" + sh.doc : "");
    fetch(cfg.api + path, {
      headers: { "Authorization": "Bearer " + token }, credentials: "omit", cache: "no-store"
    }).then(function (res) {
      if (res.status === 503 && attempt < 20) {
        var secs = parseInt(res.headers.get("Retry-After"), 10);
        setTimeout(function () { picture(sh, attempt + 1); },
          clamp(isNaN(secs) ? 2 : secs, 1, 30) * 1000);
        return null;
      }
      if (!res.ok) { throw new Error("HTTP " + res.status); }
      return res.blob().then(function (blob) {
        if (sheetByEl(sh.el) !== sh) { return; } // reloaded meanwhile
        sh.url = URL.createObjectURL(blob);
        sh.img.src = sh.url;
        sh.img.hidden = false;
        sh.el.classList.add("loaded");
      });
    }).catch(function () {
      if (sh.el.querySelector(".page-note")) { return; }
      var note = document.createElement("p");
      note.className = "page-note";
      note.textContent = W.page_unavailable;
      sh.el.appendChild(note);
      sh.el.classList.add("failed");
    });
  }

  // ---- Fields on the pages --------------------------------------------------------------------

  function who(f) {
    if (!f.role) { return W.sender; }
    if (isDraft) {
      for (var i = 0; i < state.signers.length; i++) {
        var s = state.signers[i];
        if (s.role === f.role && s.name.trim()) { return s.name.trim(); }
      }
    }
    return f.role;
  }

  // What a field shows: its label when it has one, else its type; then whose it is.
  function fieldText(f) {
    return (f.label.trim() || W["type_" + f.type] || f.type) + " · " + who(f);
  }

  function roleClass(f) {
    var i = f.role ? state.roles.indexOf(f.role) : -1;
    return i < 0 ? "r-none" : "r" + (i % 6);
  }

  function drawField(f) {
    var sh = sheetOf(f);
    if (!sh) { return; } // on a page the layout does not show: kept, sent back as it is
    var b = f.el;
    if (!b) {
      b = document.createElement("button");
      b.type = "button";
      b.setAttribute("data-uid", f.uid);
      f.el = b;
    }
    var selected = state.selected === f;
    b.className = "fld fld-" + f.type + " " + roleClass(f) + (f.locked ? " locked" : "") +
      (selected ? " sel" : "");
    b.setAttribute("aria-pressed", selected ? "true" : "false");
    b.setAttribute("data-key", f.key);
    b.textContent = "";
    // The accessible name is the text: what is visible, then (hidden) that it is locked.
    var label = document.createElement("span");
    label.className = "fld-label";
    label.textContent = fieldText(f);
    b.appendChild(label);
    if (f.locked) {
      var note = document.createElement("span");
      note.className = "vh";
      note.textContent = ", " + W.locked;
      b.appendChild(note);
    }
    if (selected && !f.locked) {
      ["nw", "ne", "sw", "se"].forEach(function (c) {
        var h = document.createElement("span");
        h.className = "handle h-" + c;
        h.setAttribute("data-corner", c);
        h.setAttribute("aria-hidden", "true");
        b.appendChild(h);
      });
    }
    if (b.parentNode !== sh.el) { sh.el.appendChild(b); }
    place(f);
  }

  function place(f) {
    var sh = sheetOf(f);
    if (!sh || !f.el) { return; }
    var s = f.el.style;
    s.left = (f.x / sh.w * 100) + "%";
    s.top = (f.y / sh.h * 100) + "%";
    s.width = (f.width / sh.w * 100) + "%";
    s.height = (f.height / sh.h * 100) + "%";
  }

  function fieldByEl(el) {
    var b = el && el.closest ? el.closest("button.fld") : null;
    if (!b) { return null; }
    var uid = Number(b.getAttribute("data-uid"));
    for (var i = 0; i < state.fields.length; i++) {
      if (state.fields[i].uid === uid) { return state.fields[i]; }
    }
    return null;
  }

  function select(f) {
    var old = state.selected;
    if (old === f) { return; }
    state.selected = f;
    if (old) { drawField(old); }
    if (f) { drawField(f); }
    showPanel();
  }

  function markDirty() {
    if (!state.dirty) { status(W.unsaved); }
    state.dirty = true;
  }

  // Moves or resizes `f` to a box, clamped inside its page.
  function setBox(f, x, y, w, h) {
    var sh = sheetOf(f);
    var pw = sh ? sh.w : Infinity;
    var ph = sh ? sh.h : Infinity;
    w = clamp(w, MIN, pw);
    h = clamp(h, MIN, ph);
    f.width = round(w);
    f.height = round(h);
    f.x = round(clamp(x, 0, pw - f.width));
    f.y = round(clamp(y, 0, ph - f.height));
    place(f);
  }

  function uniqueKey(role, type) {
    var stem = ((role || "sender") + "_" + type).replace(/[^A-Za-z0-9_]/g, "_");
    var taken = {};
    state.fields.forEach(function (f) { taken[f.key] = true; });
    if (!taken[stem]) { return stem; }
    for (var n = 2; ; n++) {
      if (!taken[stem + "_" + n]) { return stem + "_" + n; }
    }
  }

  function currentRole() {
    if (state.selected && state.selected.role) { return state.selected.role; }
    if (state.roles.length) { return state.roles[0]; }
    return addPerson(false);
  }

  // Adds a field of `type` centred at (cx, cy), in points, on sheet `sh`.
  function addField(type, sh, cx, cy) {
    var size = SIZES[type] || [120, 20];
    var role = currentRole();
    var f = {
      uid: ++state.uid, type: type, role: role, key: uniqueKey(role, type), autoKey: true,
      required: type !== "checkbox", page: sh.page, document: sh.doc, x: 0, y: 0,
      width: size[0], height: size[1], options: null, label: "", locked: false, el: null
    };
    state.fields.push(f);
    setBox(f, cx - size[0] / 2, cy - size[1] / 2, size[0], size[1]);
    drawField(f);
    select(f);
    f.el.focus({ preventScroll: true });
    markDirty();
    status(fill(W.added, { field: fieldText(f) }));
    return f;
  }

  function removeField(f) {
    if (f.locked) { return; }
    var i = state.fields.indexOf(f);
    if (i < 0) { return; }
    state.fields.splice(i, 1);
    if (f.el && f.el.parentNode) { f.el.parentNode.removeChild(f.el); }
    state.selected = null;
    showPanel();
    markDirty();
    status(W.deleted);
    // Focus moves on to the next field, else the pages.
    var next = state.fields[i] || state.fields[i - 1];
    if (next && next.el && next.el.parentNode) { next.el.focus(); } else { els.pages.focus(); }
  }

  // The page most in view: the one under the viewport's middle, else the first one shown.
  function pageInView() {
    var mid = window.innerHeight / 2;
    var best = null;
    var bestSeen = -1;
    state.sheets.forEach(function (s) {
      var r = s.el.getBoundingClientRect();
      if (r.top <= mid && r.bottom >= mid) { best = s; bestSeen = Infinity; return; }
      var seen = Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0);
      if (seen > bestSeen) { best = s; bestSeen = seen; }
    });
    return best;
  }

  function sheetAt(clientX, clientY) {
    for (var i = 0; i < state.sheets.length; i++) {
      var r = state.sheets[i].el.getBoundingClientRect();
      if (clientX >= r.left && clientX <= r.right && clientY >= r.top && clientY <= r.bottom) {
        return state.sheets[i];
      }
    }
    return null;
  }

  function scaleOf(sh) { return sh.el.getBoundingClientRect().width / sh.w; }

  // ---- Pointer: the palette -------------------------------------------------------------------

  var pdrag = null;
  var swallowClick = false;

  els.palette.addEventListener("pointerdown", function (e) {
    var btn = e.target.closest("button.type");
    swallowClick = false;
    if (!btn || e.button !== 0 || state.sent) { return; }
    pdrag = { type: btn.getAttribute("data-type"), id: e.pointerId, x: e.clientX, y: e.clientY,
              ghost: null, btn: btn };
    try { btn.setPointerCapture(e.pointerId); } catch (ignored) { /* synthetic event */ }
  });

  els.palette.addEventListener("pointermove", function (e) {
    if (!pdrag || e.pointerId !== pdrag.id) { return; }
    if (!pdrag.ghost) {
      if (Math.abs(e.clientX - pdrag.x) + Math.abs(e.clientY - pdrag.y) < 5) { return; }
      var g = document.createElement("div");
      g.className = "ghost fld-" + pdrag.type;
      g.setAttribute("aria-hidden", "true");
      g.textContent = W["type_" + pdrag.type];
      document.body.appendChild(g);
      pdrag.ghost = g;
    }
    e.preventDefault();
    pdrag.ghost.style.left = e.clientX + "px";
    pdrag.ghost.style.top = e.clientY + "px";
  });

  function endPaletteDrag(e, drop) {
    if (!pdrag || e.pointerId !== pdrag.id) { return; }
    var d = pdrag;
    pdrag = null;
    if (!d.ghost) { return; } // a click: handled as one
    d.ghost.parentNode.removeChild(d.ghost);
    swallowClick = true;
    if (!drop) { return; }
    var sh = sheetAt(e.clientX, e.clientY);
    if (!sh) { return; }
    var r = sh.el.getBoundingClientRect();
    var s = scaleOf(sh);
    addField(d.type, sh, (e.clientX - r.left) / s, (e.clientY - r.top) / s);
  }
  els.palette.addEventListener("pointerup", function (e) { endPaletteDrag(e, true); });
  els.palette.addEventListener("pointercancel", function (e) { endPaletteDrag(e, false); });

  // A click or Enter on a palette button: the field goes to the centre of the page in view.
  els.palette.addEventListener("click", function (e) {
    var btn = e.target.closest("button.type");
    if (!btn) { return; }
    if (swallowClick) { swallowClick = false; return; }
    if (state.sent) { return; }
    var sh = pageInView();
    if (sh) { addField(btn.getAttribute("data-type"), sh, sh.w / 2, sh.h / 2); }
  });

  // ---- Pointer: fields on the pages -----------------------------------------------------------

  var drag = null;

  els.pages.addEventListener("pointerdown", function (e) {
    var f = fieldByEl(e.target);
    if (!f || e.button !== 0) { return; }
    select(f);
    f.el.focus({ preventScroll: true });
    if (f.locked || state.sent) { return; }
    e.preventDefault();
    var handle = e.target.closest(".handle");
    var sh = sheetOf(f);
    drag = {
      f: f, id: e.pointerId, mode: handle ? handle.getAttribute("data-corner") : "move",
      x: e.clientX, y: e.clientY, scale: scaleOf(sh),
      box: { x: f.x, y: f.y, w: f.width, h: f.height }, moved: false
    };
    try { f.el.setPointerCapture(e.pointerId); } catch (ignored) { /* synthetic event */ }
  });

  els.pages.addEventListener("pointermove", function (e) {
    if (!drag || e.pointerId !== drag.id) { return; }
    e.preventDefault();
    var dx = (e.clientX - drag.x) / drag.scale;
    var dy = (e.clientY - drag.y) / drag.scale;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) === 0) { return; }
    drag.moved = true;
    var b = drag.box;
    var f = drag.f;
    if (drag.mode === "move") {
      setBox(f, b.x + dx, b.y + dy, b.w, b.h);
      return;
    }
    // Resizing: the corner follows the pointer, the opposite corner stays.
    var left = b.x, top = b.y, right = b.x + b.w, bottom = b.y + b.h;
    var sh = sheetOf(f);
    if (drag.mode.indexOf("w") >= 0) { left = clamp(b.x + dx, 0, right - MIN); }
    if (drag.mode.indexOf("e") >= 0) { right = clamp(right + dx, left + MIN, sh.w); }
    if (drag.mode.indexOf("n") >= 0) { top = clamp(b.y + dy, 0, bottom - MIN); }
    if (drag.mode.indexOf("s") >= 0) { bottom = clamp(bottom + dy, top + MIN, sh.h); }
    setBox(f, left, top, right - left, bottom - top);
  });

  function endDrag(e) {
    if (!drag || e.pointerId !== drag.id) { return; }
    var d = drag;
    drag = null;
    if (d.moved) {
      markDirty();
      showPanel();
    }
  }
  els.pages.addEventListener("pointerup", endDrag);
  els.pages.addEventListener("pointercancel", endDrag);

  // ---- Keyboard -------------------------------------------------------------------------------

  els.pages.addEventListener("focusin", function (e) {
    var f = fieldByEl(e.target);
    if (f) { select(f); }
  });

  var ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  els.pages.addEventListener("keydown", function (e) {
    var f = fieldByEl(e.target);
    if (!f || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var dir = ARROWS[e.key];
    if (dir) {
      e.preventDefault();
      if (f.locked || state.sent) { return; }
      var step = e.shiftKey ? 10 : 1;
      setBox(f, f.x + dir[0] * step, f.y + dir[1] * step, f.width, f.height);
      markDirty();
      showPanel();
    } else if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      if (!state.sent) { removeField(f); }
    }
  });

  // ---- The side panel -------------------------------------------------------------------------

  function roleOptions() {
    var opts = [];
    if (isDraft) {
      state.signers.forEach(function (s) {
        opts.push([s.role, s.name.trim() ? s.name.trim() + " (" + s.role + ")" : s.role]);
      });
    } else {
      state.roles.forEach(function (r) { opts.push([r, r]); });
    }
    var f = state.selected;
    if (f && f.role && !opts.some(function (o) { return o[0] === f.role; })) {
      opts.push([f.role, f.role]);
    }
    if (!isDraft || (f && !f.role)) { opts.push(["", W.sender]); }
    return opts;
  }

  function showPanel() {
    var f = state.selected;
    els.form.hidden = !f;
    els.none.hidden = !!f;
    if (!f) { return; }
    els.role.textContent = "";
    roleOptions().forEach(function (o) {
      var opt = document.createElement("option");
      opt.value = o[0];
      opt.textContent = o[1];
      els.role.appendChild(opt);
    });
    els.type.value = f.type;
    els.role.value = f.role || "";
    els.key.value = f.key;
    els.label.value = f.label;
    els.required.checked = f.required;
    var choices = f.type === "radio" || f.type === "select";
    els.optionsRow.hidden = !choices;
    els.options.value = (f.options || []).join("\n");
    els.x.value = f.x;
    els.y.value = f.y;
    els.width.value = f.width;
    els.height.value = f.height;
    var off = f.locked || state.sent;
    [els.type, els.role, els.key, els.label, els.required, els.options, els.x, els.y, els.width,
     els.height, els.del].forEach(function (c) { c.disabled = off; });
    els.locked.hidden = !f.locked;
  }

  // A key the page made follows the field's role and type until the user types their own.
  function rekey(f) {
    if (!f.autoKey) { return; }
    f.key = "";
    f.key = uniqueKey(f.role, f.type);
    els.key.value = f.key;
    els.label.value = f.label;
  }

  function edited(fn) {
    return function () {
      var f = state.selected;
      if (!f || f.locked || state.sent) { return; }
      fn(f);
      drawField(f);
      markDirty();
    };
  }

  els.type.addEventListener("change", edited(function (f) {
    f.type = els.type.value;
    var choices = f.type === "radio" || f.type === "select";
    els.optionsRow.hidden = !choices;
    if (!choices) { f.options = null; } else if (!f.options) { f.options = []; }
    rekey(f);
  }));
  els.role.addEventListener("change", edited(function (f) {
    f.role = els.role.value || null;
    rekey(f);
  }));
  els.key.addEventListener("input", edited(function (f) {
    f.key = els.key.value.trim();
    f.autoKey = false;
  }));
  els.label.addEventListener("input", edited(function (f) { f.label = els.label.value; }));
  els.required.addEventListener("change", edited(function (f) { f.required = els.required.checked; }));
  els.options.addEventListener("input", edited(function (f) {
    f.options = els.options.value.split("\n").map(function (s) { return s.trim(); })
      .filter(function (s) { return s.length > 0; });
  }));
  [els.x, els.y, els.width, els.height].forEach(function (input) {
    input.addEventListener("change", edited(function (f) {
      var n = function (el, old) { var v = parseFloat(el.value); return isNaN(v) ? old : v; };
      setBox(f, n(els.x, f.x), n(els.y, f.y), n(els.width, f.width), n(els.height, f.height));
      els.x.value = f.x; els.y.value = f.y; els.width.value = f.width; els.height.value = f.height;
    }));
  });
  els.del.addEventListener("click", function () {
    if (state.selected && !state.sent) { removeField(state.selected); }
  });

  // ---- Roles (templates) and signers (drafts) --------------------------------------------------

  function freeName(template) {
    var taken = {};
    state.roles.forEach(function (r) { taken[r] = true; });
    for (var n = state.roles.length + 1; ; n++) {
      var name = fill(template, { number: n });
      if (!taken[name]) { return name; }
    }
  }

  function addPerson(focus) {
    var role;
    if (isDraft) {
      role = freeName(W.signer_numbered);
      state.signers.push({ name: "", email: "", role: role, locale: null });
      state.signersChanged = true;
    } else {
      role = freeName(W.role_numbered);
    }
    state.roles.push(role);
    markDirty();
    renderPeople();
    if (focus) {
      var inputs = els.people.querySelectorAll("input");
      if (inputs.length) { inputs[isDraft ? inputs.length - 2 : inputs.length - 1].focus(); }
    }
    return role;
  }

  function relabel() {
    state.fields.forEach(function (f) { if (f.el) { drawField(f); } });
    showPanel();
  }

  function input(id, label, value, type) {
    var wrap = document.createElement("div");
    wrap.className = "person-input";
    var l = document.createElement("label");
    l.htmlFor = id;
    l.textContent = label;
    var i = document.createElement("input");
    i.type = type;
    i.id = id;
    i.value = value;
    i.autocomplete = "off";
    wrap.appendChild(l);
    wrap.appendChild(i);
    return { wrap: wrap, input: i };
  }

  function renderPeople() {
    els.people.textContent = "";
    if (isDraft) {
      state.signers.forEach(function (s, i) {
        var li = document.createElement("li");
        var fs = document.createElement("fieldset");
        var lg = document.createElement("legend");
        lg.textContent = fill(W.signer_numbered, { number: i + 1 }) + " · " + s.role;
        fs.appendChild(lg);
        var name = input("signer-" + i + "-name", W.signer_name, s.name, "text");
        var email = input("signer-" + i + "-email", W.signer_email, s.email, "email");
        name.input.addEventListener("change", function () {
          s.name = name.input.value;
          state.signersChanged = true;
          markDirty();
          relabel();
        });
        email.input.addEventListener("change", function () {
          s.email = email.input.value.trim();
          state.signersChanged = true;
          markDirty();
        });
        fs.appendChild(name.wrap);
        fs.appendChild(email.wrap);
        li.appendChild(fs);
        els.people.appendChild(li);
      });
    } else {
      state.roles.forEach(function (r, i) {
        var li = document.createElement("li");
        var c = input("role-" + i, fill(W.role_numbered, { number: i + 1 }), r, "text");
        // The document's own fields name their roles in the document: those stay as they are.
        if (state.fields.some(function (f) { return f.locked && f.role === r; })) {
          c.input.readOnly = true;
          c.input.setAttribute("aria-describedby", "f-locked-role");
        }
        // A rename is made when the name is committed (change), so that fields follow it
        // without two roles ever sharing a half-typed name.
        c.input.addEventListener("change", function () {
          var old = state.roles[i];
          var name = c.input.value.trim();
          if (!name || name === old || state.roles.indexOf(name) >= 0) {
            c.input.value = old;
            return;
          }
          state.roles[i] = name;
          state.fields.forEach(function (f) { if (f.role === old && !f.locked) { f.role = name; } });
          markDirty();
          relabel();
        });
        li.appendChild(c.wrap);
        els.people.appendChild(li);
      });
    }
  }

  els.addPerson.addEventListener("click", function () {
    if (!state.sent) { addPerson(true); }
  });

  // ---- Save and send --------------------------------------------------------------------------

  function wireField(f) {
    var o = { type: f.type, key: f.key || undefined, required: f.required, page: f.page,
              x: f.x, y: f.y, width: f.width, height: f.height };
    if (f.role) { o.role = f.role; } else { o.filled_by = "sender"; }
    // Who fills a field defaults to its role; one read with another is kept while the role is.
    if (f.role && f.filledBy && f.filledBy !== f.role && f.role === f.origRole) {
      o.filled_by = f.filledBy;
    }
    if (isDraft) { o.document = f.document; }
    if (f.type === "radio" || f.type === "select") { o.options = f.options || []; }
    if (f.label.trim()) { o.label = f.label.trim(); }
    if (f.condition) { o.condition = f.condition; }
    if (f.formula && f.type === "number") { o.formula = f.formula; }
    return o;
  }

  function payload() {
    // A template's fields are replaced whole, document fields included (sent back unchanged);
    // a draft's document fields stay by themselves, so only the others are sent.
    var sent = isDraft ? state.fields.filter(function (f) { return !f.locked; }) : state.fields;
    var body = { fields: sent.map(wireField) };
    if (isDraft) {
      if (state.signersChanged) {
        body.signers = state.signers.map(function (s) {
          var o = { name: s.name.trim(), email: s.email.trim(), role: s.role };
          if (s.locale) { o.locale = s.locale; }
          if (s.order) { o.order = s.order; }
          if (s.kind && s.kind !== "signer") { o.kind = s.kind; }
          if (s.inPerson) { o.in_person = s.inPerson; }
          return o;
        });
      }
    } else {
      body.roles = state.roles.slice();
    }
    return { body: body, sent: sent };
  }

  function busy(on) {
    state.busy = on;
    els.save.disabled = on || state.sent;
    if (els.send) { els.send.disabled = on || state.sent; }
  }

  // The control an error's `param` names: a field (`fields.3.role`) is selected; a signer's
  // name or email (`signers.1.email`) or a role (`roles.2`) gets the focus.
  function focusParam(param, sent) {
    if (!param) { return; }
    var m = /^fields\.(\d+)/.exec(param);
    var f = m && sent[Number(m[1])];
    if (f) {
      select(f);
      if (f.el) { f.el.focus(); }
      return;
    }
    m = /^signers\.(\d+)(?:\.(name|email))?/.exec(param);
    var el = m ? $("signer-" + m[1] + "-" + (m[2] || "name")) : null;
    if (!el) {
      m = /^roles\.(\d+)/.exec(param);
      el = m ? $("role-" + m[1]) : null;
    }
    if (el) { el.focus(); }
  }

  // Resolves to true when saved.
  function save() {
    if (state.busy || state.sent) { return Promise.resolve(false); }
    // A value being typed is committed first (its change event).
    if (document.activeElement && document.activeElement.blur &&
        els.people.contains(document.activeElement)) {
      document.activeElement.blur();
    }
    var p = payload();
    hideError();
    busy(true);
    status(W.saving);
    var headers = state.etag ? { "If-Match": state.etag } : {};
    return call("PATCH", base, p.body, headers).then(function (r) {
      busy(false);
      if (r.ok) {
        state.etag = r.etag || state.etag;
        state.obj = r.json || state.obj;
        state.dirty = false;
        state.signersChanged = false;
        status(W.saved);
        tell("envelope.builder.saved");
        return true;
      }
      status("");
      var e = apiError(r);
      if (r.status === 409 && e.code === "edit_conflict") {
        // Nothing is discarded: the layout stays until the user chooses to reload.
        showError(W.conflict, true);
        els.reload.focus();
      } else if (r.status === 401) {
        showError(W.link_expired, false);
      } else {
        showError(describe(r, W.not_saved), false);
        focusParam(e.param, p.sent);
      }
      return false;
    }, function () {
      busy(false);
      status("");
      showError(W.offline, false);
      return false;
    });
  }

  function send() {
    if (state.busy || state.sent) { return; }
    var saved = state.dirty ? save() : Promise.resolve(true);
    saved.then(function (ok) {
      if (!ok) { return; }
      busy(true);
      status(W.sending);
      call("POST", base + "/send").then(function (r) {
        busy(false);
        if (r.ok) {
          state.sent = true;
          busy(false);
          document.body.classList.add("sent");
          status(W.sent);
          showPanel();
          // A sent envelope is no longer the builder's: nothing on the page changes it now.
          Array.prototype.forEach.call(
            document.querySelectorAll(".palette button, .panel input, .panel button"),
            function (c) { c.disabled = true; });
          tell("envelope.builder.sent");
          // Not framed: the page goes back to the app it came from, when the link names it.
          var back = document.getElementById("return");
          if (back && window.parent === window) {
            setTimeout(function () { window.location.assign(back.href); }, 1500);
          }
          return;
        }
        status("");
        showError(r.status === 401 ? W.link_expired : describe(r, W.not_sent), false);
      }, function () {
        busy(false);
        status("");
        showError(W.offline, false);
      });
    });
  }

  // The sticky side columns start below the header, whatever its height (an error, a phone).
  var head = document.querySelector(".b-head");
  function headHeight() {
    document.documentElement.style.setProperty("--head", head.getBoundingClientRect().height + "px");
  }
  if ("ResizeObserver" in window) { new ResizeObserver(headHeight).observe(head); }
  headHeight();

  els.save.addEventListener("click", function () { save(); });
  if (els.send) { els.send.addEventListener("click", send); }
  els.reload.addEventListener("click", function () { load(0); });

  load(0);
})();
