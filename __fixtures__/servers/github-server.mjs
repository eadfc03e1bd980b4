// A fake GitHub REST API on 127.0.0.1 for the action's end-to-end tests: issue comments (with
// real Link-header pagination), pull request metadata, diff and files. Failures can be scripted
// per route (e.g. 502 twice, or 403 for a read-only fork token).
import http from 'node:http';
import { startArtifacts } from './github-artifacts.mjs';
import { startTrusted } from './github-trusted.mjs';
import { startChecks } from './github-checks.mjs';

export async function startGitHubServer(options = {}) {
  const state = {
    comments: [...(options.comments ?? [])],
    requests: [],
    nextId: 1000,
    failures: [...(options.failures ?? [])], // {method, path: RegExp, status, times}
    // --- PR surface (identity, ownership, races, bounded calls); see surfaceScript below ---
    script: [...(options.script ?? [])],
    users: { ...(options.users ?? {}) },
    pages: options.pages ?? 'normal',
  };
  const pr = options.pullRequest ?? {
    number: 7,
    title: 'Add search',
    body: 'Implements search',
    diff: '',
    files: [],
  };

  // ---- Actions artifacts (github-artifacts.mjs) ----
  const artifacts = await startArtifacts(options.artifacts ?? []);
  state.artifacts = artifacts.state;
  // ---- end of artifacts ----
  // ---- trusted stage: pull requests by commit and head, commit statuses (github-trusted.mjs) ----
  const trusted = startTrusted(options.pulls ?? []);
  state.trusted = trusted.state;
  // ---- check runs (github-checks.mjs) ----
  const checks = startChecks();
  state.checks = checks.state;

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const step = surfaceScript(state, req, raw);
      if (step?.hang) return state.requests.push(recordOf(req, raw));
      if (step) held(step, respond);
      else respond();
    });
    function respond() {
      const url = new URL(req.url, 'http://x');
      const record = {
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: raw ? safeJson(raw) : null,
      };
      state.requests.push(record);
      const failure = state.failures.find(
        (f) => f.method === req.method && f.path.test(url.pathname) && f.times > 0,
      );
      if (failure) {
        failure.times--;
        return json(res, failure.status, { message: failure.message ?? `scripted ${failure.status}` });
      }
      if (trusted.handle(req, url, res, json, record.body)) return;
      if (checks.handle(req, url, res, json, record.body)) return;
      let m;
      if ((m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname))) {
        const issue = Number(m[3]);
        if (req.method === 'GET') {
          const all = state.comments.filter((c) => c.issue === issue);
          const perPage = Number(url.searchParams.get('per_page') ?? 30);
          const page = Number(url.searchParams.get('page') ?? 1);
          const items = all.slice((page - 1) * perPage, page * perPage);
          const last = Math.max(1, Math.ceil(all.length / perPage));
          const headers = {};
          const nextPage = surfaceNextPage(state.pages, page, last);
          if (nextPage !== null) {
            const next = new URL(`http://${req.headers.host}${url.pathname}`);
            next.searchParams.set('per_page', String(perPage));
            next.searchParams.set('page', String(nextPage));
            headers.link = `<${next}>; rel="next"`;
          }
          return json(
            res,
            200,
            (state.pages === 'normal' ? items : all.slice(0, perPage)).map(view),
            headers,
          );
        }
        if (req.method === 'POST') {
          const c = {
            id: state.nextId++,
            issue,
            body: record.body.body,
            user: tokenUser(state, req),
          };
          state.comments.push(c);
          return json(res, 201, view(c));
        }
      }
      if (
        (m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname)) &&
        req.method === 'PATCH'
      ) {
        const c = state.comments.find((x) => x.id === Number(m[3]));
        if (!c) return json(res, 404, { message: 'Not Found' });
        // As on GitHub, a token that can write issues may edit anyone's comment.
        c.body = record.body.body;
        return json(res, 200, view(c));
      }
      if (
        (m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname)) &&
        req.method === 'GET'
      ) {
        const c = state.comments.find((x) => x.id === Number(m[3]));
        if (!c) return json(res, 404, { message: 'Not Found' });
        return json(res, 200, view(c));
      }
      if (
        (m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname)) &&
        req.method === 'DELETE'
      ) {
        const at = state.comments.findIndex((x) => x.id === Number(m[3]));
        if (at < 0) return json(res, 404, { message: 'Not Found' });
        state.comments.splice(at, 1);
        res.writeHead(204);
        return res.end();
      }
      if (url.pathname === '/user' && req.method === 'GET') {
        const token = bearer(req);
        const user = state.users[token];
        if (!user) return json(res, 403, { message: 'Resource not accessible by integration' });
        return json(res, 200, user);
      }
      if ((m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/files$/.exec(url.pathname))) {
        return json(res, 200, pr.files);
      }
      if ((m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(url.pathname))) {
        if ((req.headers.accept ?? '').includes('diff')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end(pr.diff);
        }
        return json(res, 200, {
          number: pr.number,
          title: pr.title,
          body: pr.body,
          head: { sha: 'abc1234' },
        });
      }
      // Repository contents, raw: options.files is {'owner/repo@ref:path': text}; ETags as GitHub sends them.
      if ((m = /^\/repos\/([^/]+)\/([^/]+)\/contents\/(.+)$/.exec(url.pathname)) && req.method === 'GET') {
        const key = `${m[1]}/${m[2]}@${url.searchParams.get('ref')}:${decodeURIComponent(m[3])}`;
        const text = (options.files ?? {})[key];
        if (text !== undefined) {
          const etag = `"${Buffer.from(key + text)
            .toString('base64url')
            .slice(-20)}"`;
          if (req.headers['if-none-match'] === etag) {
            res.writeHead(304, { etag });
            return res.end();
          }
          res.writeHead(200, { 'content-type': 'application/vnd.github.raw', etag });
          return res.end(text);
        }
      }
      if (artifacts.handle(req, url, res, json)) return;
      json(res, 404, { message: `Not Found: ${req.method} ${url.pathname}` });
    }
  });

  function view(c) {
    return {
      id: c.id,
      body: c.body,
      user: c.user,
      html_url: `https://github.com/o/r/pull/${c.issue}#issuecomment-${c.id}`,
    };
  }
  function json(res, status, payload, headers = {}) {
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  }
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: async () => {
      await new Promise((r) => {
        server.close(() => r());
        // A scripted hang holds its connection open; closing must not wait for it.
        server.closeAllConnections();
      });
      await artifacts.close();
    },
  };
}

