import { startOpenAIServer } from '../../__fixtures__/servers/openai-server.mjs';

/**
 * The fixture repository's judge: fails `names-paris` when the candidate answer does not name
 * Paris (saying so in its reasoning), meets every other checklist item, scores every range 9,
 * and accepts every criterion of a markdown rubric. Its verdicts depend only on the answer.
 */
export function startParisJudge() {
  return startOpenAIServer({
    respond: ({ desc }) => {
      const answer =
        /<<<CANDIDATE_ANSWER [0-9a-f]+ [^\n]*\n([\s\S]*?)\n<<<END CANDIDATE_ANSWER/.exec(desc.text)?.[1] ??
        '';
      const namesParis = /Paris/.test(answer);
      if (desc.mode === 'checklist')
        return {
          checks: desc.ids.map((id) => ({
            id,
            reasoning: id === 'names-paris' && !namesParis ? 'does not name Paris' : 'ok',
            satisfied: id !== 'names-paris' || namesParis,
          })),
          overall_reasoning: 'checked',
        };
      if (desc.mode === 'score_range')
        return {
          checks: desc.ids.map((id) => ({ id, reasoning: 'fine', score: 9 })),
          overall_reasoning: null,
        };
      if (desc.mode === 'markdown')
        return {
          checks: desc.ids.map((id) => ({ id, reasoning: `${id} holds`, satisfied: true })),
          feedback: 'All criteria hold.',
          verdict: 'accept',
        };
      return undefined;
    },
  });
}
