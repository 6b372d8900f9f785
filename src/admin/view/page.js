(function () {
  "use strict";
  var PAGE = 50;
  var query = document.getElementById("q");
  var found = document.getElementById("q-found");
  var agent = document.getElementById("f-agent");
  var kind = document.getElementById("f-kind");
  var lists = Array.prototype.slice.call(document.querySelectorAll("[data-list]"));
  var texts = new WeakMap();
  var timer = 0;
  function textOf(el) {
    var t = texts.get(el);
    if (t === undefined) {
      t = el.textContent.toLowerCase();
      texts.set(el, t);
    }
    return t;
  }
  function terms() {
    return query.value.toLowerCase().split(/\s+/).filter(function (t) { return t.length > 0; });
  }
  function show(list, words) {
    var limit = Number(list.getAttribute("data-page")) || PAGE;
    var items = list.children;
    var timeline = list.id === "timeline-list";
    var matched = 0;
    for (var i = 0; i < items.length; i++) {
      var el = items[i];
      var ok = true;
      for (var k = 0; ok && k < words.length; k++) {
        ok = textOf(el).indexOf(words[k]) !== -1;
      }
      if (ok && timeline) {
        ok = (!agent.value || el.getAttribute("data-agent") === agent.value) &&
          (!kind.value || el.getAttribute("data-kind") === kind.value);
      }
      if (ok) {
        matched++;
      }
      el.hidden = !ok || matched > limit;
    }
    var none = list.parentNode.querySelector("#" + list.id + " ~ .none");
    var more = list.parentNode.querySelector("#" + list.id + " ~ .more");
    if (none) {
      none.hidden = matched > 0 || items.length === 0;
    }
    if (more) {
      var left = matched - limit;
      more.hidden = left <= 0;
      more.textContent = "Show " + Math.min(PAGE, Math.max(left, 0)) + " more (" + Math.max(left, 0) + " not shown)";
    }
    return matched;
  }
  function apply() {
    var words = terms();
    var total = 0;
    lists.forEach(function (list) { total += show(list, words); });
    found.textContent = words.length ? total + " item(s) match" : "";
  }
  lists.forEach(function (list) {
    var more = list.parentNode.querySelector("#" + list.id + " ~ .more");
    if (more) {
      more.addEventListener("click", function () {
        list.setAttribute("data-page", String((Number(list.getAttribute("data-page")) || PAGE) + PAGE));
        show(list, terms());
      });
    }
  });
  query.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(apply, 120);
  });
  document.getElementById("search").addEventListener("submit", function (e) {
    e.preventDefault();
    clearTimeout(timer);
    apply();
  });
  if (agent) { agent.addEventListener("change", apply); }
  if (kind) { kind.addEventListener("change", apply); }
  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (button) {
    button.addEventListener("click", function () {
      var line = button.getAttribute("data-copy");
      var done = function () { button.textContent = "Copied"; };
      var select = function () {
        var range = document.createRange();
        range.selectNodeContents(button.previousElementSibling);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = "Selected: press Ctrl+C";
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(line).then(done, select);
      } else {
        select();
      }
    });
  });
  apply();
  document.documentElement.setAttribute("data-ready", "true");
})();
