/**
 * Reading Prometheus text exposition in tests: the value of one sample by name and labels, so a test
 * counts deltas of what a scrape shows (metric objects are process singletons shared by every app).
 */

/** Every sample of `text` as [name, labels, value]. */
export function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const out: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/**
 * The value of the sample `name` whose labels include `labels` (0 when there is none: a counter not yet
 * incremented); fails when several samples match.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = samples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}
