/**
 * What every role does for the operations view (docs/operations.md "Status page"): its heartbeat (and the
 * flush of its per-minute event counts), and in the scheduler role and `up`, the snapshot sampler.
 */
import { startHeartbeat } from '../core/ops/heartbeat.ts';
import { createOpsSampler } from './ops-sampler.ts';
import type { Queues } from './queues.ts';
import { openRuntime, type Runtime } from './runtime.ts';

/** Opens a role's runtime (jobs/runtime.ts) and starts its heartbeat. */
export async function openRole(role: string): Promise<Runtime> {
  const runtime = await openRuntime({ name: role });
  startRoleHeartbeat(runtime, role);
  return runtime;
}

/** Starts the heartbeat of a process's role (removed on close). */
export function startRoleHeartbeat(runtime: Runtime, role: string): void {
  const heartbeat = startHeartbeat({ redis: runtime.deps.redis, log: runtime.deps.log, role });
  runtime.onClose(() => heartbeat.stop());
}

/** Starts the snapshot sampler on the scheduler's queues; stopped on close. */
export function startOpsSampler(runtime: Runtime, queues: Pick<Queues, 'get'>): void {
  const sampler = createOpsSampler({ deps: runtime.deps, queues });
  sampler.start();
  runtime.onClose(() => sampler.stop());
}
