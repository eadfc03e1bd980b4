import { type RequestDescription } from './openai-server.mjs';
export function itemProbabilities(text: string): Map<string, number>;
export function noisyChecklist(options?: {
  seed?: number;
  truth?: boolean;
}): (req: { body: any; desc: RequestDescription; index: number; headers: any }) => unknown;
