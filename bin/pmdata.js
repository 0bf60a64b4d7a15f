#!/usr/bin/env node
// The `pmdata` command. Sources are TypeScript, loaded through tsx's ESM hooks (no build step needed).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../jobs/cli.ts');
await main(process.argv.slice(2));
