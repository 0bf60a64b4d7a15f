/**
 * Imports flow one way (the rules: test/support/import-direction.ts; why the command line may import
 * api/ and sim/: docs/decisions.md). Every import of every source file (static, `export … from`,
 * dynamic `import()`, `import type`, and `new URL('./x.ts', import.meta.url)` module references),
 * resolved to the top-level folder it lands in, must be one its own folder's rule allows. A failure
 * lists each offending import with its file and line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AREAS,
  directionViolations,
  type ImportRef,
  importsOf,
  ROOT,
  restVenueCodes,
  sourceFiles,
  VENUE_RULE_AREAS,
  venueCodeViolations,
} from './support/import-direction.ts';

/**
 * The exceptions (docs/decisions.md): files that name venue codes, with why. A venue's list resource comes
 * from its contract, but a resource of a venue's own beyond it (beta's trades) is listed by name; and core
 * imports nothing, so `REMOVED_VENUES` (core/config.ts) checks its own list of codes, zeta and eta included.
 */
const VENUE_RULE_PENDING: Record<string, string> = {
  'api/resources/index.ts':
    "beta's trades and each venue's order book history resources (resources of a venue's own, listed by name)",
  'core/config.ts': 'REMOVED_VENUES parses its own list of codes (core may import no schemas/)',
};

