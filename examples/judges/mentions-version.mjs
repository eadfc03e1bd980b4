#!/usr/bin/env node
// code_judge: release notes must name the version given in config.version.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const payload = JSON.parse(input);
const version = String(payload.config?.version ?? '');
const found = payload.candidate_answer.includes(version);
console.log(
  JSON.stringify({
    score: found ? 1 : 0,
    hits: found ? [`names version ${version}`] : [],
    misses: found ? [] : [`does not name version ${version}`],
  }),
);
