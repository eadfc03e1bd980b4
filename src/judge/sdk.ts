type Sdk = typeof import('openai') & Pick<typeof import('openai/helpers/zod'), 'zodResponseFormat'>;

let loaded: Promise<Sdk> | undefined;
let sdk: Sdk | undefined;

/**
 * The `openai` package, evaluated on the first judge call rather than at start-up: it is over a
 * quarter of the code the engine would otherwise evaluate before its first log line, and a run
 * with gates only never needs it. Stays in the one bundle file.
 */
export function loadOpenAI(): Promise<Sdk> {
  loaded ??= Promise.all([
    import(/* webpackMode: "eager" */ 'openai'),
    import(/* webpackMode: "eager" */ 'openai/helpers/zod'),
  ]).then(([main, zod]) => (sdk = { ...main, zodResponseFormat: zod.zodResponseFormat }));
  return loaded;
}

/**
 * The SDK's client class (with its error classes) once loaded, else null: an error raised before
 * any client existed cannot be one of the SDK's.
 */
export function loadedOpenAI(): Sdk['default'] | null {
  return sdk?.default ?? null;
}
