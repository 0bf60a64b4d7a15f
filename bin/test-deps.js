#!/usr/bin/env node
// Before the tests (`npm test`): finds redis-server, chromium and promtool, installing the missing ones
// with apt on Debian as root (core/system-packages.ts); elsewhere says how to get them and exits 1.
import { register } from 'tsx/esm/api';

register();
const { ensureTestPrograms } = await import('../test/support/test-deps.ts');
process.exit(ensureTestPrograms());
