/* Search excerpts from the text the build wrote: they work over file:// and show formulas
 * as text.
 *
 * Sphinx's own excerpts are switched off (html_show_search_summary = False in
 * _config.yml): it fetches every result page to cut an excerpt from it, which a browser
 * blocks when the site is opened from disk (file://), and its excerpt is the page's raw
 * text, with formulas as TeX ("\(z_j\)"). The build writes the text of every page, its
 * formulas as readable text and its cross-references as the page shows them, into
 * _static/kmbook-search-text.js (see _ext/kmbook.py); this script, on the search page
 * only, loads it (a script tag, which file:// allows) and adds an excerpt under each
 * result that Sphinx lists, as Sphinx would (a <p class="context"> with the query's words
 * highlighted by sphinx_highlight.js's _highlightText). It changes nothing of Sphinx's.
 */
(() => {
  const results = document.getElementById("search-results");
  if (!results) return;
  const self = document.currentScript ? document.currentScript.src : "";
  // the pages' text is loaded when the first result is listed (not for an empty page)
  let loading = null;
  const texts = () => {
    loading = loading || new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = self.replace(/kmbook-search\.js(\?.*)?$/, "kmbook-search-text.js");
      script.onload = () => resolve(window.KMBOOK_SEARCH_TEXT || {});
      script.onerror = () => resolve({});
      document.head.appendChild(script);
    });
    return loading;
  };
  const root = new URL(document.documentElement.dataset.content_root || "./",
                       window.location.href).href;
  // lower case and without accents, one UTF-16 unit for one (so positions agree)
  const fold = (s) => Array.from({ length: s.length }, (_, i) => {
    const f = s[i].normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
    return f.length === 1 ? f : s[i];
  }).join("");
  const words = (new URLSearchParams(window.location.search).get("q") || "")
    .split(/\s+/).filter((w) => w.length > 1 && !w.startsWith("-"));
  const excerpt = (text) => {
    const folded = fold(text);
    const found = words.map((w) => folded.indexOf(fold(w))).filter((i) => i >= 0);
    const at = found.length ? Math.min(...found) : 0;
    const start = Math.max(0, at - 120);
    return (start > 0 ? "..." : "") + text.substr(start, 240)
      + (start + 240 < text.length ? "..." : "");
  };
  const addExcerpt = (item, pages) => {
    const link = item.querySelector("a");
    // Sphinx gives no excerpt to an API entry (it has a description instead)
    if (!link || item.querySelector(":scope > span, p.context")) return;
    const url = new URL(link.getAttribute("href"), root).href.split("#")[0].split("?")[0];
    if (!url.startsWith(root) || !url.endsWith(".html")) return;
    const text = pages[url.slice(root.length, -".html".length)];
    if (!text) return;
    const p = document.createElement("p");
    p.className = "context";
    p.textContent = excerpt(text);
    item.appendChild(p);
    /* global _highlightText */
    if (typeof _highlightText === "function") {
      for (const w of words) _highlightText(p, w.toLowerCase(), "highlighted");
    }
  };
  new MutationObserver((changes) => {
    const items = changes.flatMap((c) => [...c.addedNodes])
      .filter((n) => n.nodeName === "LI");
    if (items.length) texts().then((pages) => items.forEach((li) => addExcerpt(li, pages)));
  }).observe(results, { childList: true, subtree: true });
})();
