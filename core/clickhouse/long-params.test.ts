/**
 * A bound list far longer than the engine's default 256 KiB statement limit reads back whole (the
 * embedded engine receives bound values spliced into the statement text).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('long_params', { migrate: false });
});
afterAll(async () => deps?.close());

it('binds a list of 10,000 uint256 decimals (≈ 800 KB of statement)', async () => {
  const ids = Array.from({ length: 10_000 }, (_, i) => (10n ** 76n + BigInt(i)).toString());
  const [row] = await deps.clickhouse.query<{ n: string; last: string }>(
    'test.long_params',
    'SELECT length({ids:Array(String)}) AS n, {ids:Array(String)}[-1] AS last',
    { ids },
  );
  expect(Number(row!.n)).toBe(10_000);
  expect(row!.last).toBe(ids.at(-1));
});
