/* The book's small page script (loaded with defer on every page).
 *
 * 1. Figures open full size: every figure and plot in a page's text becomes a link to
 *    its image file, so on a phone a tap (and on any device a click or Enter) shows it at
 *    its natural size. Images that already are links are left alone.
 * 2. Display equations fit their column: the formulas are MathML, which a browser does
 *    not break over lines; one that is up to half again as wide as its column is set in a
 *    smaller size (down to 65 %) until it fits (at a laptop's width every equation of the book does);
 *    a wider one (a phone) keeps its size and scrolls inside its own box, its number
 *    above it. Refitted when the window's width changes and before printing. */
(() => {
  const linkFigures = () => {
    const images = document.querySelectorAll(
      ".bd-article figure img, .bd-article .cell_output img, .bd-article img.align-center");
    for (const img of images) {
      if (img.closest("a") || !img.getAttribute("src")) continue;
      const a = document.createElement("a");
      a.href = img.getAttribute("src");
      a.className = "kmbook-figure-link";
      img.replaceWith(a);
      a.appendChild(img);
    }
  };
  const MIN_SCALE = 0.65;
  const fitEquations = () => {
    for (const box of document.querySelectorAll(".bd-article div.math")) {
      const math = box.querySelector(":scope > math");
      if (!math) continue;
      math.style.fontSize = "";
      box.classList.remove("kmbook-wide");
      const number = box.querySelector(":scope > .eqno");
      const room = box.clientWidth - (number ? number.getBoundingClientRect().width + 8 : 0);
      const width = math.getBoundingClientRect().width;
      if (width <= room || room <= 0) continue;
      const scale = room / width;
      if (scale >= MIN_SCALE) {
        const size = parseFloat(getComputedStyle(math).fontSize);
        math.style.fontSize = `${Math.floor(size * scale * 10) / 10}px`;
      } else {
        box.classList.add("kmbook-wide");
      }
    }
  };
  let lastWidth = 0;
  const onResize = () => {
    if (window.innerWidth === lastWidth) return;
    lastWidth = window.innerWidth;
    fitEquations();
  };
  const start = () => {
    linkFigures();
    lastWidth = window.innerWidth;
    fitEquations();
    let timer = null;
    window.addEventListener("resize", () => { clearTimeout(timer); timer = setTimeout(onResize, 150); });
    window.addEventListener("beforeprint", fitEquations);
    window.addEventListener("afterprint", fitEquations);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
