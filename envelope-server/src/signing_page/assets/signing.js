// The signing page's script: signature pads, the checks of drawings before a post, the message
// to an embedding window, and the fields placed over the pictures of the pages. Plain ES5-level JavaScript, no dependencies, no inline code
// (the page's Content-Security-Policy allows only this file).
(function () {
  "use strict";

  var main = document.getElementById("main");
  var form = document.getElementById("sign-form");

  // The page's words for what the script says, in the page's language: data- attributes of
  // the form (the Content-Security-Policy allows no inline script); English if one is missing.
  function say(name, english) {
    return (form && form.getAttribute("data-msg-" + name)) || english;
  }

  // 1. Tell the embedding window what just happened (see docs/SIGNING.md).
  if (main && main.getAttribute("data-event") && window.parent && window.parent !== window) {
    window.parent.postMessage({
      type: main.getAttribute("data-event"),
      envelope: main.getAttribute("data-envelope"),
      signer: main.getAttribute("data-signer")
    }, "*");
  }

  // 2. Signature pads.
  function Pad(block) {
    var self = this;
    this.block = block;
    this.canvas = block.querySelector("canvas.pad");
    this.drawnInput = block.querySelector("input.drawn");
    this.typedInput = block.querySelector("input.typed");
    this.error = block.querySelector(".field-error");
    this.required = block.getAttribute("data-required") === "true";
    this.ctx = this.canvas.getContext("2d");
    this.empty = true;
    this.last = null;
    this.pointer = null;

    var radios = block.querySelectorAll('input[type="radio"]');
    for (var i = 0; i < radios.length; i++) {
      radios[i].addEventListener("change", function () { self.setMode(this.value); });
    }
    block.querySelector("button.clear").addEventListener("click", function () { self.clear(); });

    var c = this.canvas;
    c.addEventListener("pointerdown", function (e) { self.down(e); });
    c.addEventListener("pointermove", function (e) { self.move(e); });
    c.addEventListener("pointerup", function (e) { self.up(e); });
    c.addEventListener("pointercancel", function (e) { self.up(e); });
  }

  Pad.prototype.mode = function () {
    var checked = this.block.querySelector('input[type="radio"]:checked');
    return checked ? checked.value : "type";
  };

  Pad.prototype.setMode = function (mode) {
    var panes = this.block.querySelectorAll("[data-pane]");
    for (var i = 0; i < panes.length; i++) {
      panes[i].hidden = panes[i].getAttribute("data-pane") !== mode;
    }
    // A typed name is required only while typing; a drawing is checked on submit.
    this.typedInput.required = this.required && mode === "type";
    this.typedInput.disabled = mode !== "type";
    this.drawnInput.disabled = mode !== "draw";
    this.hideError();
  };

  Pad.prototype.point = function (e) {
    var r = this.canvas.getBoundingClientRect();
    return {
      x: (e.clientX - r.left) * (this.canvas.width / r.width),
      y: (e.clientY - r.top) * (this.canvas.height / r.height)
    };
  };

  Pad.prototype.down = function (e) {
    e.preventDefault();
    this.pointer = e.pointerId;
    if (this.canvas.setPointerCapture) {
      try { this.canvas.setPointerCapture(e.pointerId); } catch (ignored) { /* synthetic */ }
    }
    this.last = this.point(e);
    this.dot(this.last);
  };

  Pad.prototype.move = function (e) {
    if (this.pointer !== e.pointerId || !this.last) { return; }
    e.preventDefault();
    var p = this.point(e);
    var ctx = this.ctx;
    ctx.strokeStyle = "#10243e";
    ctx.lineWidth = 3;
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    ctx.beginPath();
    ctx.moveTo(this.last.x, this.last.y);
    ctx.lineTo(p.x, p.y);
    ctx.stroke();
    this.last = p;
    this.mark();
  };

  Pad.prototype.dot = function (p) {
    this.ctx.fillStyle = "#10243e";
    this.ctx.beginPath();
    this.ctx.arc(p.x, p.y, 1.5, 0, 2 * Math.PI);
    this.ctx.fill();
    this.mark();
  };

  Pad.prototype.up = function (e) {
    if (this.pointer !== e.pointerId) { return; }
    this.pointer = null;
    this.last = null;
    this.save();
  };

  Pad.prototype.mark = function () {
    this.empty = false;
    this.hideError();
  };

  Pad.prototype.save = function () {
    this.drawnInput.value = this.empty ? "" : this.canvas.toDataURL("image/png");
  };

  Pad.prototype.clear = function () {
    this.ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.empty = true;
    this.save();
  };

  Pad.prototype.showError = function (text) {
    this.error.textContent = text;
    this.error.hidden = false;
  };

  Pad.prototype.hideError = function () {
    this.error.hidden = true;
    this.error.textContent = "";
  };

  // Returns false (and says why) when a required drawing is missing.
  Pad.prototype.check = function () {
    if (this.mode() !== "draw" || this.block.closest(".cond[hidden]")) { return true; }
    this.save();
    if (this.required && this.empty) {
      this.showError(say("draw-required", "Please draw your signature, or choose Type."));
      return false;
    }
    return true;
  };

  var pads = [];
  var blocks = document.querySelectorAll("[data-signature]");
  for (var i = 0; i < blocks.length; i++) {
    var pad = new Pad(blocks[i]);
    pad.setMode(pad.mode());
    pads.push(pad);
  }

  // 3. Checks before posting; the server (the core) checks everything again.
  if (form) {
    form.addEventListener("submit", function (e) {
      var firstBad = null;
      for (var j = 0; j < pads.length; j++) {
        if (!pads[j].check() && !firstBad) { firstBad = pads[j]; }
      }
      if (firstBad) {
        e.preventDefault();
        firstBad.block.querySelector('input[type="radio"]:checked').focus();
        firstBad.block.scrollIntoView({ block: "center" });
        return;
      }
      var button = document.getElementById("sign-button");
      // Disabled after this turn of the event loop, so that the post still goes out once.
      setTimeout(function () { button.disabled = true; button.textContent = say("signing", "Signing…"); }, 0);
    });
  }

  // 4. The pages as pictures (issue 18): each field placed over its box, in percent of the
  // page so that it follows the picture's size; tapping one of the signer's fields opens its
  // input in a dialog (a check box is ticked in place); what was entered shows in place.
  var sheets = document.querySelectorAll(".sheet");
  function percent(v, of) { return (100 * parseFloat(v) / parseFloat(of)) + "%"; }
  for (var si = 0; si < sheets.length; si++) {
    var sheet = sheets[si];
    var w = sheet.getAttribute("data-w"), h = sheet.getAttribute("data-h");
    var spots = sheet.querySelectorAll(".spot");
    for (var k = 0; k < spots.length; k++) {
      var sp = spots[k];
      sp.style.left = percent(sp.getAttribute("data-x"), w);
      sp.style.top = percent(sp.getAttribute("data-y"), h);
      sp.style.width = percent(sp.getAttribute("data-w"), w);
      sp.style.height = percent(sp.getAttribute("data-h"), h);
    }
    sheet.classList.add("placed");
  }

  var mine = document.querySelectorAll("button.spot.mine");
  var dialog = document.getElementById("field-dialog");

  // The block of the form that holds a field's control.
  function blockOf(spot) {
    var control = document.getElementById(spot.getAttribute("data-for"));
    return control ? (control.closest(".field") || control) : null;
  }

  function padOf(block) {
    for (var i = 0; i < pads.length; i++) { if (pads[i].block === block) { return pads[i]; } }
    return null;
  }

  // What a field holds now, for showing it in place: {text}, {image} or null.
  function valueOf(spot) {
    var block = blockOf(spot);
    if (!block) { return null; }
    var kind = spot.getAttribute("data-kind");
    if (kind === "signature" || kind === "initials") {
      var pad = padOf(block);
      if (!pad) { return null; }
      if (pad.mode() === "draw") {
        pad.save();
        return pad.drawnInput.value ? { image: pad.drawnInput.value } : null;
      }
      var typed = pad.typedInput.value.trim();
      return typed ? { text: typed, script: true } : null;
    }
    if (kind === "checkbox") {
      var box = block.querySelector('input[type="checkbox"]');
      return box && box.checked ? { text: "\u2713" } : null;
    }
    if (kind === "radio") {
      var chosen = block.querySelector('input[type="radio"]:checked');
      return chosen ? { text: chosen.value } : null;
    }
    if (kind === "attachment") {
      var file = block.querySelector('input[type="file"]');
      return file && file.files && file.files.length ? { text: file.files[0].name } : null;
    }
    var input = block.querySelector("select, input[type=\"text\"]");
    var v = input ? input.value.trim() : "";
    return v ? { text: v } : null;
  }

  function show(spot) {
    var value = valueOf(spot);
    var holder = spot.querySelector(".spot-value");
    while (holder.firstChild) { holder.removeChild(holder.firstChild); }
    holder.classList.remove("script");
    if (value && value.image) {
      var img = document.createElement("img");
      img.src = value.image;
      img.alt = "";
      holder.appendChild(img);
    } else if (value) {
      holder.textContent = value.text;
      if (value.script) { holder.classList.add("script"); }
    }
    spot.classList.toggle("filled", !!value);
    // The accessible name begins with what the spot shows (WCAG 2.5.3, label in name), then
    // the field's name; a drawing or a tick shows no words, and a check box says its state.
    var label = spot.getAttribute("data-label");
    var shown = value ? (value.image || spot.getAttribute("data-kind") === "checkbox" ? "" : value.text)
      : spot.querySelector(".spot-label").textContent;
    spot.setAttribute("aria-label", shown && shown !== label ? shown + ", " + label : label);
    if (spot.hasAttribute("aria-pressed")) { spot.setAttribute("aria-pressed", value ? "true" : "false"); }
  }

  function showAll() { for (var i = 0; i < mine.length; i++) { show(mine[i]); } }

  var opened = null; // {spot, block, mark}
  function openField(spot) {
    var block = blockOf(spot);
    if (!block) { return; }
    if (spot.getAttribute("data-kind") === "checkbox") {
      var box = block.querySelector('input[type="checkbox"]');
      box.checked = !box.checked;
      show(spot);
      return;
    }
    if (!dialog || typeof dialog.showModal !== "function") {
      // No dialog support: go to the field in the form.
      block.scrollIntoView({ block: "center" });
      var first = block.querySelector("input:not([type=hidden]), select, canvas");
      if (first) { first.focus(); }
      return;
    }
    var mark = document.createComment("field");
    block.parentNode.insertBefore(mark, block);
    dialog.querySelector(".dialog-body").appendChild(block);
    opened = { spot: spot, block: block, mark: mark };
    dialog.showModal();
    var focus = block.querySelector('input[type="radio"]:checked, input[type="text"]:not([disabled]), select, input[type="radio"]');
    if (focus) { focus.focus(); }
  }

  // Puts the field back in the form and the focus on its spot. Called at once where the page
  // closes the dialog itself: the "close" event comes a task later, and a Tab pressed in between
  // would otherwise be undone when it pulled the focus back.
  function restore() {
    if (!opened) { return; }
    opened.mark.parentNode.insertBefore(opened.block, opened.mark);
    opened.mark.parentNode.removeChild(opened.mark);
    var spot = opened.spot;
    opened = null;
    show(spot);
    spot.focus();
  }

  if (dialog) {
    document.getElementById("dialog-done").addEventListener("click", function () {
      dialog.close();
      restore();
    });
    // Enter in one of the dialog's inputs means Done: the dialog sits inside the form, where
    // Enter would post the whole form (and the browser would point at fields the modal makes
    // unreachable).
    dialog.addEventListener("keydown", function (e) {
      var t = e.target;
      if (e.key === "Enter" && t.tagName === "INPUT") {
        e.preventDefault();
        dialog.close();
        restore();
      }
    });
    // Escape closes the dialog without the page: the field goes back then.
    dialog.addEventListener("close", restore);
  }

  for (var m = 0; m < mine.length; m++) {
    mine[m].addEventListener("click", function () { openField(this); });
  }
  if (form && mine.length) {
    form.addEventListener("input", showAll);
    form.addEventListener("change", showAll);
    form.addEventListener("pointerup", showAll);
    showAll();
  }

  // "Next field": the first required field of the signer still empty, in reading order. When
  // none is left, the status line says so: it stays in the page, empty, so that screen readers
  // announce the words when they arrive (a live region that appears with its text is not).
  var next = document.getElementById("next-field");
  if (next && mine.length) {
    next.parentNode.hidden = false;
    next.addEventListener("click", function () {
      var done = document.getElementById("fields-done");
      for (var i = 0; i < mine.length; i++) {
        var spot = mine[i];
        if (spot.getAttribute("data-required") === "true" && !spot.hidden && !spot.classList.contains("filled")) {
          done.textContent = "";
          spot.scrollIntoView({ block: "center" });
          spot.focus();
          return;
        }
      }
      done.textContent = done.getAttribute("data-msg");
      var consent = document.getElementById("consent");
      if (consent) { consent.scrollIntoView({ block: "center" }); consent.focus(); }
    });
  }

  // 5. Conditions (extensions E14): a field whose condition reads one of the signer's own
  // fields shows, and is required, only while the condition holds; hidden, its controls are
  // disabled, so nothing of it is posted. The server judges the same conditions again.
  var conds = document.querySelectorAll(".cond[data-cond-field]");
  // A value for a CSS attribute selector in double quotes.
  function quoted(v) { return v.replace(/["\\]/g, "\\$&"); }
  function blockFor(key) {
    if (!form) { return null; }
    var names = ["text:", "check:", "typed:", "drawn:", "file:"];
    for (var i = 0; i < names.length; i++) {
      var el = form.querySelector('[name="' + names[i] + quoted(key) + '"]');
      if (el) { return el; }
    }
    return null;
  }
  // The value of an own field as a condition reads it: null when empty or hidden.
  function condValue(key) {
    var el = blockFor(key);
    if (!el || el.closest(".cond[hidden]")) { return null; }
    var name = el.getAttribute("name");
    if (name.indexOf("check:") === 0) { return el.checked; }
    if (name.indexOf("typed:") === 0 || name.indexOf("drawn:") === 0) {
      var pad = padOf(el.closest("[data-signature]"));
      if (!pad) { return null; }
      if (pad.mode() === "draw") { pad.save(); return pad.drawnInput.value ? "drawn" : null; }
      return pad.typedInput.value.trim() || null;
    }
    if (el.type === "file") { return el.files && el.files.length ? "file" : null; }
    if (el.type === "radio") {
      var chosen = form.querySelector('[name="' + quoted(name) + '"]:checked');
      return chosen ? chosen.value.trim() || null : null;
    }
    return el.value.trim() || null;
  }
  function holds(c) {
    var v = condValue(c.getAttribute("data-cond-field"));
    if (c.hasAttribute("data-cond-equals")) { return typeof v === "string" && v === c.getAttribute("data-cond-equals"); }
    if (c.hasAttribute("data-cond-checked")) { return (v === true) === (c.getAttribute("data-cond-checked") === "true"); }
    var filled = v !== null && v !== false;
    return filled === (c.getAttribute("data-cond-filled") === "true");
  }
  function applyConditions() {
    // A condition can read a field that has one: settle in at most one round per field.
    for (var round = 0; round <= conds.length; round++) {
      var changed = false;
      for (var i = 0; i < conds.length; i++) {
        var c = conds[i], on = holds(c);
        if (c.hidden !== !on) { changed = true; }
        c.hidden = !on;
        var controls = c.querySelectorAll("input, select, textarea, button");
        for (var j = 0; j < controls.length; j++) {
          controls[j].disabled = !on;
          if (controls[j].hasAttribute("data-req")) { controls[j].required = on; }
        }
        var pad = padOf(c.querySelector("[data-signature]"));
        if (pad) {
          pad.required = on && c.getAttribute("data-required") === "true";
          if (on) { pad.setMode(pad.mode()); }
        }
        var spots = document.querySelectorAll('.spot[data-for="' + c.getAttribute("data-for") + '"]');
        for (var k = 0; k < spots.length; k++) { spots[k].hidden = !on; }
      }
      if (!changed) { break; }
    }
  }
  if (form && conds.length) {
    form.addEventListener("input", applyConditions);
    form.addEventListener("change", applyConditions);
    form.addEventListener("pointerup", applyConditions);
    applyConditions();
  }

  // 6. Computed fields (extensions E14): an <output> per field, filled from its formula's tree
  // (data-formula) over the sender's values (data-known) and the signer's own fields. The
  // arithmetic is envelope-core's (src/formula.rs), step for step, on BigInt: exact decimals,
  // at most 10 places, rounding half away from zero. Without BigInt the outputs stay empty; the
  // server computes every value again when the signer signs.
  var outputs = document.querySelectorAll("output[data-formula]");
  if (form && outputs.length && typeof BigInt === "function") {
    var ZERO = BigInt(0), ONE = BigInt(1), TWO = BigInt(2), TEN = BigInt(10);
    var MAX_SCALE = 10, MAX_WHOLE = 28;
    var pow10 = function (n) { return BigInt("1" + new Array(n + 1).join("0")); };
    var abs = function (x) { return x < ZERO ? -x : x; };
    var divRound = function (n, d) {
      var q = n / d, r = n % d;
      if (abs(r) * TWO >= abs(d)) { q = ((n < ZERO) === (d < ZERO)) ? q + ONE : q - ONE; }
      return q;
    };
    var atScale = function (a, s) { return a.m * pow10(s - a.s); };
    var roundDown = function (a, p) { return a.s <= p ? a : { m: divRound(a.m, pow10(a.s - p)), s: p }; };
    var checked = function (a) {
      if (abs(a.m) >= pow10(MAX_WHOLE + a.s)) { throw new Error("too large"); }
      return a;
    };
    var parseDec = function (t) {
      var v = String(t).trim();
      var m = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(v);
      if (!m || v.length > 40) { return null; }
      var frac = m[3] || "";
      var d = { m: BigInt(m[2] + frac) * (m[1] ? -ONE : ONE), s: frac.length };
      try { return checked(roundDown(d, MAX_SCALE)); } catch (e) { return null; }
    };
    var fmt = function (a) {
      var digits = abs(a.m).toString();
      while (digits.length <= a.s) { digits = "0" + digits; }
      var whole = digits.slice(0, digits.length - a.s);
      return (a.m < ZERO ? "-" : "") + whole + (a.s > 0 ? "." + digits.slice(digits.length - a.s) : "");
    };
    var calc = function (t, read) {
      var r, a, b;
      if (t[0] === "n") { r = parseDec(t[1]); }
      else if (t[0] === "f") { r = read(t[1]) || { m: ZERO, s: 0 }; }
      else if (t[0] === "neg") { a = calc(t[1], read); r = { m: -a.m, s: a.s }; }
      else if (t[0] === "round") {
        a = calc(t[1], read);
        r = a.s > t[2] ? roundDown(a, t[2]) : { m: atScale(a, t[2]), s: t[2] };
      } else {
        a = calc(t[1], read); b = calc(t[2], read);
        var s = Math.max(a.s, b.s);
        if (t[0] === "+") { r = { m: atScale(a, s) + atScale(b, s), s: s }; }
        else if (t[0] === "-") { r = { m: atScale(a, s) - atScale(b, s), s: s }; }
        else if (t[0] === "*") { r = roundDown({ m: a.m * b.m, s: a.s + b.s }, MAX_SCALE); }
        else {
          if (b.m === ZERO) { throw new Error("division by zero"); }
          r = { m: divRound(a.m * pow10(b.s + MAX_SCALE), b.m * pow10(a.s)), s: MAX_SCALE };
          while (r.s > s && r.m % TEN === ZERO) { r = { m: r.m / TEN, s: r.s - 1 }; }
        }
      }
      return checked(r);
    };
    var computeAll = function () {
      var changed = false;
      for (var i = 0; i < outputs.length; i++) {
        var o = outputs[i], text = "";
        if (!o.closest(".cond[hidden]")) {
          var known = JSON.parse(o.getAttribute("data-known") || "{}");
          var read = function (k) {
            if (Object.prototype.hasOwnProperty.call(known, k)) { return parseDec(known[k]); }
            var v = condValue(k);
            return typeof v === "string" ? parseDec(v) : null;
          };
          try { text = fmt(calc(JSON.parse(o.getAttribute("data-formula")), read)); } catch (e) { text = ""; }
        }
        if (o.value !== text) { o.value = text; changed = true; }
        var spot = document.querySelector('.spot.computed[data-for="' + o.id + '"]');
        if (spot) {
          spot.querySelector(".spot-value").textContent = text;
          spot.classList.toggle("filled", text !== "");
        }
      }
      return changed;
    };
    // Conditions can read computed fields and hide fields formulas read: settle both.
    var settle = function () {
      for (var round = 0; round <= outputs.length + conds.length; round++) {
        var changed = computeAll();
        if (conds.length) { applyConditions(); }
        if (!changed) { break; }
      }
    };
    form.addEventListener("input", settle);
    form.addEventListener("change", settle);
    settle();
  }

  // 7. Files (extensions E14): the camera button shows; a photo it takes becomes the field's
  // file (the chooser's), so that one file is posted and `required` holds as for any file.
  var cameras = document.querySelectorAll("input[data-camera-for]");
  for (var ci = 0; ci < cameras.length; ci++) {
    (function (camera) {
      var main = document.getElementById(camera.getAttribute("data-camera-for"));
      if (!main) { return; }
      camera.parentNode.hidden = false;
      camera.addEventListener("change", function () {
        if (!camera.files || !camera.files.length) { return; }
        try {
          // A list of its own: clearing the camera's input then leaves the chooser's whole.
          var list = new DataTransfer();
          list.items.add(camera.files[0]);
          main.files = list.files;
          camera.value = "";
        } catch (err) {
          // A browser that cannot hand the photo over posts it from the camera input itself.
          main.required = false;
        }
        main.dispatchEvent(new Event("change", { bubbles: true }));
      });
    })(cameras[ci]);
  }

  var decline = document.getElementById("decline-form");
  if (decline) {
    decline.addEventListener("submit", function () {
      var b = document.getElementById("decline-button");
      setTimeout(function () { b.disabled = true; }, 0);
    });
  }

  // Focus a server-side error so screen readers announce it.
  var alertBox = document.getElementById("form-error");
  if (alertBox) {
    alertBox.setAttribute("tabindex", "-1");
    alertBox.focus();
  }
})();
