// The signing page's script: signature pads, the checks of drawings before a post, and the
// message to an embedding window. Plain ES5-level JavaScript, no dependencies, no inline code
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
    if (this.mode() !== "draw") { return true; }
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
