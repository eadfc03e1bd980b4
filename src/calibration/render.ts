import { escapeRunnerCommands } from '../report/results-file.js';
import { type CalibrationReport, type Disagreement } from './measure.js';
import { type BinaryAgreement, type CalibrationRow, shownCheck } from '../core/calibration-results.js';

const f2 = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));
const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);
const interval = (r: BinaryAgreement) =>
  r.kappa === null ? '' : ` [${f2(r.kappa_low)}, ${f2(r.kappa_high)}]`;
const kappaCell = (r: BinaryAgreement) =>
  r.kappa === null ? `— (${r.kappa_note ?? 'undefined'})` : `${f2(r.kappa)}${interval(r)}`;

const HEAD = ['check', 'n', 'agree', 'κ [95%]', 'TPR', 'TNR', 'judge+ human−', 'judge− human+', 'wκ', 'MAE'];

function cells(
  name: string,
  r: BinaryAgreement & { mae?: number | null; weighted_kappa?: number | null },
): string[] {
  return [
    name,
    String(r.n),
    pct(r.agreement),
    kappaCell(r),
    f2(r.tpr),
    f2(r.tnr),
    String(r.judge_yes_human_no),
    String(r.judge_no_human_yes),
    'weighted_kappa' in r ? f2(r.weighted_kappa) : '',
    'mae' in r ? f2(r.mae) : '',
  ];
}

const rowName = (r: CalibrationRow) => `${r.suite} › ${r.id} › ${shownCheck(r)}`;

function tableRows(report: CalibrationReport): string[][] {
  return [
    ...report.rows.map((r) => cells(rowName(r), r)),
    cells('overall (checklist items pooled)', report.overall),
  ];
}

/** A plain-text table, worst checks first, the pooled line last. */
export function calibrationTable(report: CalibrationReport): string {
  const rows = [HEAD, ...tableRows(report)];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return (
    [`${report.labels} labelled answers`, line(rows[0]!), ...rows.slice(1).map(line), ...footer(report)].join(
      '\n',
    ) + '\n'
  );
}

/** The same as a markdown table. */
export function calibrationMarkdown(report: CalibrationReport): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  const rows = tableRows(report).map((r) => `| ${r.map(esc).join(' | ')} |`);
  return (
    [
      `### Judge calibration: ${report.labels} labelled answers`,
      '',
      `| ${HEAD.join(' | ')} |`,
      `|${HEAD.map(() => '---').join('|')}|`,
      ...rows,
      '',
      ...footer(report),
    ].join('\n') + '\n'
  );
}

function footer(report: CalibrationReport): string[] {
  return report.errors.map((e) => `line ${e.line} (${e.suite} › ${e.id}) could not be judged: ${e.error}`);
}

/**
 * The labelled answers where judge and person differ, as label lines (valid input for --labels):
 * the person's labels as they stand, the judge's verdicts beside them to decide who was right.
 */
export function disagreementLines(list: readonly Disagreement[], file: string): string {
  return list
    .map((d) =>
      escapeRunnerCommands(
        JSON.stringify({
          suite: d.suite,
          id: d.id,
          answer: d.answer,
          labels: Object.fromEntries(d.checks.map((c) => [c.check, c.human])),
          judge: Object.fromEntries(d.checks.map((c) => [c.check, c.judge])),
          ...(d.rater ? { rater: d.rater } : {}),
          from: `${file}:${d.line}`,
        }),
      ),
    )
    .map((l) => `${l}\n`)
    .join('');
}
