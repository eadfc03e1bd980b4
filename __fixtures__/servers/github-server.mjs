// A fake GitHub REST API on 127.0.0.1 for the action's end-to-end tests: issue comments (with
// real Link-header pagination), pull request metadata, diff and files. Failures can be scripted
// per route (e.g. 502 twice, or 403 for a read-only fork token).
import http from 'node:http';
import { startArtifacts } from './github-artifacts.mjs';

export async function startGitHubServer(options = {}) {
  const state = {
    comments: [...(options.comments ?? [])],
    requests: [],
    nextId: 1000,
    failures: [...(options.failures ?? [])], // {method, path: RegExp, status, times}
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

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
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
          if (page < last) {
            const next = new URL(`http://${req.headers.host}${url.pathname}`);
            next.searchParams.set('per_page', String(perPage));
            next.searchParams.set('page', String(page + 1));
            headers.link = `<${next}>; rel="next"`;
          }
          return json(res, 200, items.map(view), headers);
        }
        if (req.method === 'POST') {
          const c = {
            id: state.nextId++,
            issue,
            body: record.body.body,
            user: { login: 'github-actions[bot]', type: 'Bot' },
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
        c.body = record.body.body;
        return json(res, 200, view(c));
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
    });
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
      await new Promise((r) => server.close(() => r()));
      await artifacts.close();
    },
  };
}

function safeJson(s) {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
