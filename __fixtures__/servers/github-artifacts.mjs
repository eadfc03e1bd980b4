// The Actions artifacts part of the fake GitHub (kept apart from github-server.mjs): the list
// with Link-header pagination and the `name` filter, and the zip endpoint answering 302 to a
// storage server on another loopback origin, which records whether a token came along.
import http from 'node:http';

export async function startArtifacts(artifacts = []) {
  const state = { artifacts: [...artifacts], downloads: [] };
  const storage = http.createServer((req, res) => {
    const id = Number(/^\/blob\/(\d+)$/.exec(new URL(req.url, 'http://x').pathname)?.[1]);
    state.downloads.push({ id, authorization: req.headers.authorization ?? null });
    const a = state.artifacts.find((x) => x.id === id);
    if (!a) {
      res.writeHead(404);
      return res.end('no such blob');
    }
    const body = Buffer.from(a.zip ?? []);
    res.writeHead(200, { 'content-type': 'application/zip', 'content-length': body.length });
    res.end(body);
  });
  await new Promise((r) => storage.listen(0, '127.0.0.1', r));
  const storageUrl = `http://127.0.0.1:${storage.address().port}`;

  /** One page of the artifacts `keep` selects, with the `name` filter and a Link header to the next. */
  function listPage(req, url, res, json, keep) {
    const name = url.searchParams.get('name');
    const all = state.artifacts.filter((a) => keep(a) && (!name || a.name === name));
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const headers = {};
    if (page < last) {
      const next = new URL(`http://${req.headers.host}${url.pathname}`);
      if (name) next.searchParams.set('name', name);
      next.searchParams.set('per_page', String(perPage));
      next.searchParams.set('page', String(page + 1));
      headers.link = `<${next}>; rel="next"`;
    }
    const items = all.slice((page - 1) * perPage, page * perPage).map(({ zip: _zip, ...a }) => a);
    json(res, 200, { total_count: all.length, artifacts: items }, headers);
  }

  /** Answers an artifacts route; false when the request is not one. */
  function handle(req, url, res, json) {
    let m;
    if (req.method !== 'GET') return false;
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/artifacts$/.exec(url.pathname))) {
      listPage(req, url, res, json, () => true);
      return true;
    }
    // One run's artifacts (the trusted stage's record bundles), by `workflow_run.id`.
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)\/artifacts$/.exec(url.pathname))) {
      const run = Number(m[3]);
      listPage(req, url, res, json, (a) => a.workflow_run?.id === run);
      return true;
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/actions\/artifacts\/(\d+)\/zip$/.exec(url.pathname))) {
      const a = state.artifacts.find((x) => x.id === Number(m[3]));
      if (!a) json(res, 404, { message: 'Not Found' });
      else if (a.expired) json(res, 410, { message: 'Artifact has expired' });
      else {
        res.writeHead(302, { location: `${storageUrl}/blob/${a.id}` });
        res.end();
      }
      return true;
    }
    return false;
  }

  return {
    state,
    handle,
    storageUrl,
    close: () =>
      new Promise((r) => {
        storage.close(() => r());
        storage.closeAllConnections();
      }),
  };
}
