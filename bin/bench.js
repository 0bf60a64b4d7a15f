#!/usr/bin/env node
// `npm run bench -- <name> [args]`: runs bench/<name>.ts's exported `run(args)`, which prints its figures.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bench');
const available = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.startsWith('_'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  process.stderr.write(
    `${name ? `Unknown benchmark "${name}". ` : ''}Usage: npm run bench -- <name> [args]\nBenchmarks: ${available.join(', ') || '(none)'}\n`,
  );
  process.exit(name ? 2 : 0);
}
const mod = await import(path.join(dir, `${name}.ts`));
await mod.run(args);
process.exit(0);
