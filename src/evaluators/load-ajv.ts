import type { Ajv as AjvClass } from 'ajv';

let loaded: Promise<typeof AjvClass> | undefined;

/**
 * ajv, for the checks that validate against a JSON Schema: a large package, evaluated only when
 * a suite has such a check rather than at every start-up.
 */
export function loadAjv(): Promise<typeof AjvClass> {
  // ajv is CommonJS: its named exports reach a dynamic import only through `default`
  // (module.exports) in the bundle.
  loaded ??= import(/* webpackMode: "eager" */ 'ajv').then((m) => m.default.Ajv);
  return loaded;
}
