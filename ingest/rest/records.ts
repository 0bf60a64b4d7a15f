/**
 * Record checks of REST upstream payloads, shared by the venue ingestors: a TypeBox schema per record
 * kind, compiled once; each record is checked on its own, and one that fails comes back as an
 * `InvalidRecord` (kind, the upstream's id of it, the first failure, the raw JSON) for the caller to
 * quarantine (store.ts), while the rest of the page goes on. Unknown fields are allowed: upstreams add
 * fields freely; a kept field must have its documented type when present.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

export interface InvalidRecord {
  kind: string;
  /** The record's id as far as it can be read ('' when none). */
  recordId: string;
  reason: string;
  payload: string;
}

export type CheckResult<T> = { ok: true; value: T } | { ok: false; invalid: InvalidRecord };

export interface RecordChecker<T> {
  readonly kind: string;
  check(raw: unknown): CheckResult<T>;
}

/**
 * A checker of one record kind. `idOf` reads the record's id from the raw value (it must not throw on a
 * malformed record; '' when there is none); `extra` adds rules a schema cannot say (lengths that must
 * agree), returning the failure or null.
 */
export function recordChecker<S extends TSchema>(
  kind: string,
  schema: S,
  idOf: (raw: Record<string, unknown>) => string,
  extra?: (value: Static<S>) => string | null,
): RecordChecker<Static<S>> {
  const compiled = TypeCompiler.Compile(schema);
  return {
    kind,
    check(raw) {
      let reason: string;
      if (compiled.Check(raw)) {
        const more = extra?.(raw as Static<S>) ?? null;
        if (more === null) return { ok: true, value: raw as Static<S> };
        reason = more;
      } else {
        const first = compiled.Errors(raw).First();
        reason = first ? `${first.path || '/'}: ${first.message}` : 'invalid record';
      }
      const id = raw !== null && typeof raw === 'object' ? idOf(raw as Record<string, unknown>) : '';
      return { ok: false, invalid: { kind, recordId: id, reason, payload: JSON.stringify(raw) ?? '' } };
    },
  };
}

/** A raw field as an id string: strings as they are, finite numbers in decimal, anything else ''. */
export function idText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

/** What one upstream read cost and found: the runner's accounting (ingest/rest/runner.ts `ctx.account`). */
export interface ReadCounts {
  /** Failed records, once per kind and id. */
  invalid: InvalidRecord[];
  requests: number;
  /** Pages or records read again after a repeat, a failed record or a short listing. */
  rereads: number;
}
