// What the main thread of a phone spends loading pages of the built site: a Chromium
// performance trace of each page (the Debian Chromium driven by playwright-core, a
// phone's viewport, the CPU slowed down 4x as Lighthouse's mobile setting simulates),
// cut into tasks and classified by Lighthouse's own trace code (tracehouse).
//
//   node trace.mjs [--runs N] [--cpu RATE] [--json OUT.json] [--compare OTHER_SITE_DIR]
//                  SITE_DIR page.html ...
//
// Per page (median over the runs): the blocking time (the part of every task beyond
// 50 ms, from the first contentful paint on, as Lighthouse's TBT counts it), the number
// and total of long tasks, first contentful paint, and where the long tasks' time goes:
// by kind of work (style recalculation, layout, HTML and CSS parsing, script
// compilation and evaluation, paint) and script time by file. The pages are served
// gzip-compressed from a local HTTP server, as lighthouse.mjs serves them.
//
// These are measurements of this machine: a busy machine lengthens every task (the
// machine's load average is printed); compare a page with itself, back to back:
// --compare traces each page of the two builds in turn, run after run, and prints the
// median of the paired differences.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { serveSite } from "./serve.mjs";
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
const compare = option("--compare", "");
const site = path.resolve(argv[0] || "../../_build/html");
const pages = argv.slice(1).length ? argv.slice(1) : ["chapters/01_ridge.html"];

const servers = [];
async function serve(root) {
  const { base, server } = await serveSite(root);
  servers.push(server);
  return base;
}
const sites = [site, ...(compare ? [path.resolve(compare)] : [])];
const bases = [];
for (const root of sites) bases.push(await serve(root));

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

async function traceOnce(base, page) {
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
  const forced = {};
  const scriptName = (task) => {
    const data = task.event.args?.data || task.event.args?.beginData || {};
    const own = data.url || data.stackTrace?.[0]?.url || data.frames?.[0]?.url || "";
    return (own || task.attributableURLs.at(-1) || "(no script)").split("/").pop().split("?")[0]
      + (data.functionName ? ` ${data.functionName}` : data.type ? ` (${data.type})` : "");
  };
  // style and layout that a script forced (reading a size) count for that script too
  const visit = (task, script) => {
    const kind = kindOf(task);
    byKind[kind] = (byKind[kind] || 0) + task.selfTime;
    let inScript = script;
    if (kind === "script" || kind === "compile") {
      const name = scriptName(task);
      byScript[name] = (byScript[name] || 0) + task.selfTime;
      inScript = inScript || name;
    }
    if ((kind === "style" || kind === "layout") && script) {
      const key = `${kind} forced by ${script}`;
      forced[key] = (forced[key] || 0) + task.selfTime;
    }
    for (const child of task.children) visit(child, inScript);
  };
  for (const t of long) visit(t);
  // all the work of the load, long tasks or not
  const work = {};
  const add = (task) => {
    const kind = kindOf(task).startsWith("other") ? "other" : kindOf(task);
    work[kind] = (work[kind] || 0) + task.selfTime;
    for (const child of task.children) add(child);
  };
  for (const t of top) add(t);
  // the amount of work, whatever the machine's load: elements styled, layout objects laid out
  const counts = { styled: 0, laidOut: 0, layouts: 0, styleRecalcs: 0 };
  for (const e of processed.mainThreadEvents) {
    if (e.name === "UpdateLayoutTree" && e.ph === "X") {
      counts.styled += e.args?.elementCount || 0;
      counts.styleRecalcs += 1;
    }
    if (e.name === "Layout" && (e.ph === "B" || e.ph === "X")) {
      counts.laidOut += e.args?.beginData?.dirtyObjects || 0;
      counts.layouts += 1;
    }
  }
  const total = top.reduce((s, t) => s + t.duration, 0);
  const longTotal = long.reduce((s, t) => s + t.duration, 0);
  const biggest = long.map((t) => Math.round(t.duration)).sort((a, b) => b - a).slice(0, 5);
  return { fcp, load: navigation.timings.load, tbt, total, longCount: long.length, longTotal,
    biggest, byKind, byScript, forced, work, counts };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const results = {};
console.log(`${sites.join(" against ")}: CPU ${cpu}x slower, ${runs} run(s) per page`
  + `${sites.length > 1 ? " each, alternating" : ""}, medians; times in ms`);
const fmt = (obj) => Object.entries(obj).filter(([, v]) => v >= 1)
  .map(([k, v]) => `${k} ${Math.round(v)}`).join(", ");
const summarise = (all) => {
  const pick = (f) => median(all.map(f));
  const keys = (field) => [...new Set(all.flatMap((r) => Object.keys(r[field])))];
  const table = (field, n) => Object.fromEntries(keys(field).map((k) => [k, pick((r) => r[field][k] || 0)])
    .sort((a, b) => b[1] - a[1]).slice(0, n));
  return {
    tbt: pick((r) => r.tbt), fcp: pick((r) => r.fcp), long: pick((r) => r.longCount),
    longTotal: pick((r) => r.longTotal), total: pick((r) => r.total),
    tbtRuns: all.map((r) => Math.round(r.tbt)), biggest: all[0].biggest,
    byKind: table("byKind", 8), work: table("work", 10), counts: table("counts", 4), byScript: table("byScript", 6), forced: table("forced", 6),
  };
};
for (const page of pages) {
  const all = sites.map(() => []);
  for (let k = 0; k < runs; k += 1) {
    for (let s = 0; s < sites.length; s += 1) all[s].push(await traceOnce(bases[s], page));
  }
  results[page] = {};
  sites.forEach((root, s) => {
    const summary = { ...summarise(all[s]), loadavg: os.loadavg()[0] };
    results[page][root] = summary;
    console.log(`${page}${sites.length > 1 ? ` [${path.basename(root)}]` : ""}: blocking ${Math.round(summary.tbt)} `
      + `(runs ${summary.tbtRuns.join(" ")}), FCP ${Math.round(summary.fcp)}, ${summary.long} long tasks `
      + `${Math.round(summary.longTotal)} (largest ${summary.biggest.join(" ")}), main thread `
      + `${Math.round(summary.total)}, load ${summary.loadavg.toFixed(1)}`);
    console.log(`    long tasks by kind: ${fmt(summary.byKind)}`);
    console.log(`    all tasks by kind: ${fmt(summary.work)}`);
    console.log(`    work: ${fmt(summary.counts)}`);
    console.log(`    script in long tasks by file: ${fmt(summary.byScript)}`);
    console.log(`    style and layout forced by a script: ${fmt(summary.forced)}`);
  });
  if (sites.length > 1) {
    const diff = (f) => median(all[0].map((r, k) => f(all[1][k]) - f(r)));
    console.log(`    ${path.basename(sites[1])} minus ${path.basename(sites[0])}, median of paired runs: `
      + `blocking ${Math.round(diff((r) => r.tbt))}, long tasks ${Math.round(diff((r) => r.longTotal))}, `
      + `main thread ${Math.round(diff((r) => r.total))}, style ${Math.round(diff((r) => r.byKind.style || 0))}, `
      + `layout ${Math.round(diff((r) => r.byKind.layout || 0))} (in long tasks); all tasks: `
      + `style ${Math.round(diff((r) => r.work.style || 0))}, layout ${Math.round(diff((r) => r.work.layout || 0))}, `
      + `parse HTML ${Math.round(diff((r) => r.work.parseHTML || 0))}, parse CSS ${Math.round(diff((r) => r.work.parseCSS || 0))}`);
  }
}
await browser.close();
for (const server of servers) server.close();
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 1));
