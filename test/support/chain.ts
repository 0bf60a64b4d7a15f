/**
 * A private anvil chain for a test file: `useChain()` starts one in `beforeAll` and stops it in
 * `afterAll`; `startTestChain()` is the same launcher without hooks. Chain id 137, no automine
 * unless asked, deterministic (see sim/chain/anvil.ts for the flags).
 */
import { afterAll, beforeAll } from 'vitest';
import { type Anvil, type StartAnvilOptions, startAnvil } from '../../sim/chain/anvil.ts';

export type { Anvil, StartAnvilOptions };

export function startTestChain(options: StartAnvilOptions = {}): Promise<Anvil> {
  return startAnvil({ startTimeoutMs: 15_000, ...options });
}

/** Starts a chain for the file; read `chain.current` inside tests. */
export function useChain(options: StartAnvilOptions = {}): { readonly current: Anvil } {
  let anvil: Anvil | undefined;
  beforeAll(async () => {
    anvil = await startTestChain(options);
  });
  afterAll(async () => {
    await anvil?.stop();
  });
  return {
    get current(): Anvil {
      if (!anvil) throw new Error('useChain(): the chain is only available inside tests');
      return anvil;
    },
  };
}
