// What the main thread of a phone spends loading pages of the built site: a Chromium
// performance trace of each page (the Debian Chromium driven by playwright-core, a
// phone's viewport, the CPU slowed down 4x as Lighthouse's mobile setting simulates),
// cut into tasks and classified by Lighthouse's own trace code (tracehouse).
//
//   node trace.mjs [--runs N] [--cpu RATE] [--json OUT.json] SITE_DIR page.html ...
//
// Per page (median over the runs): the blocking time (the part of every task beyond
// 50 ms, from the first contentful paint on, as Lighthouse's TBT counts it), the number
// and total of long tasks, first contentful paint, and where the long tasks' time goes:
// by kind of work (style recalculation, layout, HTML and CSS parsing, script
// compilation and evaluation, paint) and script time by file. The pages are served
// gzip-compressed from a local HTTP server, as lighthouse.mjs serves them.
//
// These are measurements of this machine: a busy machine lengthens every task (the
// machine's load average is printed); compare a page with itself, back to back.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { chromium } from "playwright-core";
import { TraceProcessor } from "lighthouse/core/lib/tracehouse/trace-processor.js";
import { MainThreadTasks } from "lighthouse/core/lib/tracehouse/main-thread-tasks.js";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const k = argv.indexOf(name);
  if (k < 0) return fallback;
  const value = argv[k + 1];
  argv.splice(k, 2);
  return value;
};
const runs = Number(option("--runs", "3"));
const cpu = Number(option("--cpu", "4"));
const jsonOut = option("--json", "");
const site = path.resolve(argv[0] || "../../_build/html");
const pages = argv.slice(1).length ? argv.slice(1) : ["chapters/01_ridge.html"];

const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
  ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2", ".woff": "font/woff",
  ".json": "application/json", ".ico": "image/x-icon", ".ttf": "font/ttf" };
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const file = path.join(site, url);
  if (!file.startsWith(site)) { res.writeHead(403); res.end(); return; }
  fs.readFile(file, (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    const type = types[path.extname(file)] || "application/octet-stream";
    if (/^(text|application\/json|image\/svg)/.test(type)
        && /\bgzip\b/.test(req.headers["accept-encoding"] || "")) {
      res.writeHead(200, { "Content-Type": type, "Content-Encoding": "gzip" });
      res.end(zlib.gzipSync(data));
    } else {
      res.writeHead(200, { "Content-Type": type });
      res.end(data);
    }
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// Lighthouse's trace categories (core/gather/gatherers/trace.js), without screenshots
const categories = ["-*", "disabled-by-default-lighthouse", "loading", "v8", "v8.execute",
  "blink.user_timing", "devtools.timeline", "disabled-by-default-devtools.timeline",
  "disabled-by-default-devtools.timeline.stack"];
// the kinds of work reported, by trace event name (self time, children excluded)
const KINDS = {
  UpdateLayoutTree: "style", ScheduleStyleRecalculation: "style", Layout: "layout",
  InvalidateLayout: "layout", ParseHTML: "parseHTML", ParseAuthorStyleSheet: "parseCSS",
  "v8.compile": "compile", "v8.compileModule": "compile", EvaluateScript: "script",
  FunctionCall: "script", EventDispatch: "script", TimerFire: "script",
  FireAnimationFrame: "script", RunMicrotasks: "script", "V8.Execute": "script",
  "v8.evaluateModule": "script", FireIdleCallback: "script", MinorGC: "gc", MajorGC: "gc",
  PrePaint: "paint", Paint: "paint", Layerize: "paint", UpdateLayer: "paint",
  CompositeLayers: "paint", HitTest: "paint", IntersectionObserverController: "script",
};
const kindOf = (task) => KINDS[task.event.name] || `other:${task.event.name}`;

const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"] });

async function traceOnce(page) {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true,
    userAgent: "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 "
      + "(KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36" });
  const tab = await context.newPage();
  const cdp = await context.newCDPSession(tab);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpu });
  await browser.startTracing(tab, { categories });
  await tab.goto(`${base}/${page}`, { waitUntil: "load" });
  await tab.waitForTimeout(2500);
  const buffer = await browser.stopTracing();
  await context.close();
  const trace = JSON.parse(buffer.toString());
  const processed = TraceProcessor.processTrace(trace);
  const navigation = TraceProcessor.processNavigation(processed);
  const origin = processed.timestamps.timeOrigin;
  const tasks = MainThreadTasks.getMainThreadTasks(processed.mainThreadEvents, processed.frames,
    processed.timestamps.traceEnd, origin);
  const fcp = navigation.timings.firstContentfulPaint;
  const top = tasks.filter((t) => !t.parent);
  const long = top.filter((t) => t.duration >= 50);
  let tbt = 0;
  for (const t of top) {
    if (t.endTime < fcp) continue;
    const start = Math.max(t.startTime, fcp);
    tbt += Math.max(0, t.endTime - start - 50);
  }
  const byKind = {};
  const byScript = {};
  const visit = (task) => {
    const kind = kindOf(task);
    byKind[kind] = (byKind[kind] || 0) + task.selfTime;
    if (kind === "script" || kind === "compile") {
      const data = task.event.args?.data || task.event.args?.beginData || {};
      const own = data.url || data.stackTrace?.[0]?.url || data.frames?.[0]?.url || "";
      const url = (own || task.attributableURLs.at(-1) || "(no script)").split("/").pop().split("?")[0]
        + (data.functionName ? ` ${data.functionName}` : data.type ? ` (${data.type})` : "");
      byScript[url] = (byScript[url] || 0) + task.selfTime;
    }
    for (const child of task.children) visit(child);
  };
  for (const t of long) visit(t);
  const total = top.reduce((s, t) => s + t.duration, 0);
  const longTotal = long.reduce((s, t) => s + t.duration, 0);
  const biggest = long.map((t) => Math.round(t.duration)).sort((a, b) => b - a).slice(0, 5);
  return { fcp, load: navigation.timings.load, tbt, total, longCount: long.length, longTotal,
    biggest, byKind, byScript };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const results = {};
