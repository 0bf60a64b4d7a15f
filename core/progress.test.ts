/**
 * The progress reporter on real writable streams: one line rewritten in place on a terminal, a plain
 * line every interval otherwise, the summary in every mode, and `--json`'s single JSON line.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress, outputMode, progressIntervalMs, streamIo } from './progress.ts';

/** A writable stream keeping what was written; `isTTY` as a terminal's stream has it. */
function capture(isTTY: boolean) {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk, _enc, cb) {
        text += String(chunk);
        cb();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => text };
}

/** A clock the test moves. */
function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('progress reporter', () => {
  it('on a terminal rewrites one line: bar, done/total with unit, %, rates, ETA', () => {
    const out = capture(false);
    const err = capture(true);
    const c = clock();
    const p = createProgress({ label: 'alpha backfill', io: streamIo(out.stream, err.stream), now: c.now });
    p.phase('blocks', 1_000);
    for (let i = 1; i <= 4; i++) {
      c.advance(1_000);
      p.update(i * 100, { counters: { events: i * 5_000 }, extra: `jobs ${i}/10` });
    }
    const draws = err.text().split('\r').filter(Boolean);
    expect(draws).toHaveLength(4);
    expect(err.text()).not.toContain('\n');
    expect(draws.at(-1)).toBe(
      'alpha backfill 400/1,000 blocks [##########..............] 40.0% 100 blocks/s 5,000 events/s ETA 6s jobs 4/10\x1b[K',
    );
    p.finish({ status: 'done', done: { blocks: 1_000, events: 50_000 }, failures: 0, quarantined: 3 });
    // The last line stays, ended by a newline; the summary goes to stdout.
    expect(err.text().endsWith('\x1b[K\n')).toBe(true);
    expect(out.text()).toBe(
      'alpha backfill done in 4.0 s: 1,000 blocks, 50,000 events; 250 blocks/s, 12,500 events/s; 0 failed, 3 quarantined\n',
    );
  });

  it('redraws at most every redrawMs on a terminal', () => {
    const err = capture(true);
    const c = clock();
    const p = createProgress({
      label: 'x',
      io: streamIo(capture(false).stream, err.stream),
      now: c.now,
      redrawMs: 250,
    });
    p.phase('blocks', 100);
    for (let i = 1; i <= 10; i++) {
      c.advance(50);
      p.update(i);
    }
    // Updates at 50, 100, …, 500 ms: drawn at 50 and 300 ms only.
    expect(err.text().split('\r').filter(Boolean)).toEqual([
      expect.stringMatching(/^x 1\/100 blocks/),
      expect.stringMatching(/^x 6\/100 blocks/),
    ]);
  });

  it('not on a terminal prints a plain line every interval, none in between', () => {
    const err = capture(false);
    const c = clock();
    const p = createProgress({
      label: 'alpha backfill',
      io: streamIo(capture(false).stream, err.stream),
      now: c.now,
      intervalMs: 10_000,
    });
    p.phase('blocks', 600);
    for (let s = 1; s <= 35; s++) {
      c.advance(1_000);
      p.update(s * 10, { counters: { events: s * 30 } });
    }
    const lines = err.text().split('\n').filter(Boolean);
    expect(err.text()).not.toContain('\r');
    expect(lines).toEqual([
      'alpha backfill 100/600 blocks (16.7%) 10 blocks/s 30 events/s ETA 50s',
      'alpha backfill 200/600 blocks (33.3%) 10 blocks/s 30 events/s ETA 40s',
      'alpha backfill 300/600 blocks (50.0%) 10 blocks/s 30 events/s ETA 30s',
    ]);
  });

  it('a phase without a total shows the count and rate, no % or ETA', () => {
    const err = capture(true);
    const c = clock();
    const p = createProgress({ label: 'gamma', io: streamIo(capture(false).stream, err.stream), now: c.now });
    p.phase('requests', null);
    c.advance(2_000);
    p.update(40, { extra: 'markets' });
    expect(err.text()).toBe('\rgamma 40 requests 20 requests/s markets\x1b[K');
  });

  it('notes end the rewritten line first; quiet keeps the summary and warnings only', () => {
    const out = capture(false);
    const err = capture(true);
    const c = clock();
    const p = createProgress({ label: 'b', io: streamIo(out.stream, err.stream), now: c.now });
    p.phase('blocks', 10);
    p.update(1);
    p.note('Enqueued 3 jobs');
    expect(err.text()).toBe('\rb 1/10 blocks [##......................] 10.0% 1,000 blocks/s ETA ?\x1b[K\n');
    expect(out.text()).toBe('Enqueued 3 jobs\n');

    const qout = capture(false);
    const qerr = capture(true);
    const q = createProgress({
      label: 'b',
      io: streamIo(qout.stream, qerr.stream),
      mode: 'quiet',
      now: c.now,
    });
    q.phase('blocks', 10);
    q.update(5);
    q.note('Enqueued 3 jobs');
    q.warn('Stopping');
    c.advance(2_000);
    q.finish({ status: 'stopped', done: { blocks: 5 }, failures: 0, quarantined: 0, detail: 'SIGINT' });
    expect(qerr.text()).toBe('');
    expect(qout.text()).toBe(
      'Stopping\nb stopped in 2.0 s: SIGINT; 5 blocks (3 blocks/s); 0 failed, 0 quarantined\n',
    );
  });

  it('--json: stdout holds the summary as one JSON line and nothing else', () => {
    const out = capture(false);
    const err = capture(true);
    const c = clock();
    const p = createProgress({
      label: 'alpha backfill',
      io: streamIo(out.stream, err.stream),
      mode: 'json',
      now: c.now,
    });
    p.note('Enqueued 2 jobs');
    p.phase('blocks', 100);
    c.advance(4_000);
    p.update(100, { counters: { events: 400 } });
    const s = p.finish({
      status: 'done',
      done: { blocks: 100, events: 400 },
      failures: 0,
      quarantined: 2,
      detail: 'blocks 1..100',
      fields: { rows: 380, from: 1, to: 100 },
    });
    const lines = out.text().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const parsed = JSON.parse(lines[0]!);
    expect(parsed).toEqual(s);
    expect(parsed).toEqual({
      command: 'alpha backfill',
      status: 'done',
      done: { blocks: 100, events: 400 },
      duration_s: 4,
      rates: { blocks_per_s: 25, events_per_s: 100 },
      failures: 0,
      quarantined: 2,
      rows: 380,
      from: 1,
      to: 100,
    });
    // No progress line under --json; the note went to stderr.
    expect(err.text()).toBe('Enqueued 2 jobs\n');
  });

  it('reads --quiet, --json and --progress-interval', () => {
    expect(outputMode({})).toBe('normal');
    expect(outputMode({ quiet: true })).toBe('quiet');
    expect(outputMode({ quiet: true, json: true })).toBe('json');
    expect(progressIntervalMs(undefined)).toBe(10_000);
    expect(progressIntervalMs('0.2')).toBe(200);
    expect(() => progressIntervalMs('0')).toThrow(
      '--progress-interval: expected a number of seconds > 0, got "0"',
    );
    expect(() => progressIntervalMs('soon')).toThrow(/got "soon"/);
  });
});
