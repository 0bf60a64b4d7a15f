/**
 * The direction rules of imports and the reading of a file's imports, for test/import-direction.test.ts.
 * Imports flow one way: `core ← ingest ← jobs`, `core ← analytics ← jobs`, `core ← api`; `schemas/`
 * holds the contracts (table definitions, API schemas, ABIs) the parts read; `sim/` is used by tests, the
 * demo and benchmarks only. Inside ingest/, the generic chain pipeline (ingest/chain/) imports no venue
 * and a venue (ingest/venues/<code>/) no other venue; inside analytics/, a product's folder imports no
 * other product's (what they share is in analytics/shared/).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where a file sits, for the rules: a top-level folder, or `cli` for the command line. */
export type Area =
  | 'schemas'
  | 'core'
  | 'ingest'
  | 'analytics'
  | 'api'
  | 'jobs'
  | 'cli'
  | 'sim'
  | 'bench'
  | 'test'
  | 'bin';

/**
 * What each area may import besides itself. `cli` is jobs/cli.ts and jobs/commands/: the command line
 * runs the API role (`pmdata up`, `pmdata api` start api/server.ts), `pmdata keys` uses api's key store,
 * and `pmdata demo` / `pmdata sim` start the simulated world; the rest of jobs/ (queues, worker,
 * registry, processors, schedules) does not import api/ or sim/. `bin/` holds the entry points: the CLI's
 * (`bin/pmdata.js`), the benchmarks' (`bin/bench.js`) and the test command's first step (`bin/test-deps.js`,
 * which runs test/support/test-deps.ts).
 */
export const ALLOWED: Record<Area, readonly Area[]> = {
  core: [],
  schemas: ['core'],
  ingest: ['core', 'schemas'],
  analytics: ['core', 'schemas'],
  api: ['core', 'schemas'],
  jobs: ['core', 'schemas', 'ingest', 'analytics'],
  cli: ['core', 'schemas', 'ingest', 'analytics', 'jobs', 'api', 'sim'],
  sim: ['core', 'schemas'],
  bench: ['core', 'schemas', 'ingest', 'analytics', 'api', 'jobs', 'cli', 'sim'],
  test: ['core', 'schemas', 'ingest', 'analytics', 'api', 'jobs', 'cli', 'sim'],
  bin: ['cli', 'bench', 'test'],
};

/**
 * Tests are where the parts meet: a test file (`*.test.ts`, or a `*.child.ts` process a test spawns)
 * may import any area but bench/, wherever it sits. No other file may import a test file.
 */
const TEST_FILE = /\.(test|child)\.ts$/;
const TEST_ALLOWED: readonly Area[] = [...ALLOWED.test, 'test'];

export const AREAS = Object.keys(ALLOWED) as Area[];
const SKIP_DIRS = new Set(['node_modules', 'build', 'dist', 'data']);

export function areaOf(rel: string): Area | undefined {
  if (rel === 'jobs/cli.ts' || rel.startsWith('jobs/commands/')) return 'cli';
  const top = rel.split('/')[0] as Area;
  return AREAS.includes(top) ? top : undefined;
}

export interface ImportRef {
  /** The importing file, relative to the repository root. */
  file: string;
  line: number;
  specifier: string;
}

/** Every relative module reference of one source file. */
export function importsOf(file: string, source: string): ImportRef[] {
  const lineOf = (pos: number) => source.slice(0, pos).split('\n').length;
  const refs = ts
    .preProcessFile(source, true, true)
    .importedFiles.map((f) => ({ file, line: lineOf(f.pos), specifier: f.fileName }));
  for (const m of source.matchAll(/new URL\(\s*['"](\.[^'"]+\.[jt]s)['"]\s*,\s*import\.meta\.url\s*\)/g)) {
    refs.push({ file, line: lineOf(m.index), specifier: m[1]! });
  }
  return refs.filter((r) => r.specifier.startsWith('.'));
}

/** The offending imports, one line each: `file:line imports target (area → area not allowed)`. */
export function directionViolations(refs: readonly ImportRef[]): string[] {
  const out: string[] = [];
  for (const r of refs) {
    const from = areaOf(r.file);
    if (!from) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(r.file), r.specifier));
    const to = areaOf(target);
    const isTest = TEST_FILE.test(r.file);
    let why: string | undefined;
    if (target.startsWith('..') || !to) why = 'outside the source folders';
    else if (TEST_FILE.test(target) && !isTest) why = 'a test file, imported by a non-test file';
    else if (to !== from && !(isTest ? TEST_ALLOWED : ALLOWED[from]).includes(to)) {
      why = `${from} → ${to} is not allowed`;
    } else if (!isTest) why = seamViolation(r.file, target);
    if (why) out.push(`${r.file}:${r.line} imports ${target} (${why})`);
  }
  return out;
}

/**
 * Inside ingest/: what is generic to every venue (ingest/chain/, the EVM pipeline) imports no venue,
 * and a venue (ingest/venues/<code>/) imports no other venue. Inside analytics/: a product's folder
 * (analytics/<product>/) imports no other product's, and analytics/shared/ imports no product; what
 * products share is in analytics/shared/ (the list of products, analytics/products.ts, imports each).
 */