console.log(`${site}: CPU ${cpu}x slower, ${runs} run(s) per page, medians; times in ms`);
for (const page of pages) {
  const all = [];
  for (let k = 0; k < runs; k += 1) all.push(await traceOnce(page));
  const pick = (f) => median(all.map(f));
  const kinds = [...new Set(all.flatMap((r) => Object.keys(r.byKind)))];
  const scripts = [...new Set(all.flatMap((r) => Object.keys(r.byScript)))];
  const summary = {
    tbt: pick((r) => r.tbt), fcp: pick((r) => r.fcp), long: pick((r) => r.longCount),
    longTotal: pick((r) => r.longTotal), total: pick((r) => r.total),
    tbtRuns: all.map((r) => Math.round(r.tbt)), biggest: all[0].biggest,
    byKind: Object.fromEntries(kinds.map((k) => [k, pick((r) => r.byKind[k] || 0)])
      .sort((a, b) => b[1] - a[1])),
    byScript: Object.fromEntries(scripts.map((k) => [k, pick((r) => r.byScript[k] || 0)])
      .sort((a, b) => b[1] - a[1]).slice(0, 8)),
    loadavg: os.loadavg()[0],
  };
  results[page] = summary;
  const fmt = (obj) => Object.entries(obj).filter(([, v]) => v >= 1)
    .map(([k, v]) => `${k} ${Math.round(v)}`).join(", ");
  console.log(`${page}: blocking ${Math.round(summary.tbt)} (runs ${summary.tbtRuns.join(" ")}), `
    + `FCP ${Math.round(summary.fcp)}, ${summary.long} long tasks ${Math.round(summary.longTotal)} `
    + `(largest ${summary.biggest.join(" ")}), main thread ${Math.round(summary.total)}, `
    + `load ${summary.loadavg.toFixed(1)}`);
  console.log(`    long tasks by kind: ${fmt(summary.byKind)}`);
  console.log(`    script in long tasks by file: ${fmt(summary.byScript)}`);
}
await browser.close();
server.close();
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 1));
