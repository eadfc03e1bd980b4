import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { ChatCaller } from '../../src/judge/chat.js';
import { AdaptiveLimiter } from '../../src/exec/limiter.js';

/** promptfoo's `openai:responses:<model>`: the same call through OpenAI's Responses API. */
test('an endpoint with api: responses is asked through /responses, its output_text the answer', async () => {
  const seen: { url: string; body: Record<string, unknown> }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', body: JSON.parse(raw) as Record<string, unknown> });
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'resp_1',
          object: 'response',
          status: 'completed',
          model: 'gpt-4.1-mini',
          output: [
            {
              type: 'message',
              id: 'msg_1',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'Paris', annotations: [] }],
            },
          ],
          usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const caller = new ChatCaller(
      { baseURL: url, apiKey: 'k', model: 'gpt-4.1-mini', azure: null, timeoutMs: 5000, api: 'responses' },
      new AdaptiveLimiter(1),
    );
    const r = await caller.create({
      messages: [{ role: 'user', content: 'Capital of France?' }],
      temperature: 0,
      maxTokens: 50,
    });
    expect(r).toMatchObject({ content: 'Paris', promptTokens: 12, completionTokens: 3 });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/v1/responses');
    expect(seen[0]!.body).toMatchObject({
      model: 'gpt-4.1-mini',
      input: [{ role: 'user', content: 'Capital of France?' }],
      temperature: 0,
      max_output_tokens: 50,
    });
  } finally {
    server.close();
  }
});
