/**
 * Every option of every `pmdata` command shows its default in `--help` (a flag: "default: off"), or says
 * it is required: the help text of each command as `pmdata <command> --help` prints it (commandHelp, in
 * this process: no service is opened for help), and the top-level help's options.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandHelp, GLOBAL_OPTIONS_HELP } from '../jobs/cli.ts';

/**
 * The option entries of a help text: a line starting (after its indent) with `-`, with the lines that
 * continue it (indented deeper, not starting with `-`).
 */
function optionEntries(help: string): string[] {
  const entries: { indent: number; text: string }[] = [];
  let current: { indent: number; text: string } | null = null;
  for (const line of help.split('\n')) {
    const indent = line.length - line.trimStart().length;
    const text = line.trim();
    if (indent > 0 && text.startsWith('-')) {
      current = { indent, text };
      entries.push(current);
    } else if (current && text !== '' && indent > current.indent) {
      current.text += ` ${text}`;
    } else {
      current = null;
    }
  }
  return entries.map((e) => e.text);
}

/** The help flag itself is the one option without a default. */
const isHelp = (entry: string) => /^(-h, --help|--help, -h)\b/.test(entry);
const showsDefault = (entry: string) =>
  /\((?:[^()]*; )?default: [^)]+\)|\(required\b|; required\)/.test(entry);

describe('pmdata --help', () => {
  it('every command: every option shows its default (or that it is required)', async () => {
    const missing: string[] = [];
    let options = 0;
    for (const name of Object.keys(COMMANDS)) {
      const help = await commandHelp(name);
      expect(help, name).toContain('--log-format');
      for (const entry of optionEntries(help)) {
        if (isHelp(entry)) continue;
        options++;
        if (!showsDefault(entry)) missing.push(`pmdata ${name}: ${entry}`);
      }
    }
    expect(missing).toEqual([]);
    // The walk saw the options (a parser finding none would pass vacuously).
    expect(options).toBeGreaterThan(40);
  });

  it('the options of every command show theirs too; flags say "off"', async () => {
    for (const entry of optionEntries(GLOBAL_OPTIONS_HELP.join('\n'))) {
      if (!isHelp(entry)) expect(showsDefault(entry), entry).toBe(true);
    }
    expect(await commandHelp('sim')).toMatch(/^ {2}--live .*\(default: off[^)]*\)/m);
    expect(await commandHelp('status')).toMatch(/^ {2}--json .*\(default: off\)/m);
    expect(await commandHelp('status')).toMatch(/^ {2}--watch .*\(default: off\)/m);
    expect(await commandHelp('tail')).toMatch(/^ {2}--count <value> .*\(default: [^)]+\)/m);
    expect(await commandHelp('analytics')).toMatch(/^ {2}--from-block N .*\(default: [^)]+\)/m);
  });
});
