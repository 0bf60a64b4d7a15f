import { describe, expect, it } from 'vitest';
import { needsAttention, productStatus, sourceStatus } from './snapshot.ts';

const limits = { lagWarnS: 300, stallS: 600 };
const NOW = Date.UTC(2026, 10, 26, 12);
const chain = { source: 'alpha-chain', kind: 'chain' as const };
const rest = { source: 'beta', kind: 'rest' as const };

describe('source states', () => {
  it('a caught-up chain is ok whatever the age of its checkpoint', () => {
    const s = sourceStatus(
      chain,
      { head: { block: 100, time: NOW }, checkpoint: { block: 100, time: NOW, movedAt: NOW - 3_600_000 } },
      NOW,
      limits,
    );
    expect(s).toMatchObject({ lag_blocks: 0, lag_seconds: 0, state: 'ok' });
  });

  it('a chain behind by more than OPS_LAG_WARN_S of block time lags; without progress for OPS_STALL_S it stalls', () => {
    const read = (movedAt: number) => ({
      head: { block: 500, time: NOW },
      checkpoint: { block: 300, time: NOW - 400_000, movedAt },
    });
    expect(sourceStatus(chain, read(NOW - 1_000), NOW, limits)).toMatchObject({
      lag_blocks: 200,
      lag_seconds: 400,
      state: 'lagging',
    });
    expect(sourceStatus(chain, read(NOW - 601_000), NOW, limits).state).toBe('stalled');
  });

  it('a REST source lags past OPS_LAG_WARN_S since its last good poll, stalls past OPS_STALL_S, and never polled is stalled', () => {
    const polled = (ago: number) => ({
      head: { block: null, time: NOW },
      checkpoint: { block: null, time: NOW - ago, movedAt: NOW - ago },
    });
    expect(sourceStatus(rest, polled(30_000), NOW, limits)).toMatchObject({ lag_seconds: 30, state: 'ok' });
    expect(sourceStatus(rest, polled(301_000), NOW, limits).state).toBe('lagging');
    expect(sourceStatus(rest, polled(601_000), NOW, limits).state).toBe('stalled');
    expect(
      sourceStatus(rest, { head: { block: null, time: NOW }, checkpoint: null }, NOW, limits).state,
    ).toBe('stalled');
  });

  it('an unreadable head is never ok and says why', () => {
    const s = sourceStatus(
      chain,
      { head: null, checkpoint: { block: 10, time: NOW, movedAt: NOW }, error: 'connect ECONNREFUSED' },
      NOW,
      limits,
    );
    expect(s).toMatchObject({
      state: 'lagging',
      head: null,
      lag_blocks: null,
      error: 'connect ECONNREFUSED',
    });
  });

  it('freshness is now − computed_at; failed jobs or a source not ok need attention', () => {
    expect(productStatus('p', NOW - 90_500, NOW)).toEqual({
      product: 'p',
      computed_at: new Date(NOW - 90_500).toISOString(),
      freshness_seconds: 90.5,
    });
    const q = { queue: 'chain', waiting: 0, active: 0, delayed: 0, failed: 0, completed: 3 };
    const ok = sourceStatus(
      rest,
      { head: { block: null, time: NOW }, checkpoint: { block: null, time: NOW, movedAt: NOW } },
      NOW,
      limits,
    );
    expect(needsAttention({ sources: [ok], queues: [q] })).toBe(false);
    expect(needsAttention({ sources: [ok], queues: [{ ...q, failed: 1 }] })).toBe(true);
    expect(needsAttention({ sources: [{ ...ok, state: 'lagging' }], queues: [q] })).toBe(true);
  });
});
