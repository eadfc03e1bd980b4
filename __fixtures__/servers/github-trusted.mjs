// The trusted stage's part of the fake GitHub (kept apart from github-server.mjs): pull requests
// by number, by commit (`commits/{sha}/pulls`, open and closed alike, as GitHub answers) and by
// head (`pulls?head=owner:branch`), and commit statuses. A pull request with `linked: false` is
// not returned for its commit, as GitHub does not always link a fork's commit.

export function startTrusted(pulls = []) {
  const state = { pulls: [...pulls], statuses: [] };
  const view = ({ diff: _d, files: _f, linked: _l, ...p }) => ({ state: 'open', ...p });

  /** Answers a trusted-stage route; false when the request is not one. */
  function handle(req, url, res, json, body) {
    let m;
    if (
      (m = /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([0-9a-f]+)$/i.exec(url.pathname)) &&
      req.method === 'POST'
    ) {
      const status = { sha: m[3], ...body };
      state.statuses.push(status);
      json(res, 201, { id: state.statuses.length, ...status });
      return true;
    }
    if (req.method !== 'GET') return false;
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/commits\/([0-9a-f]+)\/pulls$/i.exec(url.pathname))) {
      json(res, 200, state.pulls.filter((p) => p.head.sha === m[3] && p.linked !== false).map(view));
      return true;
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(url.pathname))) {
      const head = url.searchParams.get('head');
      const wanted = url.searchParams.get('state') ?? 'open';
      const list = state.pulls.filter(
        (p) => (!head || p.head.label === head) && (wanted === 'all' || (p.state ?? 'open') === wanted),
      );
      json(res, 200, list.map(view));
      return true;
    }
    const byNumber = (n) => state.pulls.find((p) => p.number === Number(n));
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/files$/.exec(url.pathname)) && byNumber(m[3])) {
      json(res, 200, byNumber(m[3]).files ?? []);
      return true;
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(url.pathname)) && byNumber(m[3])) {
      const p = byNumber(m[3]);
      if ((req.headers.accept ?? '').includes('diff')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(p.diff ?? '');
      } else json(res, 200, view(p));
      return true;
    }
    return false;
  }
  return { state, handle };
}
