import { defineConfig } from 'vitest/config';

// Every test file runs in its own forked process: chDB is one engine per process, so a file
// gets its own engine directory and database (see test/support/clickhouse.ts).
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', 'data/**'],
    pool: 'forks',
    isolate: true,
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    maxWorkers: 2,
  },
});
