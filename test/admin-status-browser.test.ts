/**
 * The status page in a real headless Chromium (Debian `chromium`, installed by .ci/run; driven by
 * puppeteer-core), signed in with HTTP Basic and the admin key: every source and product is shown with
 * the numbers of status.json, the quarantine counts too, the chart draws a series of 60 points per source
 * inside the plot, the screenshot is not blank and the page's text holds the same numbers (content, not
 * pixels).
 */
import fs from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusDocument } from '../api/routes/admin/status.ts';
import { useChain } from './support/chain.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { type StatusWorld, statusWorld } from './support/ops-status.ts';

// The in-page functions run in the browser; the project compiles without the DOM lib, so its globals
// are declared here for them only.
// biome-ignore lint/suspicious/noExplicitAny: browser globals, checked by the browser
declare const document: any;
// biome-ignore lint/suspicious/noExplicitAny: browser globals, checked by the browser
declare const Image: any;
// biome-ignore lint/suspicious/noExplicitAny: browser elements, checked by the browser
type El = { [k: string]: any };

const ADMIN_KEY = 'browser-admin-key-0123456789abcdefghij';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('status page in headless Chromium', () => {
  const chain = useChain();
  let deps: TestDeps;
  let world: StatusWorld;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does)`);
    deps = await createTestDeps('admin_status_browser', { env: { PMDATA_ADMIN_KEY: ADMIN_KEY } });
    world = await statusWorld(deps, chain.current, {
      polled: ['beta', 'epsilon'],
      behind: 5,
      quarantine: true,
      waiting: 2,
      admin: true,
    });
    url = await world.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
    await deps?.close();
  });

  it('shows every source, product and quarantine count of status.json, a 60-point chart, and is not blank', async () => {
    const doc = (await (
      await fetch(`${url}/admin/status.json`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).json()) as StatusDocument;
    const page = await browser.newPage();
    // The browser's way in: HTTP Basic with the admin key as password (the page is in the admin scope).
    await page.authenticate({ username: 'admin', password: ADMIN_KEY });
    await page.setViewport({ width: 1280, height: 1400 });
    const res = await page.goto(`${url}/admin/status`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('pmdata status');

    // The tables as the browser laid them out: cell texts per row.
    const rows = await page.evaluate(() => {
      const out: Record<string, string[][]> = {};
      for (const t of [...document.querySelectorAll('table')] as El[]) {
        out[t.id] = ([...t.querySelectorAll('tbody tr')] as El[]).map((tr) =>
          // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered is what is checked
          ([...tr.querySelectorAll('td')] as El[]).map((td) => (td as El).innerText.trim()),
        );
      }
      return out;
    });
    const show = (v: number | null) => (v === null ? '–' : String(v));
    expect(rows.sources!.map((r) => r[0])).toEqual(doc.sources.map((s) => s.source));
    for (const s of doc.sources) {
      const r = rows.sources!.find((x) => x[0] === s.source)!;
      expect(r[1]).toBe(s.kind);
      expect(r[2]!.startsWith(s.state)).toBe(true);
      expect(r.slice(3, 7)).toEqual([s.head, s.checkpoint, s.lag_blocks, s.lag_seconds].map(show));
    }
    expect(doc.sources.find((s) => s.source === 'alpha-chain')!.lag_blocks).toBe(5);
    expect(rows.products).toEqual(
      doc.products.map((p) => [p.product, p.computed_at ?? 'never', show(p.freshness_seconds)]),
    );
    expect(rows.quarantine).toEqual(doc.quarantine.map((q) => [q.source, q.kind, String(q.records)]));
    expect(doc.quarantine.length).toBeGreaterThan(0);

    // The chart: one series per source, 60 points each, drawn inside the plot area.
    const chart = await page.evaluate(() => {
      const svg = document.querySelector('#events-chart') as El;
      const box = svg.getBoundingClientRect();
      return {
        width: box.width,
        height: box.height,
        text: svg.textContent ?? '',
        series: ([...svg.querySelectorAll('polyline.series')] as El[]).map((p) => {
          const line = p as El;
          const b = line.getBoundingClientRect();
          return { source: line.dataset.source, points: line.points.numberOfItems, width: b.width };
        }),
      };
    });
    expect(chart.width).toBeGreaterThan(300);
    expect(chart.height).toBeGreaterThan(100);
    expect(chart.series.map((s) => s.source).sort()).toEqual(doc.sources.map((s) => s.source).sort());
    for (const s of chart.series) {
      expect(s.points).toBe(60);
      expect(s.width).toBeGreaterThan(300);
    }
    expect(chart.text).toContain('events/s');
    expect(chart.text).toContain('minute (UTC)');

    // The page's text holds the numbers.
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered is what is checked
    const text = await page.evaluate(() => document.body.innerText);
    for (const s of doc.sources) expect(text).toContain(s.source);
    for (const p of doc.products) expect(text).toContain(p.product);
    expect(text).toContain(String(doc.sources.find((s) => s.source === 'alpha-chain')!.head));
    expect(text).toContain(doc.generated_at!);

    // Not blank: the screenshot, drawn into a canvas, has many non-background pixels and several colours.
    const png = (await page.screenshot({ encoding: 'base64', fullPage: true })) as string;
    const blank = await browser.newPage();
    const pixels = await blank.evaluate(async (data) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      const bg = `${d[0]},${d[1]},${d[2]}`;
      const colours = new Set<string>();
      let other = 0;
      for (let i = 0; i < d.length; i += 4) {
        const k = `${d[i]},${d[i + 1]},${d[i + 2]}`;
        if (k !== bg) other++;
        if (colours.size < 1000) colours.add(k);
      }
      return { total: d.length / 4, other, colours: colours.size };
    }, png);
    expect(pixels.other / pixels.total).toBeGreaterThan(0.02);
    expect(pixels.colours).toBeGreaterThan(10);
    await blank.close();
    await page.close();
  }, 60_000);
});
