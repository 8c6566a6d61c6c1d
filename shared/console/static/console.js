// The live decisions view: new decisions arrive as server-sent events and
// are put at the top of the table. Every value is written with textContent,
// never as HTML: task ids, callers and reasons are untrusted text.
(function () {
  "use strict";
  var table = document.getElementById("decisions");
  var state = document.getElementById("live-state");
  if (table && table.dataset.live === "off") { state.textContent = "older page (not live)"; return; }
  if (!table || !window.EventSource) { return; }
  var rows = document.getElementById("decision-rows");
  var limit = parseInt(table.dataset.limit, 10) || 100;
  var since = table.dataset.since || "0";
  var params = new URLSearchParams();
  ["caller", "action", "agent"].forEach(function (k) { if (table.dataset[k]) { params.set(k, table.dataset[k]); } });

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function when(iso) {
    var d = new Date(iso);
    if (isNaN(d)) { return "—"; }
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " +
      pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) + ":" + pad(d.getUTCSeconds()) + "Z";
  }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    if (cls) { td.className = cls; }
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function add(s) {
    if (rows.querySelector('tr[data-seq="' + s.seq + '"]')) { return; }
    var tr = document.createElement("tr");
    tr.className = "decision fresh " + s.action;
    tr.dataset.seq = String(s.seq);
    cell(tr, when(s.at));
    cell(tr, s.caller);
    var a = document.createElement("a");
    a.href = "/decisions/" + encodeURIComponent(String(s.seq));
    a.textContent = s.taskId;
    cell(tr, "").appendChild(a);
    var act = document.createElement("span");
    act.className = "action " + s.action;
    act.textContent = s.action;
    cell(tr, "").appendChild(act);
    cell(tr, s.steps && s.steps.length ? s.steps.join(" → ") : (s.agent ? s.agent + "/" + s.skill : ""));
    cell(tr, (s.probability || 0).toFixed(2));
    cell(tr, s.reason, "reason");
    rows.insertBefore(tr, rows.firstChild);
    while (rows.children.length > limit) { rows.removeChild(rows.lastChild); }
  }
  // A burst (a backlog, a flood of tasks) is drawn once per tick: only the
  // newest `limit` of the decisions that arrived meanwhile become rows.
  var pending = [];
  var scheduled = false;
  function flush() {
    scheduled = false;
    var batch = pending.slice(-limit);
    pending = [];
    batch.forEach(add);
  }
  function queue(s) {
    pending.push(s);
    if (pending.length > 4 * limit) { pending = pending.slice(-limit); }
    if (!scheduled) { scheduled = true; setTimeout(flush, 50); }
  }
  function connect() {
    params.set("since", since);
    var es = new EventSource("/decisions/events?" + params.toString());
    es.onopen = function () { state.textContent = "live"; state.className = "live on"; };
    es.addEventListener("decision", function (e) {
      var s = JSON.parse(e.data);
      since = String(s.seq);
      queue(s);
    });
    es.onerror = function () {
      state.textContent = "reconnecting…"; state.className = "live";
      es.close();
      setTimeout(connect, 1000);
    };
  }
  connect();
})();