// --- PR surface: who a token is, scripted delays and hangs, broken pagination ---

function bearer(req) {
  return String(req.headers.authorization ?? '').replace(/^(token|bearer) /i, '');
}

/** The author of what a token writes: a user from `users`, else the workflow token's bot. */
function tokenUser(state, req) {
  return state.users[bearer(req)] ?? { login: 'github-actions[bot]', type: 'Bot' };
}

/**
 * Scripted behaviour per request: `{method, path: RegExp, body?: RegExp, times, hang?: true,
 * until?: () => boolean, delayMs?: n}`. A hang never answers; otherwise the request is held
 * until `until()` holds (when given), then `delayMs`, then answered normally.
 */
function surfaceScript(state, req, raw) {
  const pathname = new URL(req.url, 'http://x').pathname;
  const step = state.script.find(
    (f) => f.method === req.method && f.path.test(pathname) && (!f.body || f.body.test(raw)) && f.times > 0,
  );
  if (step) step.times--;
  return step ?? null;
}

function held(step, respond) {
  const later = () => setTimeout(respond, step.delayMs ?? 0);
  if (!step.until || step.until()) return later();
  const poll = setInterval(() => {
    if (!step.until()) return;
    clearInterval(poll);
    later();
  }, 10);
}

function recordOf(req, raw) {
  const url = new URL(req.url, 'http://x');
  return {
    method: req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    body: raw ? safeJson(raw) : null,
  };
}

/** `normal`: pages end; `loop`: the next link always names page 2; `endless`: it never ends. */
function surfaceNextPage(mode, page, last) {
  if (mode === 'loop') return 2;
  if (mode === 'endless') return page + 1;
  return page < last ? page + 1 : null;
}

function safeJson(s) {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
