// A scripted OpenAI-compatible Chat Completions server on 127.0.0.1 for tests and the benchmark.
// It answers judge requests by reading the ids out of the request (the json_schema enum, or the
// "one per id: a, b" hint in fallback modes), so it works for any suite without a script, and it
// can be told to misbehave: latency, scripted replies, 429 with retry-after, 500s, malformed JSON,
// hangs, dropped connections, a request-rate quota, and a seeded chaos mix.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** Mulberry32: a tiny seeded PRNG so chaos runs are reproducible. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a judge request asks for: its mode and the ids it must answer. */
export function describeRequest(body) {
  const schema = body?.response_format?.json_schema?.schema;
  const text = (body?.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  if (schema?.properties) {
    const props = schema.properties;
    const item = props.checks?.items?.properties;
    const ids = item?.id?.enum ?? [];
    if (props.verdict) return { mode: 'markdown', ids, text };
    if (item?.score) return { mode: 'score_range', ids, text };
    if (props.checks) return { mode: 'checklist', ids, text };
    if (props.pass) return { mode: 'rubric', ids: [], text };
    if (props.score) return { mode: 'freeform', ids: [], text };
    return { mode: 'chat', ids: [], text };
  }
  const hint = /one per id: ([^\]]+)\]/.exec(text);
  const ids = hint
    ? hint[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
  if (/"verdict": "accept"\|"retry"\|"terminate"/.test(text)) return { mode: 'markdown', ids, text };
  if (/"score": <integer 0-10>/.test(text)) return { mode: 'score_range', ids, text };
  if (/"satisfied": true\|false/.test(text)) return { mode: 'checklist', ids, text };
  if (/"pass": true\|false/.test(text)) return { mode: 'rubric', ids: [], text };
  if (/"score": <number 0\.0-1\.0>/.test(text)) return { mode: 'freeform', ids: [], text };
  return { mode: 'chat', ids: [], text };
}

/** A valid, all-good answer for a request (every check satisfied, every score 10). */
export function defaultAnswer(desc) {
  switch (desc.mode) {
    case 'checklist':
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: `meets ${id}`, satisfied: true })),
        overall_reasoning: 'all met',
      };
    case 'score_range':
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: `excellent on ${id}`, score: 10 })),
        overall_reasoning: 'excellent',
      };
    case 'markdown':
      return {
        checks: desc.ids.map((id) => ({ id, reasoning: `${id} holds`, satisfied: true })),
        feedback: 'Looks good.',
        verdict: 'accept',
      };
    case 'freeform':
      return { reasoning: 'good answer', hits: ['covers the point'], misses: [], score: 1 };
    case 'rubric':
      return { reason: 'meets the rubric', pass: true, score: 1 };
    default:
      return null;
  }
}

const estimateTokens = (s) => Math.ceil(s.length / 4);

/**
 * The fake `/v1/embeddings`: each lower-cased word hashed into one of 64 dimensions, so texts
 * sharing words are close (cosine) and texts sharing none are orthogonal. Tests can pass `embed`.
 */
export function bagOfWords(text) {
  const v = new Array(64).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0;
    for (const ch of w) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
    v[h % 64] += 1;
  }
  if (v.every((x) => x === 0)) v[0] = 1;
  return v;
}

/**
 * @param {object} [options]
 * @param {number} [options.latencyMs] delay before every answer
 * @param {(req: {body: any, desc: any, index: number, headers: any}) => any} [options.respond]
 *   returns an answer object (sent as the message content), a string (sent as raw content), or a
 *   directive {status, headers?, body?} | {hang: true} | {drop: true} | {content: string}; undefined = default
 * @param {Array<any>} [options.script] directives consumed one per request before `respond`
 * @param {{seed: number, hangMs?: number}} [options.chaos]
 * @param {{perSecond: number, retryAfterSeconds?: number}} [options.rateLimit]
 * @param {(body: any) => any} [options.reject] return an error directive to refuse a request (e.g. unsupported params)
 * @param {(text: string) => number[]} [options.embed] the `/v1/embeddings` vector of a text (default: bagOfWords)
 */
