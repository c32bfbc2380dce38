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
  // fitting reads the laid-out width of the equation, so an equation is fitted when it
  // comes near the screen (sections off screen are not laid out, see kmbook.css); within
  // one batch every write comes after every read, so the page is laid out once
  const fit = (boxes) => {
    const inline = boxes.filter((b) => b.tagName === "SPAN");
    for (const span of inline) span.classList.remove("kmbook-wide");
    // a long inline formula that cannot wrap within a phone's line scrolls in its own box
    const tooWide = inline.filter((span) => {
      const line = span.closest("p, li, dd, td, th, div") || span.parentElement;
      return [...span.querySelectorAll(":scope > math")].some(
        (m) => m.getBoundingClientRect().width > line.clientWidth + 1);
    });
    for (const span of inline) {
      if (tooWide.includes(span)) { span.classList.add("kmbook-wide"); span.tabIndex = 0; }
      else span.removeAttribute("tabindex");
    }
    const found = [];
    for (const box of boxes) {
      if (box.tagName === "SPAN") continue;
      const math = box.querySelector(":scope > math");
      if (!math) continue;
      if (math.style.fontSize) math.style.fontSize = "";
      box.classList.remove("kmbook-wide");
      box.removeAttribute("tabindex");
      found.push([box, math, box.querySelector(":scope > .eqno")]);
    }
    const sizes = found.map(([box, math, number]) => [
      box.clientWidth - (number ? number.getBoundingClientRect().width + 8 : 0),
      math.getBoundingClientRect().width,
      parseFloat(getComputedStyle(math).fontSize)]);
    found.forEach(([box, math], k) => {
      const [room, width, size] = sizes[k];
      if (width <= room || room <= 0) return;
      const scale = room / width;
      if (scale >= MIN_SCALE) math.style.fontSize = `${Math.floor(size * scale * 10) / 10}px`;
      else {
        // it scrolls: the keyboard can reach it to scroll it (arrow keys)
        box.classList.add("kmbook-wide");
        box.tabIndex = 0;
      }
    });
  };
  const allBoxes = () => [...document.querySelectorAll(".bd-article div.math"),
    ...[...document.querySelectorAll(".bd-article span.math")].filter(
      (span) => (span.dataset.tex || "").length > 30)];
  let observer = null;
  const watch = () => {
    if (observer) observer.disconnect();
    if (!("IntersectionObserver" in window)) { fit(allBoxes()); return; }
    observer = new IntersectionObserver((entries) => {
      const near = entries.filter((e) => e.isIntersecting).map((e) => e.target);
      for (const box of near) observer.unobserve(box);
      if (near.length) fit(near);
    }, { rootMargin: "400px 0px" });
    for (const box of allBoxes()) observer.observe(box);
  };
  // every equation at once: before printing, and for checks (window.kmbookFitAll)
  window.kmbookFitAll = () => fit(allBoxes());
  let lastWidth = 0;
  const start = () => {
    linkFigures();
    lastWidth = window.innerWidth;
    watch();
    let timer = null;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (window.innerWidth !== lastWidth) { lastWidth = window.innerWidth; watch(); }
      }, 150);
    });
    window.addEventListener("beforeprint", window.kmbookFitAll);
    window.addEventListener("afterprint", watch);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
