import { toEventSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { ALPHA_ADDRESS_SETS, allContracts } from './alpha-addresses.ts';
import { ALPHA_EVENT_TOPICS, EVENTS_BY_KIND, eventAbi } from './alpha-events.ts';

describe('alpha event ABIs', () => {
  it('every signature parses and every topic0 named in alpha-chain.md is produced by some signature', () => {
    const produced = new Set<string>();
    for (const kind of Object.keys(EVENTS_BY_KIND) as (keyof typeof EVENTS_BY_KIND)[]) {
      for (const ev of eventAbi(kind)) produced.add(toEventSelector(ev));
    }
    for (const [name, topic] of Object.entries(ALPHA_EVENT_TOPICS)) {
      expect(produced.has(topic), name).toBe(true);
    }
  });

  it('no contract kind declares two events with the same topic0', () => {
    for (const kind of Object.keys(EVENTS_BY_KIND) as (keyof typeof EVENTS_BY_KIND)[]) {
      const topics = eventAbi(kind).map((e) => toEventSelector(e));
      expect(new Set(topics).size, kind).toBe(topics.length);
    }
  });

  it('address sets hold each address once and in checksummed form', () => {
    const all = allContracts(ALPHA_ADDRESS_SETS).map((c) => c.address.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
  });
});