export async function startOpenAIServer(options = {}) {
  const state = {
    requests: [],
    inFlight: 0,
    peakInFlight: 0,
    served: 0,
    statusCounts: {},
    promptTokens: 0,
    /** `performance.now()` when the first request arrived and when the last answer was sent. */
    firstRequestAt: null,
    lastAnswerAt: null,
  };
  const script = [...(options.script ?? [])];
  const random = options.chaos ? true : null;
  const bodyCounts = new Map();
  const sockets = new Set();
  let windowStart = Date.now();
  let windowCount = 0;

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      state.firstRequestAt ??= performance.now();
      state.inFlight++;
      state.peakInFlight = Math.max(state.peakInFlight, state.inFlight);
      const done = () => {
        state.inFlight--;
      };
      try {
        const index = state.requests.length;
        let body = {};
        try {
          body = JSON.parse(raw || '{}');
        } catch {
          /* a client bug; answered 400 below */
        }
        const record = { index, body, headers: req.headers, url: req.url, at: Date.now() };
        if (options.keepRequests !== false) state.requests.push(record);
        else state.requests.push({ index });
        if (/\/embeddings$/.test(req.url.split('?')[0])) {
          const inputs = Array.isArray(body.input) ? body.input : [body.input];
          const data = inputs.map((text, i) => ({
            object: 'embedding',
            index: i,
            embedding: (options.embed ?? bagOfWords)(String(text)),
          }));
          const tokens = inputs.reduce((n, t) => n + estimateTokens(String(t)), 0);
          return send(
            res,
            200,
            {
              object: 'list',
              model: body.model,
              data,
              usage: { prompt_tokens: tokens, total_tokens: tokens },
            },
            {},
            done,
          );
        }
        const responsesApi = /\/responses$/.test(req.url.split('?')[0]);
        if (!responsesApi && !/\/chat\/completions$/.test(req.url.split('?')[0]))
          return send(res, 404, { error: { message: 'not found' } }, {}, done);
        // The Responses API's `input` read as the chat's messages, so the rest of the script applies.
        if (responsesApi && Array.isArray(body.input)) body = { ...body, messages: body.input, responsesApi };

        if (options.rateLimit) {
          const now = Date.now();
          if (now - windowStart >= 1000) {
            windowStart = now;
            windowCount = 0;
          }
          if (windowCount >= options.rateLimit.perSecond) {
            const wait = Math.max(0.05, (1000 - (now - windowStart)) / 1000);
            return send(
              res,
              429,
              { error: { message: 'rate limited' } },
              { 'retry-after': String(options.rateLimit.retryAfterSeconds ?? wait.toFixed(3)) },
              done,
            );
          }
          windowCount++;
        }
        const rejection = options.reject?.(body);
        if (rejection) return directive(res, rejection, body, done);

        let d = script.length > 0 ? script.shift() : undefined;
        if (d === undefined && random) {
          // Each request body gets its own seeded stream (by content and by how often it was seen), so a
          // case's fate does not depend on the order in which concurrent requests happen to arrive.
          const h = fnv1a(raw);
          const seen = (bodyCounts.get(h) ?? 0) + 1;
          bodyCounts.set(h, seen);
          d = chaosDirective(seededRandom((options.chaos.seed ^ h) + 7919 * seen)(), options.chaos);
        }
        const desc = describeRequest(body);
        if (d === undefined && options.respond)
          d = await options.respond({ body, desc, index, headers: req.headers });
        if (typeof d === 'function') d = await d({ body, desc, index, headers: req.headers });
        if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
        directive(res, d, body, done, desc);
      } catch (err) {
        send(res, 500, { error: { message: String(err) } }, {}, done);
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  function directive(res, d, body, done, desc = describeRequest(body)) {
    if (d && typeof d === 'object' && d.hang) {
      // Never answer; the connection is closed when the client gives up or the server stops.
      res.on('close', done);
      return;
    }
    if (d && typeof d === 'object' && d.drop) {
      res.socket?.destroy();
      done();
      return;
    }
    if (d && typeof d === 'object' && typeof d.status === 'number') {
      return send(
        res,
        d.status,
        d.body ?? { error: { message: `scripted ${d.status}`, param: d.param ?? null } },
        d.headers ?? {},
        done,
      );
    }
    // A model's tool calls: `{message: {...}}` (Chat Completions) or `{output: [...]}` (Responses API).
    if (d && typeof d === 'object' && (d.message || d.output)) return sendModelTurn(res, d, body, done);
    let content;
    if (typeof d === 'string') content = d;
    else if (d && typeof d === 'object' && typeof d.content === 'string') content = d.content;
    else if (d && typeof d === 'object' && d.transform)
      content = JSON.stringify(d.transform(defaultAnswer(desc), desc));
    else if (d && typeof d === 'object') content = JSON.stringify(d);
    else {
      const a = defaultAnswer(desc);
      content = a === null ? `echo: ${lastUser(body)}` : JSON.stringify(a);
    }
    const turn = body.responsesApi
      ? {
          output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: content }] }],
        }
      : { message: { content } };
    sendModelTurn(res, turn, body, done, content);
  }

  function countPrompt(body) {
    const promptText = (body.messages ?? [])
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
      .join('\n');
    const prompt_tokens = estimateTokens(promptText);
    state.promptTokens += prompt_tokens;
    return prompt_tokens;
  }

  /** The model's answer: its message (text or tool calls), or Responses API output items; `text` is what is counted. */
  function sendModelTurn(res, d, body, done, text = JSON.stringify(d.message ?? d.output)) {
    const prompt_tokens = countPrompt(body);
    state.served++;
    const completion_tokens = estimateTokens(text);
    if (body.responsesApi || d.output) {
      const output = d.output ?? [];
      const text = output
        .filter((o) => o.type === 'message')
        .flatMap((o) => o.content.map((c) => c.text ?? ''))
        .join('');
      return send(
        res,
        200,
        {
          id: `resp_${state.served}`,
          object: 'response',
          status: 'completed',
          model: body.model ?? 'fake',
          output,
          output_text: text,
          usage: { input_tokens: prompt_tokens, output_tokens: completion_tokens },
        },
        {},
        done,
      );
    }
    const message = { role: 'assistant', content: null, ...d.message };
    send(
      res,
      200,
      {
        id: `chatcmpl-${state.served}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? 'fake',
        choices: [
          {
            index: 0,
            message,
            finish_reason: message.tool_calls || message.function_call ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
      },
      {},
      done,
    );
  }

  function send(res, status, payload, headers, done) {
    state.statusCounts[status] = (state.statusCounts[status] ?? 0) + 1;
    const text = JSON.stringify(payload);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text, done);
    state.lastAnswerAt = performance.now();
  }

  await new Promise((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    state,
    /** Answers queued for the next requests, in order. */
    push: (...directives) => script.push(...directives),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function lastUser(body) {
  const users = (body.messages ?? []).filter((m) => m.role === 'user');
  const c = users[users.length - 1]?.content;
  return typeof c === 'string' ? c.slice(0, 200) : '';
}

/** The chaos mix of issue 9: 20% 500, 10% 429, 5% malformed, 5% missing id, 2% hang, 1% drop. */
function chaosDirective(r, chaos) {
  if (r < 0.2) return { status: 500 };
  if (r < 0.3) return { status: 429, headers: { 'retry-after': String(chaos.retryAfterSeconds ?? 0.2) } };
  if (r < 0.35) return { content: '{"checks": [ this is not json' };
  if (r < 0.4)
    return { transform: (a) => (a && Array.isArray(a.checks) ? { ...a, checks: a.checks.slice(1) } : a) };
  if (r < 0.42) return { hang: true };
  if (r < 0.43) return { drop: true };
  return undefined;
}
