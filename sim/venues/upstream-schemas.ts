/**
 * Test support: validators for response bodies built from the upstream OpenAPI files in
 * schemas/upstream (OpenAPI 3.0; copies of the shared reference). The conversion to JSON Schema:
 * - `nullable: true` adds null to the type (and to an enum); a nullable $ref becomes anyOf [ref, null];
 * - `oneOf` becomes `anyOf` (the files use non-discriminated, overlapping object alternatives that a
 *   valid record can match twice);
 * - a $ref to a schema the file does not define (gamma's Clob/Amm/NegRisk DTOs) becomes {} and is listed
 *   in `danglingRefs`;
 * - `overrides` patch documented contradictions between a file and the live API (see docs/sim-venues.md).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

export interface UpstreamValidator {
  /**
   * Validates a response body of (path template, method, status). Returns the errors, [] when valid,
   * or null when the file describes that response without a schema. Throws for an unknown operation.
   */
  validate(path: string, method: string, status: number, body: unknown): ErrorObject[] | null;
  danglingRefs: string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function convert(node: Json, defined: (ref: string) => boolean, dangling: Set<string>): Json {
  if (Array.isArray(node)) return node.map((n) => convert(n, defined, dangling));
  if (node === null || typeof node !== 'object') return node;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples' || k === 'deprecated' || k === 'nullable' || k.startsWith('x-'))
      continue;
    if (k === 'oneOf') out.anyOf = convert(v, defined, dangling);
    else out[k] = convert(v, defined, dangling);
  }
  if (typeof out.$ref === 'string' && !defined(out.$ref)) {
    dangling.add(out.$ref);
    delete out.$ref;
  }
  if ((node as { nullable?: unknown }).nullable === true) {
    if (typeof out.$ref === 'string') {
      const ref = out.$ref;
      delete out.$ref;
      return { ...out, anyOf: [{ $ref: ref }, { type: 'null' }] };
    }
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

function pointer(parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

export function loadUpstreamValidator(
  file: string,
  overrides: (doc: Record<string, unknown>) => void = () => {},
): UpstreamValidator {
  const raw = YAML.parse(readFileSync(file, 'utf8')) as Json;
  const defined = (ref: string) => {
    if (!ref.startsWith('#/')) return true;
    let cur: Json | undefined = raw;
    for (const part of ref.slice(2).split('/')) {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return false;
      cur = (cur as { [k: string]: Json })[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return cur !== undefined;
  };
  const dangling = new Set<string>();
  const doc = convert(raw, defined, dangling) as Record<string, unknown>;
  overrides(doc);
  const id = 'upstream.json';
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: under NodeNext its default export may arrive wrapped.
  const mod = addFormats as unknown as { default?: (a: Ajv) => Ajv };
  const add = mod.default ?? (addFormats as unknown as (a: Ajv) => Ajv);
  add(ajv);
  ajv.addSchema({ ...doc, $id: id } as object);
  const cache = new Map<string, ValidateFunction>();
  return {
    danglingRefs: [...dangling],
    validate(path, method, status, body) {
      const key = `${method} ${path} ${status}`;
      let fn = cache.get(key);
      if (!fn) {
        const paths = doc.paths as Record<
          string,
          Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
        >;
        const op = paths[path]?.[method.toLowerCase()];
        const response = op?.responses?.[String(status)];
        if (!response) throw new Error(`${file}: no ${status} response for ${method} ${path}`);
        const content = response.content;
        if (!content) return null;
        const type = Object.keys(content)[0] as string;
        fn = ajv.compile({
          $ref: `${id}#/${pointer(['paths', path, method.toLowerCase(), 'responses', String(status), 'content', type, 'schema'])}`,
        });
        cache.set(key, fn);
      }
      return fn(body) ? [] : [...(fn.errors ?? [])];
    },
  };
}
