/** The rubric model: what a rubric item is once loaded and validated. */

export interface ChecklistItem {
  id: string;
  outcome: string;
  weight: number;
  required: boolean;
}

export interface ScoreBand {
  min: number;
  max: number;
  outcome: string;
}

export interface RangeCriterion {
  id: string;
  /** The criterion itself; bands carry the concrete outcomes. */
  outcome: string;
  weight: number;
  /** Gate: a score below this fails the evaluator. `required: true` means 10. */
  requiredMinScore: number | null;
  bands: ScoreBand[];
}

export type RubricSet =
  { mode: 'checklist'; items: ChecklistItem[] } | { mode: 'score_range'; items: RangeCriterion[] };
