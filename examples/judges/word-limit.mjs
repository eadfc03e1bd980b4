#!/usr/bin/env node
// code_judge: the answer must stay within config.max_words words (default 40).
// Reads AgentV's code_judge payload on stdin, prints {score, hits, misses, reasoning}.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const payload = JSON.parse(input);
const max = Number(payload.config?.max_words ?? 40);
const words = payload.candidate_answer.trim().split(/\s+/).filter(Boolean).length;
const ok = words <= max;
console.log(
  JSON.stringify({
    score: ok ? 1 : Math.max(0, 1 - (words - max) / max),
    hits: ok ? [`${words} words (limit ${max})`] : [],
    misses: ok ? [] : [`${words} words, over the limit of ${max}`],
    reasoning: `${words}/${max} words`,
  }),
);
