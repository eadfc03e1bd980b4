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
  };
  close(): Promise<void>;
}
export function startGitHubServer(options?: {
  comments?: FakeComment[];
  failures?: { method: string; path: RegExp; status: number; times: number; message?: string }[];
  pullRequest?: { number: number; title: string; body: string; diff: string; files: unknown[] };
  /** Repository contents served raw: {'owner/repo@ref:path': text}. */
  files?: Record<string, string>;
}): Promise<FakeGitHub>;