describe('import direction', () => {
  it('every import of every source file goes the way the flow allows', () => {
    const files = AREAS.filter((a) => a !== 'cli' && fs.existsSync(path.join(ROOT, a))).flatMap((a) =>
      sourceFiles(a),
    );
    expect(files.length).toBeGreaterThan(100);
    const refs = files.flatMap((f) => importsOf(f, fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(refs.length).toBeGreaterThan(300);
    expect(directionViolations(refs)).toEqual([]);
  });

  it('reads static, re-exported, type-only and dynamic imports and module URLs', () => {
    const source = [
      "import { a } from '../core/a.ts';",
      "import type { B } from '../api/b.ts';",
      "export { c } from './c.ts';",
      'type D = typeof import("../analytics/d.ts");',
      "const e = await import('../sim/e.ts');",
      "const w = new URL('./worker.ts', import.meta.url);",
      "import fs from 'node:fs';",
      "import { Queue } from 'bullmq';",
    ].join('\n');
    expect(importsOf('ingest/x.ts', source).map((r) => `${r.line} ${r.specifier}`)).toEqual([
      '1 ../core/a.ts',
      '2 ../api/b.ts',
      '3 ./c.ts',
      '4 ../analytics/d.ts',
      '5 ../sim/e.ts',
      '6 ./worker.ts',
    ]);
  });

  it('lists each import against the flow with its file and line', () => {
    const refs: ImportRef[] = [
      { file: 'ingest/chain/x.ts', line: 3, specifier: '../../jobs/queues.ts' },
      { file: 'ingest/chain/x.ts', line: 4, specifier: '../../core/errors.ts' },
      { file: 'api/keys/y.ts', line: 7, specifier: '../../ingest/chain/runtime.ts' },
      { file: 'ingest/chain/writer.ts', line: 6, specifier: '../venues/alpha/chain/rows.ts' },
      { file: 'ingest/venues/beta/x.ts', line: 2, specifier: '../alpha/config.ts' },
      { file: 'ingest/venues/alpha/chain/x.ts', line: 2, specifier: '../../../chain/writer.ts' },
      { file: 'core/z.ts', line: 2, specifier: '../sim/index.ts' },
      { file: 'core/z.ts', line: 5, specifier: '../test/support/deps.ts' },
      { file: 'jobs/worker.ts', line: 9, specifier: '../api/server.ts' },
      { file: 'jobs/commands/roles.ts', line: 9, specifier: '../../api/server.ts' },
      { file: 'analytics/p/q.ts', line: 1, specifier: '../../../outside.ts' },
      { file: 'core/config.test.ts', line: 6, specifier: '../jobs/config.ts' },
      { file: 'core/launch.ts', line: 8, specifier: './launch.child.ts' },
      { file: 'analytics/positions/run.ts', line: 28, specifier: '../market-data/progress.ts' },
      { file: 'analytics/positions/run.ts', line: 29, specifier: '../shared/version.ts' },
      { file: 'analytics/shared/x.ts', line: 3, specifier: '../catalog/read.ts' },
      { file: 'analytics/products.ts', line: 9, specifier: './profiles/index.ts' },
    ];
    expect(directionViolations(refs)).toEqual([
      'ingest/chain/x.ts:3 imports jobs/queues.ts (ingest → jobs is not allowed)',
      'api/keys/y.ts:7 imports ingest/chain/runtime.ts (api → ingest is not allowed)',
      'ingest/chain/writer.ts:6 imports ingest/venues/alpha/chain/rows.ts (the generic chain pipeline imports venue alpha)',
      'ingest/venues/beta/x.ts:2 imports ingest/venues/alpha/config.ts (venue beta imports venue alpha)',
      'core/z.ts:2 imports sim/index.ts (core → sim is not allowed)',
      'core/z.ts:5 imports test/support/deps.ts (core → test is not allowed)',
      'jobs/worker.ts:9 imports api/server.ts (jobs → api is not allowed)',
      'analytics/p/q.ts:1 imports ../outside.ts (outside the source folders)',
      'core/launch.ts:8 imports core/launch.child.ts (a test file, imported by a non-test file)',
      'analytics/positions/run.ts:28 imports analytics/market-data/progress.ts (product positions imports product market-data)',
      'analytics/shared/x.ts:3 imports analytics/catalog/read.ts (analytics/shared/ imports product catalog)',
    ]);
  });

  it("outside a venue's own folders, only jobs/venues.ts and schemas/venues/index.ts name venue codes", () => {
    const codes = restVenueCodes();
    expect(codes).toEqual(expect.arrayContaining(['beta', 'delta', 'epsilon', 'gamma']));
    const files = VENUE_RULE_AREAS.filter((a) => fs.existsSync(path.join(ROOT, a))).flatMap((a) =>
      sourceFiles(a),
    );
    const found = files.flatMap((f) =>
      venueCodeViolations(f, fs.readFileSync(path.join(ROOT, f), 'utf8'), codes),
    );
    const fileOf = (v: string) => v.slice(0, v.indexOf(':'));
    // Every naming outside the pending files fails; a pending file that names no code any more fails too,
    // so the list only shrinks (each entry goes once its branch is merged).
    expect(found.filter((v) => !(fileOf(v) in VENUE_RULE_PENDING))).toEqual([]);
    expect(Object.keys(VENUE_RULE_PENDING).filter((f) => !found.some((v) => fileOf(v) === f))).toEqual([]);
  });

  it('lists each naming of a venue code outside its own folders with its file and line', () => {
    const codes = ['beta', 'gamma'];
    const named = (file: string, source: string) =>
      venueCodeViolations(file, source, codes).map((v) =>
        v.replace(/ \(names venue (\w+) outside its own folders\)$/, ' [$1]'),
      );
    const source = [
      "import { syncBeta } from '../ingest/venues/beta/sync.ts';",
      "import { GAMMA } from '../schemas/tables/gamma.ts';",
      "import { alphaConfig } from '../ingest/venues/alpha/config.ts';",
      "const a = ['beta', 'alpha'];",
      'type V = "gamma" | "alpha";',
      "const lease = 'beta:markets:lease', job = `gamma.${'x'}`, table = 'gamma_markets';",
      "const prose = 'betamax', other = 'alpha-positions', mid = `${a}beta`;",
      'const t = `x ${a} gamma-y`;',
    ].join('\n');
    expect(named('jobs/x.ts', source)).toEqual([
      'jobs/x.ts:1 imports ingest/venues/beta/sync.ts [beta]',
      'jobs/x.ts:2 imports schemas/tables/gamma.ts [gamma]',
      'jobs/x.ts:4 "beta" [beta]',
      'jobs/x.ts:5 "gamma" [gamma]',
      'jobs/x.ts:6 "beta:markets:lease" [beta]',
      'jobs/x.ts:6 "gamma." [gamma]',
      'jobs/x.ts:6 "gamma_markets" [gamma]',
    ]);
    // A venue's own folders name it, not another venue; the venue lists, tests and sim/ are not read.
    const own = "import { x } from '../../../schemas/tables/beta.ts';\nconst v = 'beta', w = 'gamma';";
    expect(named('ingest/venues/beta/sync.ts', own)).toEqual([
      'ingest/venues/beta/sync.ts:2 "gamma" [gamma]',
    ]);
    expect(named('api/queries/beta/markets.ts', own)).toEqual([
      'api/queries/beta/markets.ts:2 "gamma" [gamma]',
    ]);
    expect(named('schemas/api/beta-markets.ts', "const v = 'beta';")).toEqual([]);
    expect(named('schemas/venues/gamma.ts', "const v = 'gamma';")).toEqual([]);
    for (const f of [
      'jobs/venues.ts',
      'schemas/venues/index.ts',
      'jobs/x.test.ts',
      'sim/x.ts',
      'test/support/x.ts',
    ]) {
      expect(named(f, source)).toEqual([]);
    }
  });
});
