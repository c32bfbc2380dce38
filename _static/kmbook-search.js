/* Search excerpts that work over file:// and show formulas as text.
 *
 * Sphinx's search page fetches every result page to cut an excerpt from it. Opened from
 * disk (file://), the browser blocks those requests (CORS): the results come without
 * excerpts and the console fills with errors. And the excerpt is the page's raw text, so
 * formulas show as TeX ("\(z_j\)"). The build writes the text of every page, formulas
 * turned into readable text, into _static/kmbook-search-text.js (see _ext/kmbook.py);
 * on the search page this script loads it (a script tag, which file:// allows) and
 * answers the search's requests from it.
 */
(() => {
  if (!/\/search\.html$/.test(window.location.pathname)) return;
  const self = document.currentScript ? document.currentScript.src : "";
  const marker = "<!--kmbook-search-->";
  let loading = null;
  const pageTexts = () => {
    if (!loading) {
      loading = new Promise((resolve) => {
        const script = document.createElement("script");
        script.src = self.replace(/kmbook-search\.js(\?.*)?$/, "kmbook-search-text.js");
        script.onload = () => resolve(window.KMBOOK_SEARCH_TEXT || {});
        script.onerror = () => resolve({});
        document.head.appendChild(script);
      });
    }
    return loading;
  };
  const root = new URL(document.documentElement.dataset.content_root || "./",
                       window.location.href).href;
  const browserFetch = window.fetch.bind(window);
  window.fetch = (resource, init) => {
    const url = new URL(String(resource), window.location.href).href.split("#")[0];
    if (!url.startsWith(root) || !url.endsWith(".html")) return browserFetch(resource, init);
    const doc = url.slice(root.length, -".html".length);
    return pageTexts().then((texts) => (doc in texts
      ? new Response(marker + doc, { headers: { "Content-Type": "text/plain" } })
      : browserFetch(resource, init)));
  };
  document.addEventListener("DOMContentLoaded", () => {
    /* global Search */
    if (typeof Search === "undefined") return;
    const htmlToText = Search.htmlToText;
    Search.htmlToText = (html, anchor) => (html.startsWith(marker)
      ? (window.KMBOOK_SEARCH_TEXT || {})[html.slice(marker.length)] || ""
      : htmlToText(html, anchor));
  });
})();
