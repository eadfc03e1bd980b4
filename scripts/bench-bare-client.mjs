#!/usr/bin/env node
// The reference for the `scale` bench scenario: the least a program can do to make the same judge
// calls: a node:http keep-alive client with `concurrency` requests in flight, POSTing each case's
// request body and parsing the JSON answer. No SDK, no validation, no results.
//
//   node scripts/bench-bare-client.mjs <base-url> <bodies.jsonl> <concurrency>
import http from 'node:http';
import { readFileSync } from 'node:fs';

const [baseUrl, bodiesFile, concurrencyArg] = process.argv.slice(2);
const bodies = readFileSync(bodiesFile, 'utf8').split('\n').filter(Boolean);
const concurrency = Number(concurrencyArg);
const url = new URL(`${baseUrl.replace(/\/$/, '')}/chat/completions`);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function call(body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let next = 0;
let done = 0;
async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++];
    const answer = await call(body);
    if (answer.choices?.[0]?.message) done++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
agent.destroy();
console.log(JSON.stringify({ done }));
