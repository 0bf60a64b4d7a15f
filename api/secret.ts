/**
 * The server secret that signs pagination cursors. Every API process of one deployment must use the
 * same one, or a cursor from one process is refused by the next: it comes from PMDATA_SECRET. In
 * embedded mode (one process, one data dir) an unset secret is generated once and kept in
 * `<dataDir>/api-secret`, so cursors survive restarts.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';

export function resolveApiSecret(config: Pick<Config, 'apiSecret' | 'embedded' | 'dataDir'>): string {
  if (config.apiSecret) return config.apiSecret;
  if (!config.embedded) {
    throw new ConfigError([
      {
        variable: 'PMDATA_SECRET',
        message:
          'unset, expected a string of at least 32 characters shared by every API process (cluster mode has no data dir to keep a generated one)',
      },
    ]);
  }
  const file = path.join(config.dataDir, 'api-secret');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new ConfigError([
      { variable: 'PMDATA_SECRET', message: `the kept secret in ${file} is too short` },
    ]);
  }
  return secret;
}
