// mcpspec report page. Renders the embedded report (script#mcpspec-data)
// with DOM APIs only: every string from the report is set as text, never
// parsed as HTML, since the target under test controls transcript content.
// URL query (kept in sync): ?outcome=fail&area=server/tools&version=2025-06-18&q=text&case=<id>
// (`case` expands that case; a fragment #case=<id> does too).
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('mcpspec-data').textContent);
  var rep = data.report;
  var transcripts = data.transcripts || {};
  var DIRS = { '>>': 'sent', '<<': 'received', '!!': 'stderr', '--': 'note' };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function safeHref(url) {
    return /^https?:\/\/[^\s"'<>`]+$/.test(url || '') ? url : null;
  }
  function area(c) {
    return c.scenario.split('/').slice(0, 2).join('/');
  }
  function status(c) {
    return c.expectation ? c.expectation.status : null;
  }

  // Header: target, totals.
  var s = rep.summary;
  document.getElementById('target').textContent = rep.run.target;
  document.getElementById('meta').textContent =
    'mcpspec ' + rep.run.mcpspec_version + ' · started ' + rep.run.started_at +
    ' · ' + (rep.run.wall_ms / 1000).toFixed(2) + 's · ' + rep.run.jobs + ' jobs · strict: ' +
    (rep.run.strict ? 'yes' : 'no') + ' · exit ' + rep.run.exit_code +
    (rep.interrupted ? ' · interrupted (' + (rep.run.interrupted_by || 'stopped') + ')'
      : rep.complete ? '' : ' · run cut short');
  var counts = [
    ['pass', 'passed', s.passed], ['fail', 'failed', s.failed], ['warn', 'warned', s.warned],
    ['not_applicable', 'not applicable', s.not_applicable], ['error', 'errored', s.errored]
  ];
  if (rep.baseline) {
    counts.push(['expected_failure', 'expected failures', s.expected_failures]);
    counts.push(['stale_expectation', 'stale expectations', s.stale_expectations]);
  }
  var totals = document.getElementById('totals');
  counts.forEach(function (c) {
    var span = el('span');
    var strong = el('strong', null, c[2]);
    strong.id = 'count-' + c[0];
    span.appendChild(strong);
    span.appendChild(document.createTextNode(' ' + c[1]));
    totals.appendChild(span);
  });

  // Filters.
  var params = new URLSearchParams(location.search);
  function fill(id, values) {
    var sel = document.getElementById(id);
    values.forEach(function (v) {
      var o = el('option', null, v[1]);
      o.value = v[0];
      sel.appendChild(o);
    });
    var want = params.get(sel.name);
    if (want !== null) sel.value = want;
    if (sel.value !== (want || '')) sel.value = '';
    return sel;
  }
  function uniq(f) {
    var seen = {};
    rep.results.forEach(function (c) { seen[f(c)] = true; });
    return Object.keys(seen).sort().map(function (v) { return [v, v]; });
  }
  var fOutcome = fill('f-outcome', [
    ['problems', 'problems (fail, warn, error, stale)'], ['pass', 'pass'], ['fail', 'fail'],
    ['warn', 'warn'], ['not_applicable', 'not applicable'], ['error', 'error'],
    ['expected_failure', 'expected failure'], ['stale_expectation', 'stale expectation']
  ]);
  var fArea = fill('f-area', uniq(area));
  var fVersion = fill('f-version', uniq(function (c) { return c.version; }));
  var fText = document.getElementById('f-text');
  fText.value = params.get('q') || '';

  function matches(c) {
    var o = fOutcome.value, st = status(c);
    if (o === 'problems') {
      if (st === 'expected_failure') return false;
      if (!(c.outcome === 'fail' || c.outcome === 'warn' || c.outcome === 'error' ||
            st === 'stale_expectation')) return false;
    } else if (o === 'expected_failure' || o === 'stale_expectation') {
      if (st !== o) return false;
    } else if (o && c.outcome !== o) {
      return false;
    }
    if (fArea.value && area(c) !== fArea.value) return false;
    if (fVersion.value && c.version !== fVersion.value) return false;
    var q = fText.value.trim().toLowerCase();
    if (q && (c.id + ' ' + c.title + ' ' + c.message).toLowerCase().indexOf(q) < 0) return false;
    return true;
  }

  // Case bodies are built when first opened.
  function renderBody(c, box) {
    if (c.expectation) {
      box.appendChild(el('p', null, (c.expectation.status === 'stale_expectation'
        ? 'Stale expectation: the case passed, but the baseline lists it as failing. '
        : c.expectation.status === 'expected_failure' ? 'Expected failure (baseline). ' : 'Listed in the baseline. ') +
        'Entry ' + c.expectation.pattern + ': ' + c.expectation.reason));
    }
    if (c.message) box.appendChild(el('p', 'message', c.message));
    c.findings.forEach(function (f) {
      var d = el('div', 'finding ' + f.level);
      var head = el('div');
      head.appendChild(el('strong', null, f.level.toUpperCase() + ' '));
      var href = safeHref(f.spec_url);
      var req = el(href ? 'a' : 'span', 'req', f.requirement);
      if (href) { req.href = href; req.rel = 'noreferrer'; req.target = '_blank'; }
      head.appendChild(req);
      head.appendChild(document.createTextNode(': ' + f.summary));
      d.appendChild(head);
      if (f.location) d.appendChild(el('div', 'meta', 'at: ' + f.location));
      if (f.expected.length) {
        d.appendChild(el('div', null, 'Expected:'));
        var ul = el('ul');
        f.expected.forEach(function (e) { ul.appendChild(el('li', null, e)); });
        d.appendChild(ul);
      }
      var act = el('div', 'actual');
      act.textContent = 'Actual: ' + f.actual;
      d.appendChild(act);
      box.appendChild(d);
    });
    var lines = transcripts[c.id] || [];
    var h = el('h4', null, 'Transcript (' + lines.length + ' lines) ');
    if (c.transcript) {
      var a = el('a', null, 'JSONL');
      a.href = c.transcript.split('/').map(encodeURIComponent).join('/');
      h.appendChild(a);
    }
    box.appendChild(h);
    if (!lines.length) { box.appendChild(el('div', 'empty', 'no transcript')); return; }
    var table = el('table', 'transcript');
    lines.forEach(function (l) {
      var tr = el('tr', 'line d-' + (DIRS[l[1]] || 'note'));
      tr.appendChild(el('td', 'at', l[0] + 'ms'));
      tr.appendChild(el('td', 'dir', l[1]));
      tr.appendChild(el('td', 'text', l[2]));
      table.appendChild(tr);
    });
    box.appendChild(table);
  }

  var list = document.getElementById('cases');
  var rows = rep.results.map(function (c) {
    var d = el('details', 'case');
    d.id = 'case-' + c.id;
    d.dataset.outcome = c.outcome;
    var sum = el('summary');
    sum.appendChild(el('span', 'badge o-' + c.outcome,
      c.outcome === 'not_applicable' ? 'N/A' : c.outcome.toUpperCase()));
    var st = status(c);
    if (st && st !== 'listed') sum.appendChild(el('span', 'tag ' + st, st.replace('_', ' ')));
    sum.appendChild(el('span', 'id', c.id));
    sum.appendChild(el('span', 'title', c.title));
    d.appendChild(sum);
    var body = el('div', 'body');
    d.appendChild(body);
    d.addEventListener('toggle', function () {
      if (d.open && !body.hasChildNodes()) renderBody(c, body);
    });
    list.appendChild(d);
    return { c: c, d: d, body: body };
  });

  function apply() {
    var shown = 0;
    rows.forEach(function (r) {
      var ok = matches(r.c);
      r.d.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' cases shown';
    document.getElementById('none').hidden = shown > 0;
    var q = new URLSearchParams();
    [fOutcome, fArea, fVersion].forEach(function (sel) { if (sel.value) q.set(sel.name, sel.value); });
    if (fText.value) q.set('q', fText.value);
    var open = params.get('case');
    if (open) q.set('case', open);
    try { history.replaceState(null, '', '?' + q.toString() + location.hash); } catch (e) { /* file: URLs may refuse */ }
  }
  [fOutcome, fArea, fVersion].forEach(function (sel) { sel.addEventListener('change', apply); });
  fText.addEventListener('input', apply);
  apply();

  // Expand the case named in the URL.
  var hashCase = /^#case=(.*)$/.exec(location.hash);
  var want = params.get('case') || (hashCase ? decodeURIComponent(hashCase[1]) : null);
  rows.forEach(function (r) {
    if (r.c.id === want) {
      r.d.hidden = false;
      r.d.open = true;
      if (!r.body.hasChildNodes()) renderBody(r.c, r.body);
      r.d.scrollIntoView();
    }
  });
  document.body.setAttribute('data-rendered', 'true');
})();
