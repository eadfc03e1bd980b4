// The fake model and grader of examples/promptfoo/parity, shared by scripts/promptfoo-parity.mjs
// (which serves both promptfoo and rubric-eval) and by the e2e test that runs the examples without
// promptfoo. Each grader family below recognises its prompt as either tool words it (promptfoo's
// own prompt, or rubric-eval's, whose system message states the answer's shape) and answers in
// that tool's format from markers the examples put in their vars and values, so both tools are
// told the same decision.
//
// Adding a prompt family: write one function `(text) => string | undefined` that returns undefined
// unless `text` is its prompt, and add it to FAMILIES. `text` is every message of the request,
// joined with newlines.

/** Lower-cased words of a text, as the relevance rules compare them. */
const words = (s) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** A text's sentences: one per line when it has several lines, else split after `.`, `!`, `?`. */
export function sentences(s) {
  const lines = s.split('\n').filter((l) => l.trim() !== '');
  return (lines.length > 1 ? lines : s.split(/(?<=[.!?])\s+/)).map((x) => x.trim()).filter(Boolean);
}

/** rubric-eval's fenced text labelled `label` (see src/judge/fence.ts), or undefined. */
function fenced(text, label) {
  const m = new RegExp(`<<<${label} ([0-9a-f]+) \\([^)]*\\)>>>\\n([\\s\\S]*?)\\n<<<END ${label} \\1>>>`).exec(
    text,
  );
  return m?.[2];
}

/** The text between the last `start` and the `end` after it (else the text's end). */
function after(text, start, end) {
  const i = text.lastIndexOf(start);
  if (i < 0) return '';
  const rest = text.slice(i + start.length);
  const j = end ? rest.indexOf(end) : -1;
  return (j < 0 ? rest : rest.slice(0, j)).trim();
}

/** A statement or sentence is supported when the context holds it word for word. */
const supports = (context, s) => context.toLowerCase().includes(s.toLowerCase().replace(/[.!?]+$/, ''));

/** rubric-eval's step, by the answer shape its system message names (src/judge/model-graded-schemas.ts). */
const ours = (text, shape) => text.includes(`Answer with one JSON object of this shape: ${shape}`);

const json = (v) => JSON.stringify(v);

