export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user?: { login: string; type: string };
}
export interface FakeGitHub {
  url: string;
  state: {
    comments: FakeComment[];
    requests: {
      method: string;
      path: string;
      query: Record<string, string>;
      headers: Record<string, unknown>;
      body: any;
    }[];
    failures: { method: string; path: RegExp; status: number; times: number; message?: string }[];
    /** The artifacts part (github-artifacts.mjs): what it serves and every zip download. */
    artifacts: { artifacts: FakeArtifact[]; downloads: { id: number; authorization: string | null }[] };
    script: SurfaceStep[];
    users: Record<string, FakeUser>;
    pages: 'normal' | 'loop' | 'endless';
    /** The trusted stage's part (github-trusted.mjs): pull requests served and every status set. */
    trusted: { pulls: FakePull[]; statuses: FakeStatus[] };
    /** The Checks API's part (github-checks.mjs): every check run, its annotations and batch sizes. */
    checks: { checkRuns: FakeCheckRun[] };
  };
  close(): Promise<void>;
}
export function startGitHubServer(options?: {
  comments?: FakeComment[];
  failures?: { method: string; path: RegExp; status: number; times: number; message?: string }[];
  artifacts?: FakeArtifact[];
  pullRequest?: { number: number; title: string; body: string; diff: string; files: unknown[] };
  /** Repository contents served raw: {'owner/repo@ref:path': text}. */
  files?: Record<string, string>;
  /** PR surface: per-request hangs and delays, matched by method, path and body. */
  script?: SurfaceStep[];
  /** PR surface: who each token is (`GET /user`, comment authors); others are the workflow bot. */
  users?: Record<string, FakeUser>;
  /** PR surface: `loop` repeats the same next link, `endless` never ends. */
  pages?: 'normal' | 'loop' | 'endless';
  /** Trusted stage: pull requests by number, by commit and by `head=owner:branch`. */
  pulls?: FakePull[];
}): Promise<FakeGitHub>;
export interface FakePull {
  number: number;
  title: string;
  body: string | null;
  state?: 'open' | 'closed';
  head: { sha: string; ref: string; label: string; repo?: { full_name: string } };
  base: { sha: string; ref: string };
  diff?: string;
  files?: { filename: string; status: string; additions: number; deletions: number; patch?: string }[];
  /** false: `commits/{sha}/pulls` does not return it (GitHub may not link a fork's commit). */
  linked?: boolean;
}
export interface FakeStatus {
  sha: string;
  state: string;
  context: string;
  description?: string;
  target_url?: string;
}
export interface FakeArtifact {
  id: number;
  name: string;
  expired: boolean;
  created_at: string;
  expires_at?: string;
  workflow_run: {
    id: number;
    repository_id: number;
    head_repository_id: number;
    head_branch: string;
    head_sha: string;
  };
  /** The bytes the storage host serves (a zip, or anything, for corrupt-zip tests). */
  zip?: Uint8Array;
}

export interface FakeUser {
  login: string;
  type: string;
}
export interface SurfaceStep {
  method: string;
  path: RegExp;
  body?: RegExp;
  times: number;
  hang?: boolean;
  /** Hold the request until this holds, then `delayMs`. */
  until?: () => boolean;
  delayMs?: number;
}
export interface FakeCheckRun {
  id: number;
  name: string;
  head_sha: string;
  status?: string;
  conclusion?: string;
  details_url?: string;
  output?: { title: string; summary: string; text?: string };
  /** Every annotation sent, in order, and how many each request carried. */
  annotations: {
    path: string;
    start_line: number;
    end_line: number;
    annotation_level: string;
    title?: string;
    message: string;
  }[];
  batches: number[];
}
