// Layout check of the built website in headless Chromium (playwright-core):
//  * at 400 px wide (a phone), no formula is cut off: every formula that is wider than the
//    text column lies in a box that scrolls sideways (overflow-x auto/scroll);
//  * at 1300 px (a desktop), every line of a code cell is shown whole (no sideways
//    scrolling inside a code cell);
//  * no page logs a console error or throws;
//  * the search page, opened from disk (file://), lists results with excerpts and no
//    raw TeX in them.
//   node narrow.mjs [site folder] [--pages a.html,b.html]
// Exits 1 on any problem, 2 when the check could not run.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
let site = path.resolve(here, "../../_build/html");
let only = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--pages") only = args[++i].split(",");
  else site = path.resolve(args[i]);
}
if (!fs.existsSync(path.join(site, "index.html"))) {
  console.error(`no built site in ${site} (run make book first)`);
  process.exit(2);
}
const list = only || ["intro.html",
  ...fs.readdirSync(path.join(site, "chapters")).filter((f) => f.endsWith(".html")).map((f) => `chapters/${f}`),
  ...fs.readdirSync(path.join(site, "exercises")).filter((f) => f.endsWith(".html")).map((f) => `exercises/${f}`),
  "running.html", "notation.html", "bibliography.html", "search.html"].sort();
const executablePath = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .find((p) => fs.existsSync(p));
if (!executablePath) {
  console.error("no Chromium found (apt-get install chromium, or set CHROMIUM)");
  process.exit(2);
}

async function typeset(page) {
  await page.evaluate(() => (window.MathJax && window.MathJax.startup
    && window.MathJax.startup.promise) ? window.MathJax.startup.promise : null).catch(() => {});
}

const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
let problems = 0;
try {
  for (const [width, what] of [[400, "math"], [1300, "code"]]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    for (const rel of list) {
      errors.length = 0;
      await page.goto(pathToFileURL(path.join(site, rel)).href, { waitUntil: "load" });
      await typeset(page);
      await page.evaluate(() => window.kmbookFitAll && window.kmbookFitAll()).catch(() => {});
      const found = await page.evaluate((what) => {
        const bad = [];
        const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
        if (what === "math") {
          const main = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
          const limit = Math.min(window.innerWidth, document.documentElement.clientWidth);
          for (const m of main.querySelectorAll("span.math, div.math > math, mjx-container")) {
            const r = m.getBoundingClientRect();
            if (r.width === 0) continue;
            // the nearest ancestor that clips or scrolls sideways
            let box = m.parentElement;
            while (box && box !== document.body && getComputedStyle(box).overflowX === "visible") {
              box = box.parentElement;
            }
            const right = box && box !== document.body
              ? Math.min(box.getBoundingClientRect().right, limit) : limit;
            if (r.right > right + 1 && !(box && box !== document.body && scrolls(box))) {
              bad.push(`formula cut off at ${Math.round(right)} px (reaches ${Math.round(r.right)} px): `
                + (m.getAttribute("aria-label") || m.textContent).slice(0, 60));
            }
          }
          if (document.documentElement.scrollWidth > window.innerWidth + 1) {
            bad.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px)`);
          }
        } else {
          // hidden code too: its cells opened first (a closed one lays out nothing)
          for (const details of document.querySelectorAll("details.hide")) details.open = true;
          for (const pre of document.querySelectorAll(".cell_input pre")) {
            if (pre.scrollWidth > pre.clientWidth + 1) {
              const line = pre.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "");
              bad.push(`code line cut off (${pre.scrollWidth} > ${pre.clientWidth} px): ${line.slice(0, 70)}`);
            }
          }
        }
        return bad;
      }, what);
      for (const e of errors) found.push(`console error: ${e.slice(0, 160)}`);
      for (const f of found) console.log(`${width}px\t${rel}\t${f}`);
      problems += found.length;
    }
    await context.close();
  }
  // search over file://: results with excerpts, no raw TeX, no console error
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  for (const query of ["Nyström", "reproducing kernel", "ridge"]) {
    errors.length = 0;
    const url = pathToFileURL(path.join(site, "search.html")).href + "?q=" + encodeURIComponent(query);
    await page.goto(url, { waitUntil: "load" });
    let found = [];
    try {
      await page.waitForFunction(() => document.querySelectorAll("#search-results li").length > 0
        && document.querySelector(".search-summary, #search-results > p"), null, { timeout: 30000 });
      await page.waitForTimeout(1500);   // the excerpts arrive after the result list
      const r = await page.evaluate(() => {
        const items = [...document.querySelectorAll("#search-results li")];
        // an API object shows its description (a span) instead of an excerpt, by design
        const excerpts = items.map((li) => (li.querySelector("p.context, span") || {}).textContent || "");
        return { items: items.length, excerpts };
      });
      if (r.items === 0) found.push("no result");
      const missing = r.excerpts.filter((e) => !e).length;
      if (missing) found.push(`${missing} of ${r.items} results without an excerpt`);
      for (const e of r.excerpts.filter((e) => /\\[()[\]]|\\[A-Za-z]+/.test(e)).slice(0, 3)) {
        found.push(`raw TeX in an excerpt: ${e.slice(0, 100)}`);
      }
    } catch (e) {
      found.push(`no search result: ${String(e).slice(0, 100)}`);
    }
    for (const e of errors) found.push(`console error: ${e.slice(0, 160)}`);
    for (const f of found) console.log(`search\t${query}\t${f}`);
    problems += found.length;
  }
  await context.close();
} finally {
  await browser.close();
}
console.log(`${list.length} pages at 400 px and 1300 px, 3 searches over file://: ${problems} problems`);
process.exit(problems ? 1 : 0);
