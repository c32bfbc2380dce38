// What a reader meets on the built website, checked in headless Chromium (playwright-core):
//  * navigation: at 400 and 768 px the table of contents opens by a tap on the primary
//    toggle and by the keyboard (Tab to it, Enter), and closes with Escape; the in-page
//    contents open from the secondary toggle;
//  * formulas: at 1280 px on every chapter and sheet, no inline formula lies in a box
//    that scrolls, and no display equation is wider than its box; no formula (nor
//    anything inside one) is in the tab order;
//  * figures: every figure of a chapter is a link to its full-size image;
//  * search, from a local HTTP server and over file://: "Nystrom" finds what "Nyström"
//    finds, "representer theorem" lists chapter 6 first, excerpts hold no raw TeX and no
//    raw cross-reference target (a label such as "eq-pd"), and
//    highlighted words have a contrast of at least 4.5:1 in light and dark mode; the
//    search field's icon does not cover the typed text.
//   node reader.mjs [site folder]
// Exits 1 on any problem, 2 when the check could not run.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const site = path.resolve(process.argv[2] || path.resolve(here, "../../_build/html"));
if (!fs.existsSync(path.join(site, "index.html"))) {
  console.error(`no built site in ${site} (run make book first)`);
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .find((p) => fs.existsSync(p));
if (!executablePath) {
  console.error("no Chromium found (apt-get install chromium, or set CHROMIUM)");
  process.exit(2);
}
const pages = [
  ...fs.readdirSync(path.join(site, "chapters")).filter((f) => f.endsWith(".html")).map((f) => `chapters/${f}`),
  ...fs.readdirSync(path.join(site, "exercises")).filter((f) => f.endsWith(".html")).map((f) => `exercises/${f}`),
].sort();

const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
  ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2", ".ico": "image/x-icon" };
const server = http.createServer((req, res) => {
  let file = path.join(site, decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
  fs.readFile(file, (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
    res.end(data);
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const problems = [];
const report = (where, what) => { problems.push(`${where}\t${what}`); console.log(`${where}\t${what}`); };
const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });

// pydata-sphinx-theme opens a sidebar on narrow screens as a modal <dialog>
// (#pst-primary-sidebar-modal), into which it moves the sidebar's content
async function drawerOpen(page, id) {
  return page.evaluate((id) => {
    const dialog = document.getElementById(`${id}-modal`);
    if (dialog && dialog.open) return dialog.getBoundingClientRect().width > 50;
    const el = document.getElementById(id);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return getComputedStyle(el).visibility !== "hidden" && r.width > 50 && r.right > 10
      && r.left < window.innerWidth;
  }, id);
}

try {
  // ---------------------------------------------------------------- navigation
  for (const width of [400, 768]) {
    const context = await browser.newContext({ viewport: { width, height: 800 }, hasTouch: true,
      isMobile: width < 500 });
    const page = await context.newPage();
    const where = `nav ${width}px`;
    await page.goto(`${base}/chapters/04_kernels.html`, { waitUntil: "load" });
    const toggle = page.locator("button.primary-toggle:visible").first();
    if (!(await toggle.count())) { report(where, "no visible primary toggle"); await context.close(); continue; }
    await toggle.tap();
    await page.waitForTimeout(400);
    if (!(await drawerOpen(page, "pst-primary-sidebar"))) report(where, "a tap on the toggle does not open the table of contents");
    else {
      const links = await page.locator("#pst-primary-sidebar-modal a.reference:visible, #pst-primary-sidebar a.reference:visible").count();
      if (links < 10) report(where, `the open table of contents shows ${links} links`);
      await page.keyboard.press("Escape");
      await page.waitForTimeout(300);
      if (await drawerOpen(page, "pst-primary-sidebar")) report(where, "Escape does not close the table of contents");
    }
    // keyboard: Tab until the toggle has the focus, then Enter
    await page.goto(`${base}/chapters/04_kernels.html`, { waitUntil: "load" });
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => {
        const el = document.activeElement;
        return !!el && el.matches("button.primary-toggle") && el.getBoundingClientRect().width > 0;
      });
    }
    if (!reached) report(where, "the primary toggle is not reached with Tab");
    else {
      const outline = await page.evaluate(() => {
        const s = getComputedStyle(document.activeElement);
        return s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 1;
      });
      if (!outline) report(where, "the focused toggle shows no outline");
      await page.keyboard.press("Enter");
      await page.waitForTimeout(400);
      if (!(await drawerOpen(page, "pst-primary-sidebar"))) report(where, "Enter on the toggle does not open the table of contents");
      await page.keyboard.press("Escape");
    }
    const secondary = page.locator("button.secondary-toggle:visible").first();
    if (await secondary.count()) {
      await page.waitForTimeout(300);
      await secondary.tap();
      await page.waitForTimeout(400);
      if (!(await drawerOpen(page, "pst-secondary-sidebar"))) report(where, "a tap on the contents toggle does not open the in-page contents");
    } else report(where, "no visible in-page contents toggle");
    await context.close();
  }

  // ---------------------------------------------------------------- formulas, figures
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  for (const rel of pages) {
    await page.goto(`${base}/${rel}`, { waitUntil: "load" });
    // kmbook.js fits an equation when it comes near the screen: fit them all now
    await page.evaluate(() => window.kmbookFitAll && window.kmbookFitAll()).catch(() => {});
    const found = await page.evaluate(() => {
      const bad = [];
      const article = document.querySelector("article.bd-article");
      const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
      // an inline formula never has a scroll box of its own, nor does its line of text;
      // a table that is wider than the column may scroll as a whole
      for (const m of article.querySelectorAll("span.math")) {
        for (let el = m; el && el !== article; el = el.parentElement) {
          if (!scrolls(el)) continue;
          if (el.matches("span, p, li, dd, dt, td, th, em, strong, a")
              || el.scrollWidth > el.clientWidth + 1) {
            bad.push(`inline formula in a scroll box <${el.tagName.toLowerCase()}>: ${(m.dataset.tex || m.textContent).slice(0, 50)}`);
          }
          break;
        }
      }
      for (const d of article.querySelectorAll("div.math")) {
        const math = d.querySelector("math, mjx-container");
        if (!math) continue;
        if (d.scrollWidth > d.clientWidth + 1 || math.getBoundingClientRect().width > d.clientWidth + 1) {
          bad.push(`display equation wider than its box (${Math.round(math.getBoundingClientRect().width)} > ${d.clientWidth} px): ${d.textContent.trim().slice(0, 50)}`);
        }
      }
      const tabbable = article.querySelectorAll(
        ".math [tabindex], .math a, .math button, mjx-container[tabindex]");
      const inTabOrder = [...tabbable].filter((el) => el.tabIndex >= 0 && !el.matches(".headerlink"));
      if (inTabOrder.length) bad.push(`${inTabOrder.length} formulas in the tab order`);
      const figures = [...article.querySelectorAll("figure img, .cell_output img")];
      const unlinked = figures.filter((img) => !img.closest("a[href]"));
      if (unlinked.length) bad.push(`${unlinked.length} of ${figures.length} figures do not open full size`);
      return bad;
    });
    for (const f of found) report(`1280px ${rel}`, f);
  }
  await context.close();

  // ---------------------------------------------------------------- search
  const fold = (s) => s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  for (const [scheme, root] of [["http", base], ["file", pathToFileURL(site).href]]) {
    for (const mode of ["light", "dark"]) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: mode });
      const p = await ctx.newPage();
      const results = {};
      for (const query of ["Nyström", "Nystrom", "representer theorem"]) {
        const where = `search ${scheme} ${mode} "${query}"`;
        await p.goto(`${root}/search.html?q=${encodeURIComponent(query)}`, { waitUntil: "load" });
        try {
          await p.waitForFunction(() => document.querySelectorAll("#search-results li").length > 0
            && document.querySelector(".search-summary, #search-results > p"), null, { timeout: 30000 });
          await p.waitForTimeout(1500);
        } catch (e) { report(where, "no results"); continue; }
        const r = await p.evaluate(() => {
          const lum = (c) => {
            const v = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((x) => x / 255)
              .map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
            return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
          };
          const bgOf = (el) => {
            for (; el; el = el.parentElement) {
              const c = getComputedStyle(el).backgroundColor;
              if (c && !/rgba\(.*,\s*0\)$/.test(c) && c !== "transparent") return c;
            }
            return "rgb(255, 255, 255)";
          };
          const contrasts = [...document.querySelectorAll("#search-results .highlighted")].slice(0, 20).map((el) => {
            const [a, b] = [lum(getComputedStyle(el).color), lum(bgOf(el))];
            return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          });
          const items = [...document.querySelectorAll("#search-results li")];
          return {
            links: items.map((li) => li.querySelector("a").getAttribute("href").split(/[?#]/)[0]),
            excerpts: items.map((li) => (li.querySelector("p.context") || {}).textContent || ""),
            contrasts,
          };
        });
        results[query] = new Set(r.links);
        // the search field's magnifying glass does not cover the text typed into the field
        const covered = await p.evaluate(() => [...document.querySelectorAll("form.bd-search")]
          .filter((f) => f.getBoundingClientRect().width > 0).some((f) => {
            const icon = f.querySelector("i, svg");
            const input = f.querySelector("input");
            if (!icon || !input) return false;
            const textStart = input.getBoundingClientRect().left + parseFloat(getComputedStyle(input).paddingLeft);
            return icon.getBoundingClientRect().right > textStart + 1;
          }));
        if (covered) report(where, "the search field's icon covers the start of the typed text");
        const tex = r.excerpts.filter((e) => /\\[()[\]]|\\[A-Za-z]+|begin[pb]?matrix/.test(e));
        if (tex.length) report(where, `raw TeX in ${tex.length} excerpts: ${tex[0].slice(0, 80)}`);
        // a cross-reference shows its text ("Fig. 4.1", "(6.2)"), not its target's label
        const labels = r.excerpts.filter((e) => /\b(eq|fig|def|thm|prop|lem|sec|tab|ex)-[a-z0-9]/.test(e));
        if (labels.length) report(where, `a raw cross-reference target in ${labels.length} excerpts: ${labels[0].slice(0, 80)}`);
        if (!r.excerpts.some((e) => e)) report(where, "no excerpts");
        const low = r.contrasts.filter((c) => c < 4.5);
        if (low.length) report(where, `highlight contrast ${Math.min(...low).toFixed(2)}:1 < 4.5:1`);
        if (query === "representer theorem" && !/06_representer/.test(r.links[0] || "")) {
          report(where, `first result is ${r.links[0]}, not chapter 6`);
        }
      }
      const [a, b] = [results["Nyström"], results["Nystrom"]];
      if (a && b && (a.size !== b.size || [...a].some((x) => !b.has(x)))) {
        report(`search ${scheme} ${mode}`, `"Nystrom" finds ${b.size} pages, "Nyström" ${a.size}`);
      }
      if (a && a.size < 3) report(`search ${scheme} ${mode}`, `"Nyström" finds only ${a.size} pages`);
      void fold;
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`navigation at 400 and 768 px, formulas and figures on ${pages.length} pages at 1280 px, `
  + `search over http and file:// in light and dark: ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
