import { type PathSegment } from '../core/yaml-source.js';
import { isRecord } from '../core/is-record.js';

/**
 * How much work one JSON Schema asks of ajv per value checked. ajv validates on the main thread
 * and calls a `$ref`'s schema at each place it is referenced, so a small schema whose
 * definitions each reference the next twice (`allOf: [{$ref: d1}, {$ref: d1}]`, 34 levels in
 * 1.8 KB) asks 2^34 calls of one check, which nothing can interrupt. The schema is measured
 * here, at load, with every `$ref` expanded (each definition sized once, then reused), and
 * refused past MAX_SCHEMA_NODES. A recursive `$ref` (a tree, a linked list) is counted once:
 * ajv follows it once per value of the answer, which the answer's size bounds; a recursion that
 * reaches itself twice at the same place of the value (`properties: {x: {anyOf: [{$ref: '#'},
 * {$ref: '#'}]}}`) doubles at each level of the answer, and is refused too.
 */

/** Far above a real tool's or answer's schema (a few hundred), far below a slow check (~10^6). */
export const MAX_SCHEMA_NODES = 10_000;

type Node = Record<string, unknown>;
type Problem = { at: PathSegment[]; message: string };

/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Definitions are applied only through a `$ref`, and sized there. */
const DEFINITIONS = new Set(['$defs', 'definitions']);
/** Keywords that apply their schemas to a part of the value (a property, an item), not the value itself. */
const DESCENDS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
/**
 * Keywords that apply to the value's elements: an element may be checked by several at once
 * (`items` and `contains` both see each one), so they are one place of the value.
 */
const ELEMENTS = new Set(['items', 'prefixItems', 'additionalItems', 'contains', 'unevaluatedItems']);
/** The meta-schemas ajv knows: bounded, and resolved by ajv itself. */
const META = /^https?:\/\/json-schema\.org\//;

/** Each schema node's resource (nearest `$id`), and the anchors and ids a `$ref` may name. */
interface Index {
  resource: Map<Node, Node>;
  anchors: Map<Node, Map<string, Node>>;
  ids: Map<string, Node>;
  paths: Map<Node, PathSegment[]>;
}

function indexSchema(root: Node): Index {
  const index: Index = { resource: new Map(), anchors: new Map(), ids: new Map(), paths: new Map() };
  const visit = (v: unknown, resource: Node, at: PathSegment[]): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => visit(x, resource, [...at, i]));
    if (!isRecord(v) || index.paths.has(v)) return;
    index.paths.set(v, at);
    const id = typeof v.$id === 'string' ? v.$id : undefined;
    if (id !== undefined && !id.startsWith('#')) {
      resource = v;
      const bare = id.replace(/#$/, '');
      index.ids.set(bare, v);
      index.ids.set(bare.slice(bare.lastIndexOf('/') + 1), v);
    }
    index.resource.set(v, resource);
    for (const anchor of [v.$anchor, v.$dynamicAnchor, id?.startsWith('#') ? id.slice(1) : undefined])
      if (typeof anchor === 'string') {
        const names = index.anchors.get(resource) ?? new Map<string, Node>();
        names.set(anchor, v);
        index.anchors.set(resource, names);
      }
    for (const [k, x] of Object.entries(v)) if (!DATA_KEYWORDS.has(k)) visit(x, resource, [...at, k]);
  };
  visit(root, root, []);
  return index;
}

/** The node a `$ref` written in `from` names; 'meta' for a meta-schema; undefined when it names none here. */
function resolve(ref: string, from: Node, index: Index): Node | 'meta' | undefined {
  if (META.test(ref)) return 'meta';
  const hash = ref.indexOf('#');
  const uri = hash === -1 ? ref : ref.slice(0, hash);
  let fragment = '';
  try {
    fragment = hash === -1 ? '' : decodeURIComponent(ref.slice(hash + 1));
  } catch {
    return undefined;
  }
  const resource =
    uri === ''
      ? index.resource.get(from)
      : (index.ids.get(uri) ?? index.ids.get(uri.slice(uri.lastIndexOf('/') + 1)));
  if (!resource) return undefined;
  if (fragment === '') return resource;
  if (!fragment.startsWith('/')) return index.anchors.get(resource)?.get(fragment);
  let at: unknown = resource;
  for (const raw of fragment.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    at = Array.isArray(at) ? at[Number(key)] : isRecord(at) ? at[key] : undefined;
  }
  return isRecord(at) ? at : undefined;
}