/** llm-rubric: `score:<s>` in the rubric sets the score (default 1); the word `fail` fails it. */
function llmRubric(text) {
  const rubric =
    /\[\[ ## rubric ## \]\]\n([\s\S]*)$/.exec(text)?.[1] ??
    // promptfoo's grader prompt shows example rubrics first: the last <Rubric> is the one asked.
    [...text.matchAll(/<Rubric>([\s\S]*?)<\/Rubric>/g)].at(-1)?.[1];
  if (rubric === undefined) return undefined;
  const score = Number(/score:([0-9.]+)/.exec(rubric)?.[1] ?? '1');
  return json({ reason: `rubric scored ${score}`, pass: !/\bfail\b/.test(rubric), score });
}

/** factuality: the category is `cat:<A-E>` in the reference (default C); both tools read this JSON. */
function factuality(text) {
  if (!text.includes('<expert_answer>') && !ours(text, '{"reason": "<1-2 sentences>", "category"'))
    return undefined;
  const category = /\bcat:([A-E])\b/.exec(text)?.[1] ?? 'C';
  return json({ category, reason: `category ${category}` });
}

/** model-graded-closedqa: the criterion is met unless it says `meets:no`. */
function closedQa(text) {
  const meets = !/\bmeets:no\b/.test(text);
  if (text.includes('Does the submission meet the criterion?'))
    return `The criterion was weighed step by step.\n${meets ? 'Y' : 'N'}`;
  if (ours(text, '{"reason": "<1-2 sentences>", "meets_criterion"'))
    return json({ reason: meets ? 'meets it' : 'misses it', meets_criterion: meets });
  return undefined;
}

/** g-eval, first step: one evaluation step, in the JSON both tools read. */
function gEvalSteps(text) {
  if (!text.includes('generate 3-4 concise evaluation steps') && !ours(text, '{"steps": [')) return undefined;
  return json({ steps: ['Check the reply against the criteria'] });
}

/** g-eval, second step: the score out of 10 is `geval:<n>` in the criteria (default 10). */
function gEvalScore(text) {
  if (
    !text.includes('**Evaluation Steps**') &&
    !ours(text, '{"reason": "<1-2 sentences>", "score": <integer 0-10>}')
  )
    return undefined;
  const score = Number(/\bgeval:(\d+)/.exec(text)?.[1] ?? '10');
  return json({ score, reason: `meets the criteria ${score} of 10` });
}

/** answer-relevance: the question the answer answers is the answer itself (promptfoo asks three times). */
function answerRelevance(text) {
  if (text.startsWith('Generate question for the given answer.'))
    return after(text, 'Answer:', '\nQuestion:');
  if (!ours(text, '{"questions": [')) return undefined;
  const answer = fenced(text, 'ANSWER') ?? '';
  return json({ questions: [answer, answer, answer] });
}

/** context-faithfulness, first step: the answer's sentences are its statements. */
function faithfulnessStatements(text) {
  if (text.includes('create one or more statements from each sentence in the given answer'))
    return sentences(after(text, '\nanswer: ', '\nstatements:')).join('\n');
  if (!ours(text, '{"statements": [')) return undefined;
  return json({ statements: sentences(fenced(text, 'ANSWER') ?? '') });
}

/** context-faithfulness, second step: a statement is supported when the context holds it. */
function faithfulnessVerdicts(text) {
  if (text.includes('Prompt: Natural language inference')) {
    const context = after(text, '\ncontext:\n', '\nstatements:');
    const statements = after(text, '\nstatements:\n', '\nAnswer:').split('\n').filter(Boolean);
    const verdicts = statements.map((s) => (supports(context, s) ? 'Yes' : 'No'));
    const lines = statements.map((s, i) => `${i + 1}. ${s}\nExplanation: checked. Verdict: ${verdicts[i]}.`);
    return `${lines.join('\n')}\nFinal verdict for each statement in order: ${verdicts.join('. ')}.`;
  }
  if (!ours(text, '{"verdicts": [')) return undefined;
  const context = fenced(text, 'CONTEXT') ?? '';
  const statements = (fenced(text, 'STATEMENTS') ?? '').split('\n').map((s) => s.replace(/^\d+\.\s*/, ''));
  return json({ verdicts: statements.map((s) => ({ reason: 'checked', supported: supports(context, s) })) });
}

/** context-relevance: a sentence is relevant when it shares a word of 4+ letters with the query. */
function contextRelevance(text) {
  const relevant = (query, s) => {
    const q = new Set(words(query).filter((w) => w.length >= 4));
    return words(s).some((w) => q.has(w));
  };
  if (text.includes('Please extract relevant sentences from the provided context')) {
    const query = after(text, '\nquery: ', '\ncontext: ');
    const found = sentences(after(text, '\ncontext: ', '\ncandidate sentences:')).filter((s) =>
      relevant(query, s),
    );
    return found.length > 0 ? found.join('\n') : 'Insufficient Information';
  }
  if (!ours(text, '{"reason": "<1-2 sentences>", "relevant_lines"')) return undefined;
  const query = after(text, '[Query]\n', '\n\n[Context]');
  const lines = (fenced(text, 'CONTEXT') ?? '').split('\n');
  const numbers = lines.flatMap((l) => {
    const m = /^(\d+)\.\s*(.*)$/.exec(l);
    return m && relevant(query, m[2]) ? [Number(m[1])] : [];
  });
  return json({ reason: 'shares words with the query', relevant_lines: numbers });
}

/** context-recall: a sentence of the reference is attributed when the context holds it. */
function contextRecall(text) {
  if (text.includes('analyze each sentence in the answer and classify')) {
    const context = after(text, '\ncontext:', '\nanswer:');
    const truth = sentences(after(text, '\nanswer:', '\nclassification:'));
    return truth
      .map((s, i) => `${i + 1}. ${s} So ${supports(context, s) ? '[Attributed]' : '[Not Attributed]'}`)
      .join('\n');
  }
  if (!ours(text, '{"sentences": [{"sentence"')) return undefined;
  const context = fenced(text, 'CONTEXT') ?? '';
  const truth = sentences(after(text, '[Reference answer]\n', null));
  return json({
    sentences: truth.map((sentence) => ({ sentence, attributed: supports(context, sentence) })),
  });
}

/** conversation-relevance: the last reply of a window is irrelevant when it says `off-topic`. */
function conversationRelevance(text) {
  if (text.includes('whether the LAST `assistant` message is relevant')) {
    const messages = JSON.parse(after(text, '\nMessages:\n', '\n\nJSON:'));
    const last = messages.filter((m) => m.role === 'assistant').at(-1)?.content ?? '';
    return json(
      last.includes('off-topic') ? { verdict: 'no', reason: `"${last}" is off-topic` } : { verdict: 'yes' },
    );
  }
  if (!ours(text, '{"reason": "<1-2 sentences>", "verdict": "yes"|"no"}')) return undefined;
  const last =
    (fenced(text, 'MESSAGES') ?? '')
      .split('\n')
      .filter((l) => l.startsWith('assistant: '))
      .at(-1) ?? '';
  const off = last.includes('off-topic');
  return json({ reason: off ? `"${last.slice(11)}" is off-topic` : 'relevant', verdict: off ? 'no' : 'yes' });
}

/** promptfoo's summary of a conversation's irrelevancies (its reason only). */
function conversationReason(text) {
  if (!text.includes('Below is a list of irrelevancies')) return undefined;
  return json({ reason: 'some replies were off-topic' });
}

/** The grader's prompt families; the first that recognises a request answers it. */
/**
 * select-best in either grader prompt (promptfoo's `<Text index>` list, answered with a bare
 * number; rubric-eval's fenced `[Answer i]` list, answered with JSON): the longest text, the
 * first of the longest.
 */
function selectBest(text) {
  const pf = [...text.matchAll(/<Text index="(\d+)">\n([\s\S]*?)\n<\/Text>/g)];
  const ours = [...text.matchAll(/\[Answer (\d+)\]\n<<<ANSWER_\d+ [^\n]*\n([\s\S]*?)\n<<<END ANSWER_/g)];
  const list = pf.length > 0 ? pf : ours;
  if (list.length === 0) return undefined;
  const best = list.reduce((b, m) => (m[2].length > b[2].length ? m : b));
  return pf.length > 0 ? best[1] : JSON.stringify({ reason: 'the longest', best: Number(best[1]) });
}

export const FAMILIES = [
  selectBest,
  llmRubric,
  factuality,
  closedQa,
  gEvalSteps,
  gEvalScore,
  answerRelevance,
  faithfulnessStatements,
  faithfulnessVerdicts,
  contextRelevance,
  contextRecall,
  conversationRelevance,
  conversationReason,
];

/** The fake model: a prompt holding `Reply with: <text>` is answered <text> (JSON escapes read). */
function modelAnswer(text) {
  const m = /Reply with: (.*)$/m.exec(text);
  if (!m) return 'no instruction';
  try {
    return JSON.parse(`"${m[1]}"`);
  } catch {
    return m[1];
  }
}

/** What the fake endpoint answers to a chat request's text: a grader family's answer, else the model's. */
export function fakeReply(text) {
  for (const family of FAMILIES) {
    const reply = family(text);
    if (reply !== undefined) return reply;
  }
  return modelAnswer(text);
}
