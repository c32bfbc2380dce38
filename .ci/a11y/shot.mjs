// node shot.mjs URL WIDTH OUT.png [scrollToSelector] [height] [dark]
import { chromium } from "playwright-core";
const [url, width, out, sel, height, dark] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const ctx = await browser.newContext({ viewport: { width: +width, height: +(height || 900) }, colorScheme: dark ? "dark" : "light", isMobile: +width < 500, hasTouch: +width < 500 });
const page = await ctx.newPage();
await page.goto(url, { waitUntil: "load" });
if (sel) await page.evaluate((s) => { const el = document.querySelector(s); if (el) el.scrollIntoView(); }, sel);
await page.waitForTimeout(300);
await page.screenshot({ path: out });
await browser.close();