function seamViolation(file: string, target: string): string | undefined {
  const productOf = (f: string) => /^analytics\/([^/]+)\//.exec(f)?.[1];
  const toProduct = productOf(target);
  const fromProduct = productOf(file);
  if (toProduct && toProduct !== 'shared' && fromProduct && fromProduct !== toProduct) {
    return fromProduct === 'shared'
      ? `analytics/shared/ imports product ${toProduct}`
      : `product ${fromProduct} imports product ${toProduct}`;
  }
  const venueOf = (f: string) => /^ingest\/venues\/([^/]+)\//.exec(f)?.[1];
  const to = venueOf(target);
  if (!to) return undefined;
  if (file.startsWith('ingest/chain/')) return `the generic chain pipeline imports venue ${to}`;
  const from = venueOf(file);
  if (from && from !== to) return `venue ${from} imports venue ${to}`;
  return undefined;
}

/** The source files under `dir` (relative to the root), build output and dependencies left out. */
export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) sourceFiles(rel, out);
    } else if (/\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/**
 * The venue-code rule: outside a venue's own folders, only `jobs/venues.ts` (the one venue list) and
 * `schemas/venues/index.ts` (the contracts' index) name a venue code. "Names" (docs/decisions.md):
 * - imports a file of a venue's own folders (`ingest/venues/<code>/`, `api/queries/<code>/`,
 *   `api/routes/v2/<code>/`, `schemas/venues/<code>.ts`, `schemas/tables/<code>.ts`,
 *   `schemas/api/<code>-*.ts`, `schemas/upstream/<code>*`);
 * - has a string literal (a template's head and a literal type included) that is a code, or that begins
 *   with a code followed by `.`, `:`, `_` or `-` (a job `beta.markets`, a lease `beta:markets:lease`, a
 *   table `beta_markets`).
 * Production code only: tests (`*.test.ts`, `*.child.ts`, test/), sim/ and bench/ are left out. The
 * codes are the REST venues': alpha is the chain venue the analytics products, the chain pipeline's
 * tables and the `alpha-*` jobs are built on, so alpha-named files and tables are not venue wiring.
 */
export const CHAIN_VENUE = 'alpha';

/** The REST venue codes: one folder each under ingest/venues/, the chain venue left out. */
export function restVenueCodes(root: string = ROOT): string[] {
  return fs
    .readdirSync(path.join(root, 'ingest/venues'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== CHAIN_VENUE)
    .map((e) => e.name)
    .sort();
}

/** The files allowed to name every venue code. */
export const VENUE_LISTS: readonly string[] = ['jobs/venues.ts', 'schemas/venues/index.ts'];

/** The areas whose files the venue-code rule reads (production code). */
export const VENUE_RULE_AREAS: readonly Area[] = [
  'schemas',
  'core',
  'ingest',
  'analytics',
  'api',
  'jobs',
  'bin',
];

/** The venue whose own folders hold `rel`, if any. */
export function ownVenueOf(rel: string, codes: readonly string[]): string | undefined {
  for (const c of codes) {
    if (
      rel.startsWith(`ingest/venues/${c}/`) ||
      rel.startsWith(`api/queries/${c}/`) ||
      rel.startsWith(`api/routes/v2/${c}/`) ||
      rel.startsWith(`api/resources/${c}/`) ||
      rel === `schemas/venues/${c}.ts` ||
      rel === `schemas/tables/${c}.ts` ||
      rel.startsWith(`schemas/api/${c}-`) ||
      rel.startsWith(`schemas/upstream/${c}`)
    ) {
      return c;
    }
  }
  return undefined;
}

/** Whether the venue-code rule reads `rel`: production code outside the venue lists. */
export function venueRuleApplies(rel: string): boolean {
  const area = areaOf(rel);
  return (
    area !== undefined &&
    (VENUE_RULE_AREAS.includes(area) || area === 'cli') &&
    !TEST_FILE.test(rel) &&
    !VENUE_LISTS.includes(rel)
  );
}

/** The code a string literal names, if any: the code itself or the code then `.`, `:`, `_` or `-`. */
export function codeNamedBy(text: string, codes: readonly string[]): string | undefined {
  return codes.find((c) => text === c || (text.startsWith(c) && '.:_-'.includes(text[c.length] ?? '')));
}

/**
 * Where one file names a venue code other than its own, one line each: `file:line imports target
 * (names venue <code> …)` or `file:line "<literal>" (names venue <code> …)`.
 */
export function venueCodeViolations(file: string, source: string, codes: readonly string[]): string[] {
  if (!venueRuleApplies(file)) return [];
  const own = ownVenueOf(file, codes);
  const why = (code: string) => `names venue ${code} outside its own folders`;
  const out: string[] = [];
  for (const r of importsOf(file, source)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), r.specifier));
    const code = ownVenueOf(target, codes);
    if (code && code !== own) out.push(`${file}:${r.line} imports ${target} (${why(code)})`);
  }
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) {
      // Module specifiers are imports (read above); an own venue may name itself.
      const isSpecifier =
        ts.isImportDeclaration(node.parent) ||
        ts.isExportDeclaration(node.parent) ||
        (ts.isCallExpression(node.parent) && node.parent.expression.kind === ts.SyntaxKind.ImportKeyword) ||
        ts.isExternalModuleReference(node.parent) ||
        (ts.isLiteralTypeNode(node.parent) && ts.isImportTypeNode(node.parent.parent));
      const code = isSpecifier ? undefined : codeNamedBy(node.text, codes);
      if (code && code !== own) {
        const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        out.push(`${file}:${line} ${JSON.stringify(node.text)} (${why(code)})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}
