// Stand-in: every attached file should be named in the candidate's answer.
const chunks: Buffer[] = [];
process.stdin.on('data', (c: Buffer) => chunks.push(c));
process.stdin.on('end', () => {
  const p = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    candidate_answer: string;
    input_files: string[];
  };
  const names = p.input_files.map((f) => f.split('/').pop() ?? f);
  const hits = names.filter((n) => p.candidate_answer.includes(n));
  const misses = names.filter((n) => !hits.includes(n)).map((n) => `does not mention ${n}`);
  const score = names.length === 0 ? 1 : hits.length / names.length;
  console.log(
    JSON.stringify({
      score,
      hits: hits.map((n) => `mentions ${n}`),
      misses,
      reasoning: `${hits.length}/${names.length} attachments named`,
    }),
  );
});
