import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Redis } from "ioredis";
import { onCleanup } from "../support/cleanup.js";
import { closeServer, listen } from "../support/net.js";
import { BENCH_ORDER_SECRET } from "../support/requests.js";

/**
 * Baseline of figures 2 and 3: the least a webhook receiver can do. node:http, HMAC-SHA256 over
 * `<timestamp>.<raw body>` with a constant-time compare, then one Redis `SET NX` on the
 * delivery id. With `queue`, a new delivery is also pushed on a Redis list for the bare consumer
 * of figure 3 to post.
 */
const BARE_DEDUP_TTL_MS = 48 * 3_600_000;

export interface BareIngestOptions {
  redisUrl: string;
  prefix: string;
  queue?: boolean;
}

export async function startBareIngest(
  o: BareIngestOptions,
): Promise<{ origin: string; stop(): Promise<void> }> {
  const redis = new Redis(o.redisUrl);
  const server = createServer((req, res) => {
    handle(req, res, redis, o).catch(() => {
      if (!res.headersSent) reply(res, 503, '{"error":"not stored"}');
    });
  });
  server.keepAliveTimeout = 65_000;
  const origin = await listen(server);
  const cleanup = onCleanup("bare ingest server", async () => {
    await closeServer(server);
    await redis.quit().catch(() => redis.disconnect());
  });
  return { origin, stop: cleanup.stop };
}

async function handle(req: IncomingMessage, res: ServerResponse, redis: Redis, o: BareIngestOptions) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const timestamp = String(req.headers["x-service-timestamp"] ?? "");
  const given = Buffer.from(String(req.headers["x-service-signature"] ?? ""));
  const hmac = createHmac("sha256", BENCH_ORDER_SECRET).update(`${timestamp}.`).update(raw);
  const expected = Buffer.from(`sha256=${hmac.digest("hex")}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply(res, 401, "{}");
  const deliveryId = (JSON.parse(raw.toString("utf8")) as { delivery_id?: unknown }).delivery_id;
  const key = `${o.prefix}delivery:${String(deliveryId)}`;
  const fresh = (await redis.set(key, "1", "PX", BARE_DEDUP_TTL_MS, "NX")) === "OK";
  if (fresh && o.queue) await redis.rpush(`${o.prefix}inbox`, raw);
  reply(res, 200, '{"ok":true}');
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(body);
}
