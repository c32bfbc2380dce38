/* The search's result scorer (Sphinx's html_search_scorer, copied into language_data.js).
 *
 * Sphinx's weights, plus one rule: a page whose own title holds every word of the query
 * comes first ("representer theorem" finds chapter 6, "The representer theorem", before
 * the pages that only mention it in a heading or the text), and a section whose heading
 * holds every word comes next. Words are compared without accents and case. */
var Scorer = {
  score: (result) => {
    const [, title, , , score] = result;
    const fold = (s) => s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const words = fold(query).split(/[^\p{Letter}\p{Number}_]+/u).filter((w) => w.length > 1);
    if (!words.length || !title) return score;
    const [page, ...sections] = fold(title).split(" > ");
    if (words.every((w) => page.includes(w))) return score + 40;
    if (sections.length && words.every((w) => sections.join(" ").includes(w))) return score + 15;
    return score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
