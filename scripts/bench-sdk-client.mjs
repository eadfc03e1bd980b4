#!/usr/bin/env node
// The second reference of the `scale` and `floor` bench scenarios: the `openai` client the engine
// keeps (its error classes, retries and Azure paths are part of what a judge call is), over the
// engine's own transport, making the same calls with nothing of the engine around it: what the
// SDK alone costs. Like the bare client, it parses each body from its line. The bench bundles it
// with ncc, as the engine is bundled, and runs the bundle:
//
//   node <bundle> <base-url> <bodies.jsonl> <concurrency> [ours|undici]
//
// `undici`: the same over the candidate transport (scripts/bench-undici-transport.ts).
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';

const [baseUrl, bodiesFile, concurrencyArg, transportArg = 'ours'] = process.argv.slice(2);
const lines = readFileSync(bodiesFile, 'utf8').split('\n').filter(Boolean);
const concurrency = Number(concurrencyArg);
// Each evaluated only when chosen (kept in the one bundle), so neither reference pays for the other.
const transport =
  transportArg === 'undici'
    ? new (await import(/* webpackMode: "eager" */ './bench-undici-transport.ts')).UndiciTransport(
        concurrency,
      )
    : new (await import(/* webpackMode: "eager" */ '../src/judge/transport.ts')).Transport(concurrency);
const client = new OpenAI({ baseURL: baseUrl, apiKey: 'bench-key', maxRetries: 0, fetch: transport.fetch });

let next = 0;
let done = 0;
async function worker() {
  while (next < lines.length) {
    const body = JSON.parse(lines[next++]);
    // The engine gives each attempt its own signal (see ChatCaller); so does this.
    const answer = await client.chat.completions.create(body, { signal: new AbortController().signal });
    if (answer.choices?.[0]?.message) done++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
transport.close();
console.log(JSON.stringify({ done }));
