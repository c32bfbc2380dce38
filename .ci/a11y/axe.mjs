// Accessibility check of the built website: axe-core (WCAG 2.0, 2.1 and 2.2, levels A and AA)
// in headless Chromium (the Debian package, driven by playwright-core), over every page of
// the site, in light and in dark mode, opened through file:// as a reader opens the build.
//
//   node axe.mjs [site folder, default ../../_build/html] [--json report.json] [--pages a.html,b.html]
//
// Prints one line per rule and page that fails and a summary; exits 1 when any element
// violates a rule, 2 when the check could not run.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const args = process.argv.slice(2);
let site = path.resolve(here, "../../_build/html");
let jsonOut = null;
let only = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--json") jsonOut = args[++i];
  else if (args[i] === "--pages") only = args[++i].split(",");
  else site = path.resolve(args[i]);
}
if (!fs.existsSync(path.join(site, "index.html"))) {
  console.error(`no built site in ${site} (run make book first)`);
  process.exit(2);
}

function pages(dir, rel = "") {
  const found = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const name = path.join(rel, entry.name);
    if (entry.isDirectory()) {
      if (!["_static", "_sources", "_images", "downloads", "_downloads"].includes(entry.name)) {
        found.push(...pages(dir, name));
      }
    } else if (entry.name.endsWith(".html")) {
      found.push(name);
    }
  }
  return found.sort();
}

const executablePath = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .find((p) => fs.existsSync(p));
if (!executablePath) {
  console.error("no Chromium found (apt-get install chromium, or set CHROMIUM)");
  process.exit(2);
}

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
const list = only || pages(site);
const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
const report = [];
let total = 0;
try {
  for (const mode of ["light", "dark"]) {
    const context = await browser.newContext({ viewport: { width: 1300, height: 900 },
                                               colorScheme: mode });
    // the theme reads the reader's choice from localStorage before it paints
    await context.addInitScript((m) => {
      localStorage.setItem("mode", m);
      localStorage.setItem("theme", m);
    }, mode);
    const page = await context.newPage();
    for (const rel of list) {
      const url = pathToFileURL(path.join(site, rel)).href;
      await page.goto(url, { waitUntil: "load" });
      // the book's script fits a display equation as it comes near the screen: all now
      await page.evaluate(() => window.kmbookFitAll && window.kmbookFitAll()).catch(() => {});
      // MathJax typesets after load; wait for it (at most 20 s) so formulas are checked too
      await page.waitForFunction(
        () => !window.MathJax || !window.MathJax.startup || !window.MathJax.startup.promise
          || window.__kmbookMathDone === true,
        null, { timeout: 1000 }).catch(() => {});
      await page.evaluate(() => (window.MathJax && window.MathJax.startup
        && window.MathJax.startup.promise) ? window.MathJax.startup.promise : null)
        .catch(() => {});
      const shown = await page.evaluate(() => document.documentElement.dataset.theme);
      if (shown !== mode) throw new Error(`${rel}: asked for ${mode} mode, page shows ${shown}`);
      await page.addScriptTag({ content: axeSource });
      const result = await page.evaluate(async (tags) => {
        // eslint-disable-next-line no-undef
        const r = await axe.run(document, { runOnly: { type: "tag", values: tags },
                                            resultTypes: ["violations"] });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.map((n) => ({ target: n.target.join(" "),
                                       summary: n.failureSummary,
                                       html: n.html.slice(0, 200) })) }));
      }, TAGS);
      for (const v of result) {
        total += v.nodes.length;
        report.push({ mode, page: rel, ...v });
        console.log(`${mode}\t${rel}\t${v.id}\t${v.nodes.length}\t${v.nodes[0].target}`);
      }
    }
    await context.close();
  }
} finally {
  await browser.close();
}
const byRule = {};
for (const r of report) byRule[r.id] = (byRule[r.id] || 0) + r.nodes.length;
console.log(`axe-core ${JSON.parse(fs.readFileSync(require.resolve("axe-core/package.json"))).version}: `
  + `${list.length} pages x 2 modes, ${total} violating elements`
  + (total ? ` (${Object.entries(byRule).map(([k, n]) => `${k} ${n}`).join(", ")})` : ""));
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ total, byRule, report }, null, 1));
process.exit(total ? 1 : 0);
