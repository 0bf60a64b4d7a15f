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
  sourceFiles,
} from './support/import-direction.ts';

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
});
