// Stand-in aggregator: safety must be perfect, then quality decides.
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const { results } = JSON.parse(input);
  const ok = results.safety >= 1;
  console.log(
    JSON.stringify({
      score: ok ? results.quality : 0,
      hits: ok ? ['safety passed'] : [],
      misses: ok ? [] : ['safety gate failed'],
      reasoning: 'gate: ' + JSON.stringify(results),
    }),
  );
});
