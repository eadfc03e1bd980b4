// The Checks API's part of the fake GitHub (kept apart from github-server.mjs): check runs
// created and updated, their annotations appended as GitHub appends them, batch by batch.

export function startChecks() {
  const state = { checkRuns: [] };

  /** Answers a check-run route; false when the request is not one. */
  function handle(req, url, res, json, body) {
    let m;
    if (/^\/repos\/([^/]+)\/([^/]+)\/check-runs$/.test(url.pathname) && req.method === 'POST') {
      const run = { id: 9000 + state.checkRuns.length, ...view(body), annotations: [], batches: [] };
      append(run, body);
      state.checkRuns.push(run);
      json(res, 201, summary(run));
      return true;
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/(\d+)$/.exec(url.pathname)) && req.method === 'PATCH') {
      const run = state.checkRuns.find((r) => r.id === Number(m[3]));
      if (!run) return (json(res, 404, { message: 'Not Found' }), true);
      Object.assign(run, view(body), { output: { ...run.output, ...view(body).output } });
      append(run, body);
      json(res, 200, summary(run));
      return true;
    }
    return false;
  }
  return { state, handle };
}

function view(body) {
  const { owner: _o, repo: _r, check_run_id: _c, ...rest } = body ?? {};
  if (rest.output) {
    const { annotations: _a, ...output } = rest.output;
    rest.output = output;
  }
  return rest;
}

function append(run, body) {
  const batch = body?.output?.annotations;
  if (Array.isArray(batch)) {
    run.batches.push(batch.length);
    run.annotations.push(...batch);
  }
}

function summary(run) {
  const { annotations: _a, batches: _b, ...rest } = run;
  return { ...rest, html_url: `https://github.com/o/r/runs/${run.id}` };
}
