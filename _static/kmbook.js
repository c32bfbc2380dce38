/* Figures open full size: every figure and plot in a page's text becomes a link to its
 * image file, so on a phone a tap (and on any device a click or Enter) shows it at its
 * natural size. Images that already are links are left alone. */
(() => {
  const link = () => {
    const images = document.querySelectorAll(
      ".bd-article figure img, .bd-article .cell_output img, .bd-article img.align-center");
    for (const img of images) {
      if (img.closest("a") || !img.getAttribute("src")) continue;
      const a = document.createElement("a");
      a.href = img.getAttribute("src");
      a.className = "kmbook-figure-link";
      a.title = "Open the figure full size";
      img.replaceWith(a);
      a.appendChild(img);
    }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", link);
  else link();
})();
