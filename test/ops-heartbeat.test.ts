/**
 * Heartbeats on a real Redis: a role is listed with its pid, version and start while it beats, leaves the
 * list when it stops, and a role that died without stopping (its key not renewed) leaves it once its
 * heartbeat expired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PMDATA_VERSION, readRoles, startHeartbeat } from '../core/ops/heartbeat.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

describe('role heartbeats', () => {
  let deps: TestDeps;
  beforeAll(async () => {
    deps = await createTestDeps('ops_heartbeat', { migrate: false });
  });
  afterAll(async () => {
    await deps?.close();
  });

  it('lists a beating role, drops it on stop and once a dead one expired', async () => {
    const worker = startHeartbeat({ redis: deps.redis, log: deps.log, role: 'worker' });
    // Beats once, never again (its timer far away): like a process that died after starting.
    const dead = startHeartbeat({
      redis: deps.redis,
      log: deps.log,
      role: 'scheduler',
      ttlS: 1,
      intervalMs: 3_600_000,
    });
    await worker.beat();
    await dead.beat();
    const roles = await readRoles(deps.redis);
    expect(roles.map((r) => r.role)).toEqual(['scheduler', 'worker']);
    expect(roles[1]).toMatchObject({ role: 'worker', pid: process.pid, version: PMDATA_VERSION });
    expect(PMDATA_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(Date.parse(roles[1]!.started_at)).toBeLessThanOrEqual(Date.now());

    await new Promise((r) => setTimeout(r, 1_300));
    expect((await readRoles(deps.redis)).map((r) => r.role)).toEqual(['worker']);
    await worker.stop();
    expect(await readRoles(deps.redis)).toEqual([]);
    await dead.stop();
  });
});
