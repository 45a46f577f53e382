// calibrant workbench: labeling from the keyboard. Served by the app itself (/workbench.js).
// It reads the page and nothing else: no data of its own, no request of its own. Without it
// the page works the same way by hand: the radio buttons pick, the submit button saves and
// goes on, the Skip and Back links move between items.
(function () {
  "use strict";
  var form = document.getElementById("labels");
  if (!form) return;
  var criteria = Array.prototype.slice.call(form.querySelectorAll("fieldset.criterion"));
  if (!criteria.length) return;
  document.documentElement.classList.add("js");
  var help = document.getElementById("keys");
  if (help) help.hidden = false;
  var current = 0;
  var changed = false;

  // the focused criterion is marked without moving anything on the page: a click that moves
  // the focus must land where the mouse went down
  function mark(index) {
    current = Math.max(0, Math.min(criteria.length - 1, index));
    criteria.forEach(function (fieldset, k) {
      fieldset.classList.toggle("current", k === current);
      if (k === current) fieldset.setAttribute("aria-current", "true");
      else fieldset.removeAttribute("aria-current");
    });
  }

  function show(index) {
    mark(index);
    var fieldset = criteria[current];
    if (!fieldset.contains(document.activeElement)) fieldset.focus({ preventScroll: true });
    fieldset.scrollIntoView({ block: "nearest" });
  }

  function choices(index) {
    return criteria[index].querySelectorAll("input[type=radio]");
  }

  function firstUnanswered() {
    for (var k = 0; k < criteria.length; k++) {
      if (!criteria[k].querySelector("input[type=radio]:checked")) return k;
    }
    return 0;
  }

  function pick(n) {
    var radios = choices(current);
    if (n < 1 || n > radios.length) return;
    radios[n - 1].checked = true;
    changed = true;
    if (current < criteria.length - 1) show(current + 1);
  }

  function go(id) {
    var link = document.getElementById(id);
    if (!link) return;
    if (changed && !window.confirm("Leave this item without saving its labels?")) return;
    window.location.assign(link.href);
  }

  criteria.forEach(function (fieldset, k) {
    fieldset.addEventListener("focusin", function () {
      if (current !== k) mark(k);
    });
  });
  form.addEventListener("change", function () {
    changed = true;
  });
  form.addEventListener("submit", function () {
    changed = false;
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    var target = event.target;
    var typing =
      target &&
      (target.tagName === "TEXTAREA" ||
        target.tagName === "SELECT" ||
        (target.tagName === "INPUT" && target.type !== "radio" && target.type !== "checkbox"));
    if (typing) {
      if (event.key === "Escape") {
        target.blur();
        show(current);
        event.preventDefault();
      }
      return; // Enter in a note submits the form, as a browser does without this script
    }
    var key = event.key;
    if (/^[1-9]$/.test(key)) {
      pick(Number(key));
    } else if (key === "ArrowDown") {
      show(current + 1);
    } else if (key === "ArrowUp") {
      show(current - 1);
    } else if (key === "Enter") {
      if (target && (target.tagName === "A" || target.tagName === "BUTTON")) return;
      form.requestSubmit();
    } else if (key === "s" || key === "S") {
      go("skip");
    } else if (key === "b" || key === "B") {
      go("back");
    } else if (key === "n" || key === "N") {
      var note = criteria[current].querySelector("input.note");
      if (note) note.focus();
    } else {
      return;
    }
    event.preventDefault();
  });

  show(firstUnanswered());
})();
