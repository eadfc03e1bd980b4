#!/usr/bin/env node
// A stand-in for the app under test: "Acme Cloud" support bot. It answers from canned replies
// picked by keywords, the way a thin RAG bot would, and reports its token usage like a CLI agent.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    prompt: { type: 'string' },
    'eval-id': { type: 'string' },
    output: { type: 'string' },
    healthcheck: { type: 'boolean' },
  },
});
if (values.healthcheck) {
  console.log('support-bot ok');
  process.exit(0);
}

const prompt = (values.prompt ?? '').toLowerCase();
const replies = [
  [
    /refund/,
    'You can get a full refund within 30 days of purchase. Open Billing → Invoices, choose the invoice and click "Request refund"; the money is back on your card in 5-10 business days. Sorry for the trouble, and let me know if anything is unclear!',
  ],
  [
    /password/,
    'To reset your password, click "Forgot password" on the sign-in page and follow the link we email you. Then choose a new password.',
  ],
  [
    /outage|down/,
    'We are sorry: the EU region had an outage from 09:12 to 09:47 UTC today, caused by a failed database failover. All services are back and no data was lost.',
  ],
  [
    /summari[sz]e/,
    'Customer cannot export invoices as PDF since the 2.3 update; workaround is CSV export; engineering ticket BILL-482 is open and the fix ships Friday.',
  ],
  [
    /release notes/,
    'Acme Cloud 2.4 is out! Highlights: faster dashboards (up to 3x), PDF invoice export is fixed, and you can now rotate API keys without downtime. Thanks for your patience while we got this right.',
  ],
];
const text =
  replies.find(([re]) => re.test(prompt))?.[1] ?? "I'm not sure; let me connect you with a human agent.";
const answer = {
  text,
  token_usage: { input: Math.ceil(prompt.length / 4), output: Math.ceil(text.length / 4) },
};
if (values.output) writeFileSync(values.output, JSON.stringify(answer));
else console.log(text);
