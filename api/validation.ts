/**
 * How the API validates a request: Fastify's Ajv with these options (api/app.ts), one 422 listing every
 * violation (api/plugins/errors.ts turns Ajv's errors into SPEC's detail list).
 *
 * Query strings are coerced to the declared types, and Ajv's coercion turns any numeric string whose
 * value overflows a double (`1e309`, `Infinity`, `-1e309`, 400 digits) into ±Infinity and accepts it as
 * a number and an integer, skipping `minimum`/`maximum` (Ajv checks those only on finite numbers;
 * github.com/ajv-validator/ajv issue 2212). `finiteNumbers` closes that for every schema the app compiles:
 * each `type: number | integer` gets the `finite` keyword, checked after coercion, so a non-finite value
 * is a 422 `finite_number` naming the field, never a value that reaches a query. The route schemas
 * themselves (and so /openapi.json) are left as written.
 */
import type { Plugin } from 'ajv';

export const FINITE_KEYWORD = 'finite';

/** Keywords whose values are data, not subschemas: never walked. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'description', 'title']);

const isNumericType = (type: unknown): boolean =>
  type === 'number' ||
  type === 'integer' ||
  (Array.isArray(type) && type.some((t) => t === 'number' || t === 'integer'));

/** A copy of `schema` with `finite: true` next to every numeric `type` (at any depth). */
export function withFiniteNumbers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withFiniteNumbers);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string | symbol, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = DATA_KEYWORDS.has(k) ? v : withFiniteNumbers(v);
  // TypeBox's own markers (symbol keys) travel with the copy.
  for (const s of Object.getOwnPropertySymbols(schema)) out[s] = (schema as Record<symbol, unknown>)[s];
  if (isNumericType(out.type)) out[FINITE_KEYWORD] = true;
  return out;
}

/**
 * The Ajv plugin: the `finite` keyword (no type of its own, so Ajv runs it on the coerced value, which
 * its number keywords skip when non-finite), and every compiled schema marked by withFiniteNumbers.
 */
export const finiteNumbers: Plugin<unknown> = (ajv) => {
  ajv.addKeyword({
    keyword: FINITE_KEYWORD,
    schemaType: 'boolean',
    errors: false,
    validate: (required: boolean, data: unknown) =>
      !required || typeof data !== 'number' || Number.isFinite(data),
  });
  const compile = ajv.compile.bind(ajv);
  ajv.compile = ((schema: unknown, meta?: boolean) =>
    compile(withFiniteNumbers(schema) as object, meta)) as typeof ajv.compile;
  return ajv;
};

/** The router's limit on a path parameter: more than the request line can hold, so the schema decides. */
export const MAX_PATH_PARAM_LENGTH = 16 * 1024;

/** Fastify's `ajv` option of the API. */
export const AJV_OPTIONS = {
  // Every violation in one 422, not only the first; query strings coerced to the declared types.
  customOptions: {
    allErrors: true,
    coerceTypes: 'array' as const,
    useDefaults: true,
    removeAdditional: true,
  },
  plugins: [finiteNumbers],
};
