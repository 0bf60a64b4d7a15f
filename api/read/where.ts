/**
 * The WHERE of a read: fixed SQL fragments with `{name:Type}` placeholders and the values bound to them,
 * joined by AND. Values only ever travel as bound parameters, never spliced into the SQL.
 */

/** A fixed SQL fragment with `{name:Type}` placeholders and the values bound to them. */
export interface Condition {
  sql: string;
  params: Record<string, unknown>;
}

/** Conditions joined by AND; a name bound twice must carry the same value. */
export function createWhere() {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  return {
    params,
    add(c: Condition) {
      for (const [k, v] of Object.entries(c.params)) {
        if (k in params && params[k] !== v) throw new Error(`Query parameter ${k} is bound twice`);
        params[k] = v;
      }
      parts.push(c.sql);
    },
    sql(): string {
      return parts.length === 0 ? '' : `WHERE ${parts.map((p) => `(${p})`).join(' AND ')}`;
    },
  };
}

export type Where = ReturnType<typeof createWhere>;
