import {
  ANNOTATIONS_PER_REQUEST,
  type CheckAnnotation,
  type checkConclusion,
  type checkRunOutput,
} from '../report/check-run.js';
import { describeError, untilCancelled } from './call-outcome.js';
import { type Octokit, type Repo } from './client.js';

/** A check run as the action reports it: everything rendered, nothing left to decide here. */
export interface CheckRunReport {
  name: string;
  sha: string;
  conclusion: ReturnType<typeof checkConclusion>;
  output: ReturnType<typeof checkRunOutput>;
  annotations: CheckAnnotation[];
  detailsUrl: string | null;
}

/**
 * Creates the check run with the first 50 annotations, adds the rest 50 at a time by `PATCH`, and
 * completes it with its conclusion on the last request. A refusal is a warning (a 403 names the
 * `checks: write` permission); the verdict still decides the step. Returns the check run's id,
 * or null when GitHub did not create it.
 */
export async function publishCheckRun(
  octokit: Octokit,
  repo: Repo,
  r: CheckRunReport,
  o: { warn: (m: string) => void; signal: AbortSignal },
): Promise<number | null> {
  const batches: CheckAnnotation[][] = [];
  for (let i = 0; i < r.annotations.length; i += ANNOTATIONS_PER_REQUEST)
    batches.push(r.annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
  const { title, summary, text } = r.output;
  const done = { status: 'completed' as const, conclusion: r.conclusion };
  const request = { signal: o.signal };
  let id: number;
  try {
    const created = await untilCancelled(
      octokit.rest.checks.create({
        ...repo,
        name: r.name,
        head_sha: r.sha,
        ...(r.detailsUrl ? { details_url: r.detailsUrl } : {}),
        // With one batch or none, the create is the whole check run.
        ...(batches.length <= 1 ? done : { status: 'in_progress' as const }),
        output: { title, summary, text, annotations: batches[0] ?? [] },
        request,
      }),
      o.signal,
    );
    id = created.data.id;
  } catch (err) {
    o.warn(refusal(err, `could not create the check run on ${r.sha.slice(0, 7)}`));
    return null;
  }
  for (let b = 1; b < batches.length; b++) {
    const last = b === batches.length - 1;
    try {
      await untilCancelled(
        octokit.rest.checks.update({
          ...repo,
          check_run_id: id,
          ...(last ? done : {}),
          output: { title, summary, ...(last ? { text } : {}), annotations: batches[b]! },
          request,
        }),
        o.signal,
      );
    } catch (err) {
      o.warn(refusal(err, `could not add annotations ${b * ANNOTATIONS_PER_REQUEST + 1}+ to the check run`));
      // The run must not stay in progress: complete it without the batches left.
      if (!last) await complete(octokit, repo, id, { ...done, output: { title, summary, text } }, o);
      return id;
    }
  }
  return id;
}

async function complete(
  octokit: Octokit,
  repo: Repo,
  id: number,
  body: {
    status: 'completed';
    conclusion: CheckRunReport['conclusion'];
    output: { title: string; summary: string; text: string };
  },
  o: { warn: (m: string) => void; signal: AbortSignal },
): Promise<void> {
  try {
    await untilCancelled(
      octokit.rest.checks.update({ ...repo, check_run_id: id, ...body, request: { signal: o.signal } }),
      o.signal,
    );
  } catch (err) {
    o.warn(refusal(err, 'could not complete the check run'));
  }
}

function refusal(err: unknown, what: string): string {
  const code = (err as { status?: number }).status;
  return code === 403
    ? `GitHub refused the check run (HTTP 403): grant the workflow \`permissions: checks: write\` (a pull request from a fork gets a read-only token). The verdict still decides the step.`
    : `${what}: ${describeError(err)}. The verdict still decides the step.`;
}
