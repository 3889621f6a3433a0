// mcpspec report page. The header, rollup and matrix are in the page
// already; this builds the case list from the embedded report
// (script#mcpspec-data) with DOM APIs only: every string from the report is
// set as text, never parsed as HTML, since the target under test controls
// transcript content.
// URL query (kept in sync): ?outcome=fail&area=server/tools&version=2025-06-18&group=requirement&q=text&case=<id>
// `case` (or a fragment #case=<id>) moves that case to the top of the page,
// open, below the sticky header: landing there needs no scrolling.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('mcpspec-data').textContent);
  var rep = data.report;
  var transcripts = data.transcripts || {};
  var DIRS = { '>>': 'sent', '<<': 'received', '!!': 'stderr', '--': 'note' };
  // Problems first: the order of the case list and of each group.
  var ORDER = ['fail', 'stale_expectation', 'error', 'blocked', 'warn', 'expected_failure',
    'flaky', 'pass', 'not_applicable'];
  var LEVELS = { must: 3, should: 2, may: 1 };
  var header = document.getElementById('top');
  var focus = document.getElementById('focus');
  var list = document.getElementById('cases');

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
  // What a case counts as: its outcome, or what the baseline made of it.
  function kind(c) {
    var st = status(c);
    return st === 'stale_expectation' || st === 'expected_failure' || st === 'flaky' ? st : c.outcome;
  }
  function rank(c) {
    var i = ORDER.indexOf(kind(c));
    return i < 0 ? ORDER.length : i;
  }
  // The requirement a case is listed under: what blocked it, or its worst finding's.
  function primary(c) {
    if (c.blocked_by) return c.blocked_by;
    var best = null;
    c.findings.forEach(function (f) {
      if (f.level !== 'may' && (!best || LEVELS[f.level] > LEVELS[best.level])) best = f;
    });
    return best ? best.requirement : null;
  }
  // Keeps the header's height for scroll-margin-top (in-page links land below it).
  function headerHeight() {
    document.documentElement.style.setProperty('--header-h', header.offsetHeight + 'px');
  }
  headerHeight();
  window.addEventListener('resize', headerHeight);

  if (!list) {
    document.body.setAttribute('data-rendered', 'true');
    return;
  }

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
    ['problems', 'problems (fail, blocked, warn, error, stale)'], ['fail', 'fail'],
    ['blocked', 'blocked'], ['warn', 'warn'], ['error', 'error'], ['pass', 'pass'],
    ['not_applicable', 'not applicable'], ['expected_failure', 'expected failure'],
    ['stale_expectation', 'stale expectation'], ['flaky', 'flaky']
  ]);
  var fArea = fill('f-area', uniq(area));
  var fVersion = fill('f-version', uniq(function (c) { return c.version; }));
  var fGroup = fill('f-group', []);
  var fText = document.getElementById('f-text');
  fText.value = params.get('q') || '';

  function matches(c) {
    var o = fOutcome.value, k = kind(c);
    if (o === 'problems') {
      if (rank(c) > ORDER.indexOf('warn')) return false;
    } else if (o && k !== o) {
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
        : c.expectation.status === 'expected_failure' ? 'Expected failure (baseline). '
        : c.expectation.status === 'flaky' ? 'Flaky (baseline): its outcome does not fail the run. '
        : 'Listed in the baseline. ') +
        'Entry ' + c.expectation.pattern + ': ' + c.expectation.reason));
    }
    if (c.attempts && c.attempts.length) {
      box.appendChild(el('p', null, 'Attempts (--retries): ' + c.attempts.join(', ')));
    }
    if (c.blocked_by) {
      var p = el('p', 'message', 'Blocked: the target broke ');
      var a = el('a', null, c.blocked_by);
      a.href = '#req-' + c.blocked_by;
      p.appendChild(a);
      p.appendChild(document.createTextNode(
        ' first, so this case could not check its own requirement (see the rollup).'));
      box.appendChild(p);
    } else if (c.message) {
      box.appendChild(el('p', 'message', c.message));
    }
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
      // An Expected line that only repeats the summary says nothing new.
      var norm = function (t) { return t.trim().replace(/\.$/, '').trim().toLowerCase(); };
      var expected = f.expected.filter(function (e) { return norm(e) !== norm(f.summary); });
      if (expected.length) {
        d.appendChild(el('div', null, 'Expected:'));
        var ul = el('ul');
        expected.forEach(function (e) { ul.appendChild(el('li', null, e)); });
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
      var link = el('a', null, 'JSONL');
      link.href = c.transcript.split('/').map(encodeURIComponent).join('/');
      h.appendChild(link);
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

  function badge(c) {
    var k = c.outcome;
    return el('span', 'badge o-' + k, k === 'not_applicable' ? 'N/A' : k.toUpperCase());
  }

  var rows = rep.results.slice().sort(function (a, b) {
    return rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  }).map(function (c) {
    var d = el('details', 'case');
    d.id = 'case-' + c.id;
    d.dataset.outcome = c.outcome;
    var sum = el('summary');
    sum.appendChild(badge(c));
    var st = status(c);
    if (st && st !== 'listed') sum.appendChild(el('span', 'tag ' + st, st.replace('_', ' ')));
    sum.appendChild(el('span', 'id', c.id));
    if (c.blocked_by) sum.appendChild(el('span', 'by', 'blocked by ' + c.blocked_by));
    sum.appendChild(el('span', 'title', c.title));
    d.appendChild(sum);
    var body = el('div', 'body');
    d.appendChild(body);
    d.addEventListener('toggle', function () {
      if (d.open && !body.hasChildNodes()) renderBody(c, body);
    });
    return { c: c, d: d, body: body };
  });
  var byId = {};
  rows.forEach(function (r) { byId[r.c.id] = r; });
  var landed = null;

  // The groups of the list: [heading or null, rows].
  function groups(shown) {
    var g = fGroup.value;
    if (!g) return [[null, shown]];
    var keyed = {}, order = [];
    function put(key, r) {
      if (!keyed[key]) { keyed[key] = []; order.push(key); }
      keyed[key].push(r);
    }
    if (g === 'requirement') {
      (rep.rollup || []).forEach(function (b) { keyed[b.requirement] = []; order.push(b.requirement); });
      shown.forEach(function (r) {
        var p = primary(r.c);
        put(p && keyed[p] ? p : '', r);
      });
      return order.filter(function (k) { return keyed[k].length; }).map(function (k) {
        var b = (rep.rollup || []).filter(function (x) { return x.requirement === k; })[0];
        return [b ? b.level.toUpperCase() + ' ' + k + ': ' + keyed[k].length + ' case(s)'
          : 'no broken requirement', keyed[k]];
      });
    }
    shown.forEach(function (r) { put(area(r.c), r); });
    order.sort();
    return order.map(function (k) { return [k + ': ' + keyed[k].length + ' case(s)', keyed[k]]; });
  }

  function apply() {
    var shown = rows.filter(function (r) { return r !== landed && matches(r.c); });
    while (list.firstChild) list.removeChild(list.firstChild);
    groups(shown).forEach(function (g) {
      if (g[0] !== null) list.appendChild(el('h3', 'group', g[0]));
      g[1].forEach(function (r) { list.appendChild(r.d); });
    });
    document.getElementById('shown').textContent = shown.length + ' of ' + rows.length + ' cases shown';
    document.getElementById('none').hidden = shown.length > 0;
    var q = new URLSearchParams();
    [fOutcome, fArea, fVersion, fGroup].forEach(function (sel) { if (sel.value) q.set(sel.name, sel.value); });
    if (fText.value) q.set('q', fText.value);
    if (landed) q.set('case', landed.c.id);
    try { history.replaceState(null, '', '?' + q.toString() + location.hash); } catch (e) { /* file: URLs may refuse */ }
  }
  [fOutcome, fArea, fVersion, fGroup].forEach(function (sel) { sel.addEventListener('change', apply); });
  fText.addEventListener('input', apply);

  // Moves a case to the top of the page, open. `scroll`: bring the top
  // into view (a click further down); a landing needs none.
  function land(id, scroll) {
    var r = byId[id];
    if (!r) return;
    if (landed) landed.d.removeAttribute('data-landed');
    landed = r;
    focus.appendChild(r.d);
    focus.hidden = false;
    r.d.open = true;
    if (!r.body.hasChildNodes()) renderBody(r.c, r.body);
    apply();
    if (scroll) focus.scrollIntoView({ block: 'start' });
    // For tests and the curious: is the case's line below the header and
    // inside the window?
    var top = r.d.getBoundingClientRect().top;
    var bottom = header.getBoundingClientRect().bottom;
    r.d.setAttribute('data-landed', top >= bottom - 1 && top + 20 <= window.innerHeight
      ? 'in-view' : 'out-of-view');
  }
  document.getElementById('focus-close').addEventListener('click', function () {
    if (!landed) return;
    landed.d.removeAttribute('data-landed');
    landed.d.open = false;
    landed = null;
    focus.hidden = true;
    apply();
  });
  // Matrix cells and rollup examples open their case in place.
  document.addEventListener('click', function (e) {
    var a = e.target.closest ? e.target.closest('a[data-case]') : null;
    if (!a || !byId[a.getAttribute('data-case')]) return;
    e.preventDefault();
    land(a.getAttribute('data-case'), true);
  });

  var hashCase = /^#case=(.*)$/.exec(location.hash);
  var want = params.get('case') || (hashCase ? decodeURIComponent(hashCase[1]) : null);
  if (want && byId[want]) {
    land(want, false);
  } else {
    apply();
  }
  // Whether the rollup starts in the first window (a failing run opens on it).
  var rollup = document.getElementById('rollup');
  if (rollup) {
    rollup.setAttribute('data-in-view',
      String(rollup.getBoundingClientRect().top + 40 <= window.innerHeight));
  }
  document.body.setAttribute('data-rendered', 'true');
})();
