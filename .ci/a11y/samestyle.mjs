// Does a page look the same with another stylesheet? Every element's computed style (and
// its ::before and ::after) is compared between the page as built and the page with its
// joined stylesheet (kmbook-site-*.css) replaced by OTHER.css, at a phone's and a
// laptop's width, in light and dark mode, after the page has loaded and in the states
// the theme's scripts set (the phone's table of contents opened, a tooltip shown, the
// download menu opened, the search dialog opened).
//
//   node samestyle.mjs SITE_DIR OTHER.css page.html ...
//
// Used to check that the build's pruning of the joined stylesheet drops no rule a page
// uses: run it with the unpruned stylesheet as OTHER.css. Exit status 1 when a page differs.
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const [siteArg, otherCss, ...pages] = process.argv.slice(2);
const site = path.resolve(siteArg);
const other = fs.readFileSync(otherCss, "utf-8");
const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
  args: ["--no-sandbox"] });

const snapshot = () => {
  const out = [];
  const describe = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 4; e = e.parentElement) {
      parts.unshift(e.tagName.toLowerCase() + (e.id ? `#${e.id}` : "")
        + (e.classList.length ? `.${[...e.classList].join(".")}` : ""));
    }
    return parts.join(" > ");
  };
  const all = document.querySelectorAll("*");
  for (const el of all) {
    for (const pseudo of [null, "::before", "::after"]) {
      const cs = getComputedStyle(el, pseudo);
      if (pseudo && (cs.content === "none" || cs.content === "normal")) { out.push(""); continue; }
      // custom properties come in no fixed order: sorted
      const decls = [];
      for (let i = 0; i < cs.length; i += 1) decls.push(`${cs[i]}:${cs.getPropertyValue(cs[i])}`);
      const sig = decls.sort().join("\u0001");
      out.push(`${describe(el)}${pseudo || ""}\u0002${sig}`);
    }
  }
  return out;
};

const states = {
  loaded: async () => {},
  "table of contents": async (page) => {
    const button = page.locator("button.primary-toggle").first();
    if (await button.isVisible()) await button.click({ timeout: 3000 });
    await page.waitForTimeout(500);
  },
  "download menu": async (page) => {
    const button = page.locator(".dropdown-download-buttons button").first();
    if (await button.count() && await button.isVisible()) await button.click({ timeout: 3000 });
    await page.waitForTimeout(400);
  },
  tooltip: async (page) => {
    const button = page.locator("[data-bs-toggle='tooltip']:visible").first();
    if (await button.count()) await button.hover({ timeout: 3000 });
    await page.waitForTimeout(600);
  },
  search: async (page) => {
    const button = page.locator("button.search-button__button, .search-button-field").first();
    if (await button.count() && await button.isVisible()) await button.click({ timeout: 3000 });
    await page.waitForTimeout(400);
  },
};

let differ = 0;
for (const file of pages) {
  for (const width of [400, 1280]) {
    for (const scheme of ["light", "dark"]) {
      const signatures = [];
      for (const swap of [false, true]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme,
          reducedMotion: "reduce" });
        await context.addInitScript((mode) => localStorage.setItem("mode", mode), scheme);
        if (swap) {
          await context.route(/kmbook-site-[0-9a-f]+\.css/, (route) =>
            route.fulfill({ status: 200, contentType: "text/css", body: other }));
        }
        const page = await context.newPage();
        const byState = {};
        for (const [name, act] of Object.entries(states)) {
          // each state from a fresh load of the page
          await page.goto(`file://${site}/${file}`, { waitUntil: "load" });
          await page.waitForTimeout(300);
          try {
            await act(page);
          } catch (err) {
            console.log(`${file} ${width}px ${scheme} ${name}: not reached (${err.message.split("\n")[0]})`);
          }
          byState[name] = await page.evaluate(snapshot);
        }
        signatures.push(byState);
        await context.close();
      }
      for (const name of Object.keys(states)) {
        const [a, b] = [signatures[0][name], signatures[1][name]];
        const diffs = [];
        if (a.length !== b.length) diffs.push(`element count ${a.length} != ${b.length}`);
        for (let i = 0; i < Math.min(a.length, b.length) && diffs.length < 5; i += 1) {
          if (a[i] === b[i]) continue;
          const cut = (x) => [x.slice(0, x.indexOf("\u0002")), x.slice(x.indexOf("\u0002") + 1)];
          const [where, sa] = cut(a[i]);
          const sb = cut(b[i])[1];
          const pa = new Map(sa.split("\u0001").map((d) => d.split(/:(.*)/s).slice(0, 2)));
          const pb = new Map(sb.split("\u0001").map((d) => d.split(/:(.*)/s).slice(0, 2)));
          const props = [...new Set([...pa.keys(), ...pb.keys()])].filter((k) => pa.get(k) !== pb.get(k));
          diffs.push(`${where}: ${props.slice(0, 4).map((k) => `${k} ${pa.get(k)} -> ${pb.get(k)}`).join("; ")}`);
        }
        const count = a.filter((s, i) => s !== b[i]).length;
        if (count || a.length !== b.length) differ += 1;
        console.log(`${file} ${width}px ${scheme} ${name}: ${count ? `${count} styles differ` : "same"} (${a.length / 3} elements)`);
        for (const d of diffs) console.log(`    ${d}`);
      }
    }
  }
}
await browser.close();
process.exit(differ ? 1 : 0);
