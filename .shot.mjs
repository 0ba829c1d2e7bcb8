// scratch: screenshots of the app (not committed)
import { chromium } from '@playwright/test';
const [,, url, out, w, h, full] = process.argv;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const page = await browser.newPage({ viewport: { width: Number(w), height: Number(h) } });
await page.goto(url);
await page.waitForSelector('[data-testid="price-chart"][data-status="ready"], [data-testid="market-overview"]', { timeout: 30000 }).catch(() => {});
await page.waitForTimeout(2500);
await page.screenshot({ path: out, fullPage: full === 'full' });
const info = await page.evaluate(() => {
  const c = document.querySelector('[data-testid="price-chart"]');
  const r = c?.getBoundingClientRect();
  return r ? { top: r.top, height: r.height, vh: innerHeight } : null;
});
console.log(JSON.stringify(info));
await browser.close();
