/**
 * The admin key: what the operator pages, `/metrics` and the queue dashboard accept (core/admin-auth.ts),
 * never an API key. `PMDATA_ADMIN_KEY` when set (at least 32 characters); in embedded mode an unset key
 * is generated once into `<data dir>/admin-key` (mode 0600) and kept, so a browser's saved login and a
 * Prometheus password file survive restarts; cluster mode without the variable has no admin key and
 * mounts no admin route (404).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { ConfigError } from './errors.ts';

export interface AdminKey {
  key: string;
  /** The file holding the generated key; null when it comes from PMDATA_ADMIN_KEY. */
  file: string | null;
}

export const adminKeyFile = (dataDir: string) => path.join(dataDir, 'admin-key');

export function resolveAdminKey(config: Pick<Config, 'adminKey' | 'embedded' | 'dataDir'>): AdminKey | null {
  if (config.adminKey) return { key: config.adminKey, file: null };
  if (!config.embedded) return null;
  const file = adminKeyFile(config.dataDir);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = fs.readFileSync(file, 'utf8').trim();
  if (key.length < 32) {
    throw new ConfigError([
      { variable: 'PMDATA_ADMIN_KEY', message: `the kept key in ${file} is too short` },
    ]);
  }
  return { key, file };
}
