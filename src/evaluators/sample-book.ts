import { type JudgeAnswer, JudgeError, type JudgeRequest } from '../judge/judge.js';
import { maxSamples, type SamplesSetting } from '../judge/sampling.js';
import { addUsage, emptyUsage } from '../core/results.js';
import { type Usage } from '../core/usage.js';
import { sha256Hex } from '../core/sha256.js';

/** Where one judged evaluator sits in a case's evaluator tree, and the book that samples it. */
export interface SampleSlot {
  book: SampleBook;
  path: string;
}

interface Taken {
  promptKey: string;
  answer: Promise<JudgeAnswer<unknown>>;
}

/**
 * One case's judge samples: how many each judged evaluator takes, and every sample already
 * taken. The case's evaluators are evaluated again after `auto` asks for more samples; the book
 * makes that cost only the new samples (and code judges run once). An evaluator whose prompt
 * changed since its last samples (an aggregator whose children's combined results moved) starts
 * again from the initial count; what its earlier samples cost stays in its usage.
 */
export class SampleBook {
  private readonly counts = new Map<string, number>();
  private readonly keys = new Map<string, string>();
  private readonly taken = new Map<string, Taken[]>();
  private readonly memo = new Map<string, Promise<unknown>>();
  readonly initial: number;
  readonly max: number;

  constructor(readonly setting: SamplesSetting) {
    this.initial = setting === 'auto' ? 1 : setting;
    this.max = maxSamples(setting);
  }

  count(path: string): number {
    return this.counts.get(path) ?? this.initial;
  }

  /** Samples asked so far: the first of each judged evaluator, and every one after. */
  calls(): { first: number; extra: number } {
    let first = 0;
    let extra = 0;
    for (const list of this.taken.values()) {
      first += Math.min(1, list.length);
      extra += Math.max(0, list.length - 1);
    }
    return { first, extra };
  }

  /** One more sample of `path` on the next evaluation; false when it already has the most allowed. */
  more(path: string): boolean {
    const n = this.count(path);
    if (n >= this.max) return false;
    this.counts.set(path, n + 1);
    return true;
  }

  /**
   * Samples 0..count-1 of one request, each taken once. `build(i)` is the request of sample i
   * (its own item order); `ask` makes the call. A sample that fails fails the evaluator, with the
   * usage of every sample in the error.
   */
  async take<T>(
    path: string,
    build: (index: number) => JudgeRequest<T>,
    ask: (req: JudgeRequest<T>, index: number) => Promise<JudgeAnswer<T>>,
  ): Promise<{ answers: JudgeAnswer<T>[]; staleUsage: Usage }> {
    const promptKey = sha256Hex(JSON.stringify(build(0).prompt.messages));
    const previous = this.keys.get(path);
    if (previous !== undefined && previous !== promptKey) this.counts.delete(path);
    this.keys.set(path, promptKey);
    const list = this.taken.get(path) ?? [];
    this.taken.set(path, list);
    const n = this.count(path);
    const current = list.filter((t) => t.promptKey === promptKey);
    for (let i = current.length; i < n; i++) {
      const t: Taken = { promptKey, answer: ask(build(i), i) as Promise<JudgeAnswer<unknown>> };
      // Observed at once so a failure waits for its turn below instead of going unhandled.
      t.answer.catch(() => undefined);
      list.push(t);
      current.push(t);
    }
    const settled = await Promise.allSettled(current.slice(0, n).map((t) => t.answer));
    const staleUsage = await this.usageOf(list.filter((t) => t.promptKey !== promptKey));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      const usage = settled.reduce(
        (u, s) =>
          addUsage(u, s.status === 'fulfilled' ? s.value.usage : (s.reason as Partial<JudgeError>).usage),
        staleUsage,
      );
      if (failed.reason instanceof JudgeError)
        throw new JudgeError(failed.reason.message, usage, { cause: failed.reason });
      throw failed.reason;
    }
    const answers = settled.map((s) => (s as PromiseFulfilledResult<JudgeAnswer<T>>).value);
    return { answers, staleUsage };
  }

  /** Runs `fn` once per key for this case (a code judge gives the same result for the same input). */
  once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let p = this.memo.get(key) as Promise<T> | undefined;
    if (!p) {
      p = fn();
      this.memo.set(key, p);
    }
    return p;
  }

  private async usageOf(list: readonly Taken[]): Promise<Usage> {
    const usage = emptyUsage();
    for (const s of await Promise.allSettled(list.map((t) => t.answer)))
      addUsage(usage, s.status === 'fulfilled' ? s.value.usage : (s.reason as Partial<JudgeError>).usage);
    return usage;
  }
}
