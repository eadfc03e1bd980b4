/* global document, window, requestAnimationFrame */
// The HTML report's one script (src/report/html-report.ts inlines it, allowed by its sha256).
// Every text comes from the JSON block and reaches the page through textContent only: nothing
// from an answer, a judge or the pull request is ever parsed as markup.
(function () {
  'use strict';
  var CHUNK = 150;
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var cases = data.cases;
  var state = { failing: false, changed: false, text: '', list: cases, shown: 0 };
  var FAILING = { fail: 1, error: 1, inconclusive: 1, borderline: 1 };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function num(x, digits) {
    return typeof x === 'number' && isFinite(x) ? x.toFixed(digits === undefined ? 2 : digits) : '–';
  }
  function verdictSpan(v, tag) {
    return el(tag || 'span', 'v v-' + v, v || '–');
  }
  function pre(text) {
    return el('pre', null, text);
  }

  // ---- header: counts, effect, problems, rubric ----
  function header() {
    var c = data.counts;
    var bits = [c.pass + ' pass', c.borderline + ' borderline', c.fail + ' fail', c.error + ' error'];
    if (c.skipped) bits.push(c.skipped + ' skipped');
    if (c.inconclusive) bits.push(c.inconclusive + ' inconclusive');
    var counts = document.getElementById('counts');
    add(
      counts,
      verdictSpan(data.verdict),
      document.createTextNode(' · score ' + num(data.score) + ' · ' + bits.join(' · ')),
    );
    if (data.baseline_label) add(counts, el('span', 'muted', ' · ' + data.baseline_label));
    // The run's address as text: a link would be the page's one way out.
    if (data.run_url) add(counts, el('span', 'muted', ' · run: ' + data.run_url));
    if (data.effect && data.effect.length) effectTable(data.effect);
    if (data.errors.length || data.warnings.length) {
      var p = document.getElementById('problems');
      p.hidden = false;
      add(p, pre(data.errors.concat(data.warnings).join('\n')));
    }
    if (data.rubric) rubric(data.rubric);
  }

  function effectTable(rows) {
    var s = document.getElementById('effect');
    s.hidden = false;
    var t = el('table');
    var head = add(el('tr'));
    [
      'suite',
      'metric',
      'n',
      'clusters',
      'base',
      'head',
      'delta (95% CI)',
      'smallest detectable drop',
      'verdict',
      'method',
    ].forEach(function (h) {
      add(head, el('th', null, h));
    });
    add(t, head);
    rows.forEach(function (r) {
      var pct = r.metric === 'pass' ? 100 : 1;
      var d = r.metric === 'pass' ? 0 : 3;
      add(
        t,
        add(
          el('tr'),
          el('td', null, r.suite || 'overall'),
          el('td', null, r.metric === 'pass' ? 'pass rate' : 'score'),
          el('td', null, r.n),
          el('td', null, r.clusters),
          el('td', null, num(r.base_mean * pct, d)),
          el('td', null, num(r.head_mean * pct, d)),
          el(
            'td',
            null,
            num(r.delta * pct, d) +
              ' (' +
              num(r.delta_low * pct, d) +
              ' to ' +
              num(r.delta_high * pct, d) +
              ')',
          ),
          el('td', null, r.mde === null || r.mde === undefined ? 'none at this n' : num(r.mde * pct, d)),
          add(el('td'), effectVerdict(r.verdict)),
          el('td', 'muted', r.method),
        ),
      );
    });
    add(s, t);
  }

  function effectVerdict(v) {
    var span = verdictSpan(v === 'regressed' ? 'fail' : v === 'inconclusive' ? 'inconclusive' : 'pass');
    span.textContent = v;
    return span;
  }

  function rubric(r) {
    var s = document.getElementById('rubric');
    s.hidden = false;
    add(s, add(el('p'), el('code', null, r.path), document.createTextNode(' '), verdictSpan(r.verdict)));
    r.gates.forEach(function (g) {
      var d = el('details');
      if (g.verdict === 'fail') d.open = true;
      var how = g.timed_out ? 'timed out' : 'exit ' + (g.exit_code === null ? '–' : g.exit_code);
      add(
        d,
        add(el('summary'), verdictSpan(g.verdict), el('code', null, g.command), el('span', 'muted', how)),
      );
      add(d, pre(g.output || '(no output)'));
      add(s, d);
    });
    if (r.checks.length) {
      var ul = el('ul', 'why');
      r.checks.forEach(function (k) {
        var mark = k.satisfied === null ? '?' : k.satisfied ? '✓' : '✗';
        var li = add(
          el('li'),
          el('span', k.satisfied ? 'ok' : 'no', mark + ' '),
          el('code', null, k.id),
          document.createTextNode(' ' + k.text),
        );
        if (k.reasoning) add(li, el('div', 'muted', k.reasoning));
        add(ul, li);
      });
      add(s, ul);
    }
    if (r.feedback)
      add(s, add(el('p'), el('strong', null, 'Feedback: '), document.createTextNode(r.feedback)));
  }

  // ---- one case: a summary line, its body built when opened ----
  function caseItem(c, index) {
    var li = el('li');
    var d = el('details');
    var sum = el('summary');
    add(
      sum,
      verdictSpan(c.verdict),
      el('span', 'id', c.id),
      el('span', null, c.pass_rate !== undefined ? 'rate ' + num(c.pass_rate) : num(c.score)),
    );
    if (c.base)
      add(
        sum,
        el(
          'span',
          'muted',
          'base ' + (c.base.verdict || '–') + ' ' + num(c.base.score) + ' · ' + c.base.change,
        ),
      );
    add(sum, el('span', 'suite', data.suites[c.s].path + (c.line ? ':' + c.line : '')));
    sum.dataset.index = String(index);
    add(d, sum);
    d.addEventListener('toggle', function () {
      if (d.open && d.children.length === 1) add(d, caseBody(c));
    });
    return add(li, d);
  }

  function caseBody(c) {
    var body = el('div', 'body');
    if (c.why.length) {
      add(body, el('h4', null, 'Why'));
      var ul = el('ul', 'why');
      c.why.forEach(function (w) {
        add(ul, el('li', null, w));
      });
      add(body, ul);
    }
    var head = el('div', 'side');
    add(
      head,
      el('h4', null, 'This run'),
      add(el('p'), verdictSpan(c.verdict), document.createTextNode(' score ' + num(c.score))),
    );
    if (c.error) add(head, el('h4', null, 'Error'), pre(c.error));
    add(head, el('h4', null, 'Answer'), pre(c.answer === null ? '(no answer)' : c.answer));
    if (c.base) {
      var base = el('div', 'side');
      add(
        base,
        el('h4', null, 'Base branch'),
        add(
          el('p'),
          verdictSpan(c.base.verdict || 'skipped'),
          document.createTextNode(' score ' + num(c.base.score) + ' · ' + c.base.change),
        ),
      );
      if (typeof c.base.answer === 'string') add(base, el('h4', null, 'Base answer'), pre(c.base.answer));
      add(body, add(el('div', 'sides'), head, base));
    } else add(body, head);
    if (c.ev.length) {
      add(body, el('h4', null, 'Evaluators'));
      c.ev.forEach(function (e) {
        add(body, evaluator(e));
      });
    }
    return body;
  }

  function evaluator(e) {
    var box = el('div');
    add(
      box,
      add(
        el('p'),
        el('strong', null, e.name),
        el('span', 'muted', ' ' + e.type + ' '),
        verdictSpan(e.verdict),
        document.createTextNode(' ' + num(e.score)),
      ),
    );
    if (e.error) add(box, pre(e.error));
    if (e.checks && e.checks.length) {
      var t = el('table');
      add(
        t,
        add(
          el('tr'),
          el('th', null, 'criterion'),
          el('th', null, 'result'),
          el('th', null, 'judge\u2019s reason'),
        ),
      );
      e.checks.forEach(function (k) {
        var res =
          k.score !== undefined && k.score !== null ? k.score + '/10' : k.satisfied ? '✓ met' : '✗ not met';
        var crit = add(
          el('td'),
          el('code', null, k.id),
          document.createTextNode((k.text ? ' ' + k.text : '') + (k.required ? ' (required)' : '')),
        );
        add(
          t,
          add(
            el('tr'),
            crit,
            el('td', k.satisfied === false ? 'no' : null, res),
            el('td', null, k.reasoning || ''),
          ),
        );
      });
      add(box, t);
    }
    (e.hits || []).forEach(function (h) {
      add(box, el('div', 'ok', '+ ' + h));
    });
    (e.misses || []).forEach(function (m) {
      add(box, el('div', 'no', '− ' + m));
    });
    if (e.reasoning) add(box, el('p', 'muted', e.reasoning));
    (e.children || []).forEach(function (child) {
      var sub = evaluator(child);
      sub.className = 'body';
      add(box, sub);
    });
    return box;
  }

  // ---- filters and the lazily drawn list ----
  function hay(c) {
    if (c._hay === undefined)
      c._hay = [c.id, c.answer || '', c.error || '', c.why.join('\n'), data.suites[c.s].path]
        .join('\n')
        .toLowerCase();
    return c._hay;
  }
  function applyFilters() {
    var q = state.text.toLowerCase();
    state.list = cases.filter(function (c) {
      if (state.failing && !FAILING[c.verdict]) return false;
      if (state.changed && !(c.base && c.base.change !== 'same')) return false;
      return !q || hay(c).indexOf(q) !== -1;
    });
    state.shown = 0;
    var ol = document.getElementById('cases');
    while (ol.firstChild) ol.removeChild(ol.firstChild);
    more();
  }
  function more() {
    var ol = document.getElementById('cases');
    var end = Math.min(state.list.length, state.shown + CHUNK);
    var frag = document.createDocumentFragment();
    for (var i = state.shown; i < end; i++) frag.appendChild(caseItem(state.list[i], i));
    ol.appendChild(frag);
    state.shown = end;
    document.getElementById('more').hidden = state.shown >= state.list.length;
    document.getElementById('shown').textContent =
      state.list.length +
      ' of ' +
      cases.length +
      ' cases' +
      (state.shown < state.list.length ? ' (' + state.shown + ' drawn)' : '');
  }

  function wire() {
    var failing = document.getElementById('f-failing');
    var changed = document.getElementById('f-changed');
    var text = document.getElementById('f-text');
    if (!data.has_baseline) {
      changed.disabled = true;
      changed.parentNode.title = 'no baseline in this run';
    }
    failing.addEventListener('change', function () {
      state.failing = failing.checked;
      applyFilters();
    });
    changed.addEventListener('change', function () {
      state.changed = changed.checked;
      applyFilters();
    });
    var timer = null;
    text.addEventListener('input', function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(function () {
        state.text = text.value;
        applyFilters();
      }, 120);
    });
    document.getElementById('filters').addEventListener('submit', function (ev) {
      ev.preventDefault();
    });
    document.getElementById('more').addEventListener('click', more);
    // Draw more as the end of the list comes into view.
    if ('IntersectionObserver' in window) {
      new window.IntersectionObserver(function (entries) {
        if (entries[0].isIntersecting && state.shown < state.list.length) requestAnimationFrame(more);
      }).observe(document.getElementById('more'));
    }
    document.addEventListener('keydown', keys);
  }

  function keys(ev) {
    // Keys are letters only outside a text field (a focused checkbox still takes them).
    var typing =
      ev.target &&
      (ev.target.type === 'search' || ev.target.type === 'text' || ev.target.tagName === 'TEXTAREA');
    var text = document.getElementById('f-text');
    if (ev.key === 'Escape' && ev.target === text) {
      text.value = '';
      state.text = '';
      applyFilters();
      return;
    }
    if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === '/') {
      ev.preventDefault();
      text.focus();
    } else if (ev.key === 'j' || ev.key === 'k') {
      var all = document.querySelectorAll('#cases summary');
      var at = Array.prototype.indexOf.call(all, document.activeElement);
      var next = ev.key === 'j' ? at + 1 : Math.max(0, at - 1);
      if (next >= all.length && state.shown < state.list.length) {
        more();
        all = document.querySelectorAll('#cases summary');
      }
      if (all[next]) {
        ev.preventDefault();
        all[next].focus();
      }
    }
  }

  header();
  wire();
  more();
  document.body.dataset.ready = 'true';
})();