/**
 * Why `schema` is too much work for one check, with where, else null: its size with every
 * `$ref` expanded past MAX_SCHEMA_NODES, a recursion that doubles at each level of the value,
 * or a `$ref` that names nothing in it (ajv could not compile it; a `$ref` rubric-eval cannot
 * follow cannot be measured).
 */
export function schemaExpansionProblem(schema: unknown, at: PathSegment[] = []): Problem | null {
  if (!isRecord(schema)) return null;
  const index = indexSchema(schema);
  const sizes = new Map<Node, number>();
  // The `$ref` targets being sized, each with its depth and the places of the value its
  // recursions reached.
  const open = new Map<Node, { depth: number; reached: Set<string> }>();
  // The shallowest open target a recursion under the node being sized reached: a node whose size
  // depends on a target opened outside it is sized again where it is used, never cached, or a
  // recursion it reaches would be counted at its first place only.
  let reachedOut = Infinity;
  let problem: Problem | null = null;
  const fail = (where: PathSegment[], message: string) => {
    problem ??= { at: [...at, ...where], message };
    return MAX_SCHEMA_NODES + 1;
  };
  const sized = (node: Node, place: string): number => {
    const known = sizes.get(node);
    if (known !== undefined) return known;
    const depth = open.size;
    const outer = reachedOut;
    reachedOut = Infinity;
    open.set(node, { depth, reached: new Set() });
    const n = size(node, place);
    open.delete(node);
    if (reachedOut >= depth) sizes.set(node, n);
    reachedOut = Math.min(outer, reachedOut);
    return n;
  };
  // `place`: where in the value the node applies, relative to the walk's start.
  const size = (v: unknown, place: string): number => {
    if (Array.isArray(v)) {
      let sum = 0;
      for (const x of v) if ((sum = add(sum, size(x, place))) > MAX_SCHEMA_NODES || problem) break;
      return sum;
    }
    if (!isRecord(v)) return 0;
    let n = 1;
    if (typeof v.$ref === 'string') n = add(n, refSize(v, v.$ref, place));
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' || DATA_KEYWORDS.has(k) || DEFINITIONS.has(k)) continue;
      if (!DESCENDS.has(k)) n = add(n, size(x, place));
      else if ((k === 'properties' || k === 'patternProperties') && isRecord(x))
        for (const [name, s] of Object.entries(x)) {
          n = add(n, size(s, `${place}/${k}:${name}`));
          if (n > MAX_SCHEMA_NODES || problem) break;
        }
      else n = add(n, size(x, ELEMENTS.has(k) ? `${place}/[]` : `${place}/${k}`));
      if (n > MAX_SCHEMA_NODES || problem) break;
    }
    return n;
  };
  const refSize = (v: Node, ref: string, place: string): number => {
    const where = [...(index.paths.get(v) ?? []), '$ref'];
    const target = resolve(ref, v, index);
    if (target === 'meta') return 1;
    if (!target) return fail(where, `\`$ref\` '${ref}' names nothing in this schema`);
    const opened = open.get(target);
    if (!opened) return sized(target, place);
    reachedOut = Math.min(reachedOut, opened.depth);
    const { reached } = opened;
    if (reached.has(place))
      return fail(
        where,
        `\`$ref\` '${ref}' is a recursion reached twice at one place of the value: its checks double at each level of the answer`,
      );
    reached.add(place);
    return 1;
  };
  const total = sized(schema, '');
  if (problem) return problem;
  if (total > MAX_SCHEMA_NODES)
    return {
      at,
      message: `the schema with each \`$ref\` expanded has more than ${MAX_SCHEMA_NODES} parts (a \`$ref\` used many times, or definitions that each use the next more than once): checking a value against it would take too long`,
    };
  return null;
}

const add = (a: number, b: number) => Math.min(a + b, MAX_SCHEMA_NODES + 1);
