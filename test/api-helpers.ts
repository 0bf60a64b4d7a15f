/**
 * Shared set-up for the API tests: real chDB and Redis from createTestDeps, an app built on them, and a
 * key store on the same (prefixed) Redis to issue keys.
 */
import type { Tier } from '../api/access.ts';
import { type App, type AppOptions, buildApp } from '../api/app.ts';
import { createKeyStore, type KeyStore } from '../api/keys/store.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

export const TEST_SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

export interface ApiTestContext {
  deps: TestDeps;
  app: App;
  keys: KeyStore;
  /** A fresh key of `tier` (each test takes its own so rate limits do not interfere). */
  key(tier: Tier, rate?: number): Promise<string>;
  close(): Promise<void>;
}

export async function createApiTestContext(
  name: string,
  options: AppOptions & { env?: Record<string, string> } = {},
): Promise<ApiTestContext> {
  const deps = await createTestDeps(name, { env: options.env });
  const app = await buildApp({
    ...deps,
    secret: options.secret ?? TEST_SECRET,
    extraRoutes: options.extraRoutes,
  });
  const keys = createKeyStore(deps.redis);
  return {
    deps,
    app,
    keys,
    async key(tier, rate) {
      return (await keys.create({ tier, name: `test-${tier}`, rate })).key;
    },
    async close() {
      await app.close();
      await deps.close();
    },
  };
}
