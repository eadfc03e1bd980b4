/** A text's sentences: one per line when it has several lines, else split after `.`, `!`, `?`. */
export function sentences(s: string): string[];
/** The grader's prompt families: each answers its own prompt (either tool's), else undefined. */
export const FAMILIES: ((text: string) => string | undefined)[];
/** The fake endpoint's reply to a chat request's text: a grader family's answer, else the model's. */
export function fakeReply(text: string): string;
