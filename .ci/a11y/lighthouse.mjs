// Lighthouse 12 (mobile form factor, simulated throttling) on pages of the built site,
// served from a local HTTP server: prints the performance, accessibility and best-practices
// scores, the page weight (bytes transferred) and the number of requests of each page.
//
//   node lighthouse.mjs [--no-gzip] [--all] [--verbose] SITE_DIR [page.html ...]
//
// Default: five page types (home, chapters 4 and 9, sheet 4, search); --all: the home
// page, every chapter, every exercise sheet and the search page. One line per page:
// scores, first and largest contentful paint, total blocking time, kilobytes transferred,
// requests, and the machine's load average when the page was measured (Lighthouse
// simulates a phone's CPU by scaling the time the tasks took here, so a busy machine
// lowers the performance score: rerun a page measured under high load). --verbose adds
// the largest paint's element, render-blocking files and failed audits.
//
// The server compresses text files with gzip, as the hosts that publish static sites do
// (GitHub Pages, Netlify, Read the Docs); --no-gzip serves them as they are on disk, like
// `python -m http.server`.
//
// The scores are printed, not asserted: they depend on the machine's load (Lighthouse
// scales its simulation by the measured CPU speed). Exit status 1 only when Lighthouse
// cannot run a page.
import fs from "node:fs";
import path from "node:path";
import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";
import { serveSite } from "./serve.mjs";

const argv = process.argv.slice(2);
const gzip = !argv.includes("--no-gzip");
const all = argv.includes("--all");
const verbose = argv.includes("--verbose");
const rest = argv.filter((a) => !a.startsWith("--"));
const site = path.resolve(rest[0] || "../../_build/html");
const folder = (name) => fs.readdirSync(path.join(site, name)).filter((f) => f.endsWith(".html"))
  .sort().map((f) => `${name}/${f}`);
const pages = rest.slice(1).length ? rest.slice(1) : all
  ? ["intro.html", ...folder("chapters"), ...folder("exercises"), "search.html"]
  : ["intro.html", "chapters/04_kernels.html", "chapters/09_large_scale.html",
    "exercises/04_kernels.html", "search.html"];
const { base, server } = await serveSite(site, { gzip });
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH || "/usr/bin/chromium",
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"],
});
let failed = 0;
const os = await import("node:os");
console.log(`${site}, ${gzip ? "gzip" : "no compression"}, Lighthouse ${JSON.parse(fs.readFileSync(new URL("./node_modules/lighthouse/package.json", import.meta.url))).version}, mobile, simulated throttling`);
console.log("page                                 perf  a11y  best  FCP(s)  LCP(s)  TBT(ms)    KB  requests  load");
const worst = { performance: 1, accessibility: 1, "best-practices": 1 };
for (const page of pages) {
  try {
    const result = await lighthouse(`${base}/${page}`, {
      port: chrome.port, output: "json", logLevel: "error", formFactor: "mobile",
      onlyCategories: ["performance", "accessibility", "best-practices"],
    });
    const lhr = result.lhr;
    if (process.env.LH_JSON) fs.writeFileSync(`${process.env.LH_JSON}/${page.replace(/\//g, "_")}.json`, JSON.stringify(lhr));
    const s = (k) => (lhr.categories[k].score ?? 0).toFixed(2);
    for (const k of Object.keys(worst)) worst[k] = Math.min(worst[k], lhr.categories[k].score ?? 0);
    const weight = lhr.audits["total-byte-weight"].numericValue / 1024;
    const requests = lhr.audits["network-requests"].details?.items?.length ?? 0;
    const fcp = lhr.audits["first-contentful-paint"].numericValue / 1000;
    const lcp = lhr.audits["largest-contentful-paint"].numericValue / 1000;
    const tbt = lhr.audits["total-blocking-time"].numericValue;
    console.log(`${page.padEnd(36)} ${s("performance")}  ${s("accessibility")}  ${s("best-practices")}`
      + `  ${fcp.toFixed(1).padStart(6)}  ${lcp.toFixed(1).padStart(6)}  ${tbt.toFixed(0).padStart(7)}`
      + `  ${weight.toFixed(0).padStart(4)}  ${String(requests).padStart(8)}  ${os.loadavg()[0].toFixed(1).padStart(4)}`);
    if (!verbose) {
      for (const k of ["accessibility", "best-practices"]) {
        for (const ref of lhr.categories[k].auditRefs) {
          const a = lhr.audits[ref.id];
          if (ref.weight > 0 && a.score !== null && a.score < 1) console.log(`    ${k}: ${a.id} ${a.title}`);
        }
      }
      continue;
    }
    const lcpItems = lhr.audits["largest-contentful-paint-element"].details?.items || [];
    const lcpNode = lcpItems[0]?.items?.[0]?.node?.snippet || "";
    const phases = (lcpItems[1]?.items || []).map((i) => `${i.phase} ${Math.round(i.timing)} ms`).join(", ");
    if (lcpNode) console.log(`    LCP element: ${lcpNode.slice(0, 100)}; ${phases}`);
    const blocking = lhr.audits["render-blocking-resources"].details?.items || [];
    if (blocking.length) {
      console.log(`    render-blocking: ${blocking.map((b) => `${b.url.split("/").pop().split("?")[0]} ${(b.totalBytes / 1024).toFixed(0)} KB`).join(", ")}`);
    }
    for (const k of ["accessibility", "best-practices"]) {
      for (const ref of lhr.categories[k].auditRefs) {
        const a = lhr.audits[ref.id];
        if (ref.weight > 0 && a.score !== null && a.score < 1) {
          const items = (a.details?.items || []).slice(0, 3).map((i) => (i.node?.snippet || i.description || i.source?.url || i.url || "").slice(0, 120));
          console.log(`    ${k}: ${a.id} ${a.title} ${JSON.stringify(items)}`);
        }
      }
    }
  } catch (err) {
    failed += 1;
    console.log(`${page}: Lighthouse failed: ${err.message}`);
  }
}
await chrome.kill();
server.close();
console.log(`lowest: performance ${worst.performance.toFixed(2)}, accessibility ${worst.accessibility.toFixed(2)}, `
  + `best practices ${worst["best-practices"].toFixed(2)} over ${pages.length} pages`);
process.exit(failed ? 1 : 0);
