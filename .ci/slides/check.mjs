// Opens slide decks in headless Chromium, offline (file://, every request that is not a
// file:// or data: URL is counted and aborted), and prints one JSON line per deck: slides,
// console errors, formulas (MathML laid out, raw TeX left), figures, slides whose content
// does not fit, and with --pdf the page count of ?print-pdf.
//   node check.mjs [--pdf] [--shots DIR] deck.html...
// playwright-core comes from ../a11y (its package-lock.json); Chromium is /usr/bin/chromium.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import path from "node:path";

const require = createRequire(new URL("../a11y/package.json", import.meta.url));
const { chromium } = require("playwright-core");
const args = process.argv.slice(2);
const pdf = args.includes("--pdf");
const shotsAt = args.indexOf("--shots");
const shots = shotsAt >= 0 ? args[shotsAt + 1] : null;
const decks = args.filter((a, i) => !a.startsWith("--") && (shotsAt < 0 || i !== shotsAt + 1));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
for (const deck of decks) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await ctx.newPage();
  const errors = [], network = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:")) return route.continue();
    network.push(url);
    return route.abort();
  });
  const url = pathToFileURL(path.resolve(deck)).href;
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => document.documentElement.dataset.kmReady === "1", null, { timeout: 20000 });
  const total = await page.evaluate(() => Reveal.getTotalSlides());
  const slides = [];
  for (let i = 0; i < total; i++) {
    await page.evaluate((k) => Reveal.slide(k), i);
    await page.waitForTimeout(30);
    slides.push(await page.evaluate(() => {
      const s = Reveal.getCurrentSlide();
      const inner = s.querySelector(".km-inner");
      const box = inner.getBoundingClientRect();
      const slidesBox = document.querySelector(".reveal .slides").getBoundingClientRect();
      const maths = [...inner.querySelectorAll("math")];
      const prose = inner.cloneNode(true);          // code may hold TeX in strings: not prose
      prose.querySelectorAll("pre, math").forEach((el) => el.remove());
      const text = prose.textContent;
      return {
        kind: s.dataset.kmKind, label: s.dataset.kmLabel || "",
        heading: (s.querySelector("h2") || s.querySelector("h1") || {}).textContent || "",
        math: maths.length,
        mathLaidOut: maths.filter((m) => getComputedStyle(m).display.includes("math")
          && m.getBoundingClientRect().width > 0).length,
        rawTex: /\$\$|\\\(|\\\[|\\(frac|begin|mathbb|sum|int)\b/.test(text),
        // a TeX command the converter did not know, left as text inside a formula
        texInMath: maths.flatMap((m) => [...m.querySelectorAll("mi, mo, mn, mtext")])
          .map((t) => t.textContent).filter((t) => /\\[A-Za-z]/.test(t)),
        images: [...s.querySelectorAll("img")].map((im) => im.complete && im.naturalWidth > 0
          && im.getBoundingClientRect().width > 0),
        fits: box.bottom <= slidesBox.bottom + 2 && box.right <= slidesBox.right + 2,
        notes: !!s.querySelector("aside.notes"),
        scale: inner.style.transform ? parseFloat(inner.style.transform.slice(6)) : 1,
      };
    }));
    if (shots && (i < 3 || i % 4 === 0)) {
      await page.screenshot({ path: path.join(shots, `${path.basename(deck, ".html")}-${String(i).padStart(2, "0")}.png`) });
    }
  }
  // the speaker view (key s): reveal.js's notes plugin opens it in a window of its own
  await page.evaluate(() => Reveal.slide(2));
  const [speaker] = await Promise.all([ctx.waitForEvent("page", { timeout: 15000 }),
    page.keyboard.press("s")]);
  speaker.on("console", (m) => { if (m.type() === "error") errors.push("speaker view: " + m.text()); });
  await speaker.waitForFunction(() => (document.querySelector(".speaker-controls-notes") || {})
    .innerText?.trim().length > 20, null, { timeout: 15000 }).catch(() => {});
  const speakerNotes = await speaker.evaluate(() =>
    ((document.querySelector(".speaker-controls-notes") || {}).innerText || "").trim().length);
  await speaker.close();
  let pages = null;
  if (pdf) {
    const p2 = await ctx.newPage();
    p2.on("console", (m) => { if (m.type() === "error") errors.push("print-pdf: " + m.text()); });
    p2.on("pageerror", (e) => errors.push("print-pdf: " + String(e)));
    await p2.goto(url + "?print-pdf", { waitUntil: "load" });
    await p2.waitForFunction(() => document.documentElement.dataset.kmPdf === "1", null, { timeout: 30000 });
    const bytes = await p2.pdf({ preferCSSPageSize: true, printBackground: true });
    pages = (bytes.toString("latin1").match(/\/Type\s*\/Page[^s]/g) || []).length;
    if (shots) fs.writeFileSync(path.join(shots, `${path.basename(deck, ".html")}.pdf`), bytes);
  }
  console.log(JSON.stringify({ deck: path.basename(deck), total, errors, network, pages,
    speakerNotes, slides }));
  await ctx.close();
}
await browser.close();
