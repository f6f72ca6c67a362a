// The baseline of the public-read benchmark: a bare node:http server answering fixed bytes with fixed headers
// (what the service answered for the same route), and 304 with the same headers for a matching If-None-Match.
// Usage: node bareServer.mjs <routes.json>  (routes.json: { "<path>": { headers: {...}, body: "<base64>" } });
// prints "port N" once listening on 127.0.0.1.
import { readFileSync } from "node:fs";
import http from "node:http";

const routes = new Map(
  Object.entries(JSON.parse(readFileSync(process.argv[2], "utf8"))).map(([path, r]) => [path, { headers: r.headers, body: Buffer.from(r.body, "base64") }]),
);
const server = http.createServer((req, res) => {
  const route = routes.get(req.url);
  if (!route) {
    res.writeHead(404).end();
    return;
  }
  const etag = route.headers.etag;
  if (etag && req.headers["if-none-match"] === etag) {
    res.writeHead(304, route.headers).end();
    return;
  }
  res.writeHead(200, { ...route.headers, "content-length": route.body.length }).end(route.body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => console.log(`port ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
