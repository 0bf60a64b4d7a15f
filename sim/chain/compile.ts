/**
 * Compiles the sim's Solidity sources (sim/contracts/*.sol) with the npm `solc` compiler, offline, and
 * caches the result under sim/contracts/build/<hash>.json (or SIM_CONTRACTS_BUILD_DIR), keyed by a hash of
 * the sources, the compiler version and the settings: a second call with unchanged sources costs one file
 * read.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';
import { PermanentError } from '../../core/errors.ts';

export const CONTRACTS_DIR = fileURLToPath(new URL('../contracts/', import.meta.url));
/** The compile cache: SIM_CONTRACTS_BUILD_DIR, else sim/contracts/build (read when the module loads). */
export const BUILD_DIR = process.env.SIM_CONTRACTS_BUILD_DIR || path.join(CONTRACTS_DIR, 'build');

export interface CompiledContract {
  abi: Abi;
  /** Runtime bytecode, placed with anvil_setCode. */
  deployedBytecode: Hex;
}

export type CompiledContracts = Record<string, CompiledContract>;

const SETTINGS = {
  evmVersion: 'paris',
  optimizer: { enabled: true, runs: 200 },
  viaIR: true,
  outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
} as const;

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { deployedBytecode: { object: string } } }>>;
}

function readSources(): Record<string, { content: string }> {
  const files = fs
    .readdirSync(CONTRACTS_DIR)
    .filter((f) => f.endsWith('.sol'))
    .sort();
  const sources: Record<string, { content: string }> = {};
  for (const f of files) sources[f] = { content: fs.readFileSync(path.join(CONTRACTS_DIR, f), 'utf8') };
  return sources;
}

function loadSolc(): { version(): string; compile(input: string): string } {
  const require = createRequire(import.meta.url);
  return require('solc');
}

let memo: CompiledContracts | undefined;

/** The cache file of the current sources, compiler version and settings. */
function cacheFileFor(sources: Record<string, { content: string }>): string {
  const solcPkg = createRequire(import.meta.url)('solc/package.json') as { version: string };
  const hash = createHash('sha256')
    .update(JSON.stringify({ sources, settings: SETTINGS, solc: solcPkg.version }))
    .digest('hex')
    .slice(0, 16);
  return path.join(BUILD_DIR, `${hash}.json`);
}

/** Whether `compileContracts()` will read the cache (false: it compiles, ≈ 20–50 s of one core). */
export function contractsCompiled(): boolean {
  return memo !== undefined || fs.existsSync(cacheFileFor(readSources()));
}

/** All contracts by name, compiled or read from the cache. */
export function compileContracts(): CompiledContracts {
  if (memo) return memo;
  const sources = readSources();
  const cacheFile = cacheFileFor(sources);
  if (fs.existsSync(cacheFile)) {
    memo = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as CompiledContracts;
    return memo;
  }
  const solc = loadSolc();
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new PermanentError(
      `Solidity compilation failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`,
    );
  }
  const out: CompiledContracts = {};
  for (const file of Object.values(output.contracts ?? {})) {
    for (const [name, c] of Object.entries(file)) {
      const code = c.evm.deployedBytecode.object;
      if (code.length === 0) continue; // interfaces and abstract contracts
      out[name] = { abi: c.abi, deployedBytecode: `0x${code}` };
    }
  }
  fs.mkdirSync(BUILD_DIR, { recursive: true });
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(out));
  fs.renameSync(tmp, cacheFile);
  memo = out;
  return out;
}
