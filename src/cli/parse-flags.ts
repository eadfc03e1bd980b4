import { parseArgs, type ParseArgsConfig } from 'node:util';
import { excerpt } from '../core/diagnostics.js';
import { didYouMean } from '../core/did-you-mean.js';
import { UsageError } from './io.js';

/** A subcommand's flags, strictly: an unknown one is a usage error with the nearest known flag. */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec((err as Error).message)?.[1];
    if (unknown) {
      const flags = Object.keys(options).map((o) => `--${o}`);
      const near = didYouMean(unknown.split('=')[0]!, flags);
      throw new UsageError(`unknown option '${excerpt(unknown)}'${near ? `: did you mean ${near}?` : ''}`);
    }
    throw new UsageError((err as Error).message, { cause: err });
  }
}
