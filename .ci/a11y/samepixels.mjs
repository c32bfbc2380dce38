// node samepixels.mjs A.html B.html [...pairs]: are two pages drawn pixel for pixel the
// same (full-page screenshots in the Debian Chromium)? For each pair, prints "same" or the
// index of the first child of <main> whose screenshot differs.
import { chromium } from "playwright-core";
const files = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
const shoot = async (file) => {
  await page.goto(`file://${file}`, { waitUntil: "load" });
  await page.evaluate(() => document.fonts.ready);
  return page.screenshot({ fullPage: true });
};
let differ = 0;
for (let k = 0; k < files.length; k += 2) {
  const [a, b] = [await shoot(files[k]), await shoot(files[k + 1])];
  if (a.equals(b)) { console.log(`${files[k + 1]}: same`); continue; }
  differ += 1;
  // find the first block that differs
  const count = await page.evaluate(() => document.querySelector("main").children.length);
  const shots = async (file) => {
    await page.goto(`file://${file}`, { waitUntil: "load" });
    const out = [];
    for (let i = 0; i < count; i += 1) {
      const el = page.locator(`main > :nth-child(${i + 1})`);
      out.push(await el.screenshot());
    }
    return out;
  };
  const [sa, sb] = [await shots(files[k]), await shots(files[k + 1])];
  const bad = sa.map((s, i) => (s.equals(sb[i]) ? -1 : i)).filter((i) => i >= 0);
  console.log(`${files[k + 1]}: ${bad.length} blocks differ: ${bad.slice(0, 10).join(" ")}`);
}
await browser.close();
process.exit(differ ? 1 : 0);
