/**
 * Baseline of figures 5 and 6: the smallest Node program that answers `GET /healthz` with 200,
 * started the same way as the bot (`node`, in a child process, PORT from the environment).
 */
export const BARE_NODE_SCRIPT = [
  'const http = require("node:http");',
  'http.createServer((req, res) => { res.writeHead(200); res.end("ok"); })',
  '  .listen(Number(process.env.PORT), "127.0.0.1");',
  'process.on("SIGTERM", () => process.exit(0));',
].join("\n");
