/**
 * The read layer's rules, checked on the source (docs/contributing.md "An API route"): a query module reads
 * named rows typed from the table descriptions (core/clickhouse/table.ts `select`/`fields`), never
 * positional tuples, `unknown[]` rows or index constants; and every page is cut by the one keyset engine
 * (api/read/keyset.ts): no other module encodes a cursor or cuts a `limit + 1` read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..');

function files(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? files(path.join(dir, e.name))
        : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
          ? [path.join(dir, e.name)]
          : [],
    );
}

/** Lines of `file` matching `re`, as `file:line: text`, comments left out. */
function offences(file: string, re: RegExp): string[] {
  return fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (/^\s*\*/.test(code) || !re.test(code)) return [];
      return [`${file}:${i + 1}: ${line.trim()}`];
    });
}

const QUERY_MODULES = [...files('api/queries'), ...files('api/resources'), ...files('schemas/api')];

describe('the read layer', () => {
  it('reads named rows: no positional read types, unknown[] rows or index constants in the query modules', () => {
    const found = QUERY_MODULES.flatMap((f) => [
      // A typed positional read (`read<[string, number]>`, `read<unknown[]>`): rows come zipped by a selection.
      ...offences(f, /\.read<\s*(\[|unknown|[A-Z]\w*Row\b)/),
      // Rows as bare arrays: `unknown[][]`, or a row parameter typed `unknown[]`.
      ...offences(f, /unknown\[\]\[\]|\b(row|r|v|values|raw)\??\s*:\s*(readonly\s+)?unknown\[\]/),
      // Index constants into a row: `r[TOKEN_ID]`.
      ...offences(f, /\b[a-z]\w*\[[A-Z][A-Z0-9_]+\]/),
    ]);
    expect(found).toEqual([]);
  });

  it('cuts every page with the one keyset engine', () => {
    const engines = ['api/read/keyset.ts', 'api/pagination.ts'];
    const found = [...files('api'), ...files('schemas')]
      .filter((f) => !engines.includes(f))
      .flatMap((f) => [...offences(f, /\bcursors\.encode\(/), ...offences(f, /\bpaginate\(/)]);
    expect(found).toEqual([]);
  });
});
