import { parentPort, workerData } from "node:worker_threads";
import { Pool } from "undici";
import { signServiceWebhook } from "../../../src/webhooks/service-signature.js";
import type {
  LoadPlan,
  MaxPlan,
  MaxResult,
  RatePlan,
  RateResult,
  RequestSource,
  RequestSpec,
} from "./load-types.js";

/**
 * The load generator, in its own thread so its CPU is not charged to the bot's event loop and
 * its clock is not delayed by it. Keep-alive connections through one undici Pool.
 */
const now = (): number => performance.timeOrigin + performance.now();
const MAX_ERRORS_KEPT = 5;

function requestAt(source: RequestSource, i: number): RequestSpec {
  if (source.kind === "list") {
    const request = source.requests[i];
    if (!request) throw new Error(`no request ${i} in the list`);
    return request;
  }
  const deliveryId = source.firstDeliveryId + i;
  const hash = deliveryId.toString(16).padStart(64, "0");
  const body = JSON.stringify({
    event: "delegation.confirmed",
    delivery_id: deliveryId,
    order_id: `${source.orderIdPrefix}${deliveryId}`,
    order_type: "5m",
    receive_address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
    energy_amount: 65_050,
    tx_hashes: [hash],
    tx_hash: hash,
    confirmed_at: new Date().toISOString(),
  });
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    method: "POST",
    path: source.path,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-service-timestamp": String(timestamp),
      "x-service-signature": signServiceWebhook(source.secret, timestamp, body),
    },
    body,
  };
}

async function send(pool: Pool, spec: RequestSpec): Promise<number> {
  const { statusCode, body } = await pool.request({
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    body: spec.body,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  await body.dump();
  return statusCode;
}

async function runRate(plan: RatePlan, pool: Pool): Promise<RateResult> {
  const result: RateResult = { mode: "rate", sentAt: [], doneAt: [], status: [], errors: [] };
  const intervalMs = 1000 / plan.ratePerSec;
  const start = now() + 20;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < plan.count; i += 1) {
    const wait = start + i * intervalMs - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait - 0.5));
    const spec = requestAt(plan.source, i);
    result.sentAt[i] = now();
    inFlight.push(
      send(pool, spec).then(
        (status) => {
          result.doneAt[i] = now();
          result.status[i] = status;
        },
        (error: Error) => {
          result.doneAt[i] = now();
          result.status[i] = 0;
          if (result.errors.length < MAX_ERRORS_KEPT) result.errors.push(error.message);
        },
      ),
    );
  }
  await Promise.all(inFlight);
  return result;
}

async function runMax(plan: MaxPlan, pool: Pool): Promise<MaxResult> {
  const result: MaxResult = {
    mode: "max",
    sent: 0,
    okInWindow: 0,
    non2xx: 0,
    failed: 0,
    windowMs: plan.durationMs - plan.warmupMs,
    latencies: [],
    errors: [],
  };
  const start = now();
  const windowStart = start + plan.warmupMs;
  const end = start + plan.durationMs;
  async function loop(): Promise<void> {
    while (now() < end && result.sent < plan.maxRequests) {
      const spec = requestAt(plan.source, result.sent);
      result.sent += 1;
      const sentAt = now();
      try {
        const status = await send(pool, spec);
        const doneAt = now();
        if (status < 200 || status > 299) result.non2xx += 1;
        else if (doneAt >= windowStart && doneAt <= end) {
          result.okInWindow += 1;
          result.latencies.push(doneAt - sentAt);
        }
      } catch (error) {
        result.failed += 1;
        if (result.errors.length < MAX_ERRORS_KEPT) result.errors.push((error as Error).message);
      }
    }
  }
  await Promise.all(Array.from({ length: plan.inFlight }, loop));
  return result;
}

async function main(plan: LoadPlan): Promise<void> {
  const pool = new Pool(plan.origin, {
    connections: plan.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  try {
    const result = plan.mode === "rate" ? await runRate(plan, pool) : await runMax(plan, pool);
    parentPort?.postMessage({ ok: true, result });
  } catch (error) {
    parentPort?.postMessage({ ok: false, error: (error as Error).stack ?? String(error) });
  } finally {
    await pool.close().catch(() => {});
  }
}

void main(workerData as LoadPlan);
