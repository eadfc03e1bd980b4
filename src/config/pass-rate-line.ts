import { type PassRate, type RunResults } from '../core/results.js';

/** `96.0%`: one decimal, so a rate just under its minimum never prints as equal to it. */
const percent = (x: number): string => `${(Math.floor(x * 1000 + 1e-9) / 10).toFixed(1)}%`;

/** `suite evals/qa.yaml: pass rate 80.0% (8/10) below min 95.0%`; `overall: …` for the run. */
export function passRateLine(p: PassRate): string {
  const where = p.suite === null ? 'overall' : `suite ${p.suite}`;
  return `${where}: pass rate ${percent(p.rate)} (${p.passed}/${p.total}) ${p.met ? 'meets' : 'below'} min ${percent(p.min)}`;
}

/** The pass-rate gates that failed, one phrase each (the check's failure message). */
export function unmetPassRates(results: RunResults): string[] {
  return (results.pass_rates ?? []).filter((p) => !p.met).map(passRateLine);
}
