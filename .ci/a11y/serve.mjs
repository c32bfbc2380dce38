// A local HTTP server for a built site, as a static host serves it: text files
// (HTML, CSS, JavaScript, JSON, SVG) gzip-compressed when the browser accepts it
// (`gzip: false` sends them as they are), a folder's index.html for the folder.
// Used by lighthouse.mjs and trace.mjs.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
  ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2", ".woff": "font/woff",
  ".json": "application/json", ".ico": "image/x-icon", ".ttf": "font/ttf" };

// Serve the folder `root` on a free port of 127.0.0.1; resolves to { base, server }.
export async function serveSite(root, { gzip = true } = {}) {
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, "http://x").pathname);
    let file = path.join(root, url);
    if (!file.startsWith(root)) { res.writeHead(403); res.end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      const type = types[path.extname(file)] || "application/octet-stream";
      const text = /^(text|application\/json|image\/svg)/.test(type);
      if (gzip && text && /\bgzip\b/.test(req.headers["accept-encoding"] || "")) {
        res.writeHead(200, { "Content-Type": type, "Content-Encoding": "gzip" });
        res.end(zlib.gzipSync(data));
      } else {
        res.writeHead(200, { "Content-Type": type });
        res.end(data);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, server };
}
