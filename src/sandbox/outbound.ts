import { request } from "undici";
import type { Clock } from "../clock.js";
import type { Outbound, OutboundEvent, OutboundRecord, Timers } from "./context.js";
import {
  ENDPOINT_ROLES,
  type EndpointBook,
  type EndpointRole,
  type RegistryKind,
  type WebhookEndpoint,
} from "./families/account/endpoint-book.js";
import { checkPublicUrl } from "./families/account/public-url.js";
import { signWebhookBody } from "./signature.js";

/** Retry schedules of the spec: order webhooks ~1 min (5m orders) or ~10 min, report webhooks ~31 h. */
export type ScheduleName = "order5m" | "order" | "report";

export const DEFAULT_RETRY_SCHEDULE_MS: Record<ScheduleName, readonly number[]> = {
  order5m: [5_000, 10_000, 15_000, 30_000],
  order: [30_000, 60_000, 120_000, 180_000, 210_000],
  report: [60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000],
};

export interface OutboundOptions {
  /**
   * Public origin → origin actually dialled, e.g. `{ "https://opsbot.test": "http://127.0.0.1:4100" }`.
   * URLs are validated as registered (public https) and delivered to the mapped origin, so tests and
   * the demo can receive webhooks on loopback.
   */
  originMap?: Record<string, string>;
  /**
   * Waits between attempts on one endpoint, after the first immediate attempt. One array applies to
   * every family; a record overrides per family. Defaults: the spec's schedules.
   */
  retryScheduleMs?: readonly number[] | Partial<Record<ScheduleName, readonly number[]>>;
  /** Multiplies the default schedules (e.g. 0.001 turns minutes into milliseconds). */
  retryScale?: number;
  /** Timeout of one webhook POST (default 10 s); a timeout counts as a failed attempt. */
  deliveryTimeoutMs?: number;
  /** Timeout of one Host Mode callback GET (default 10 s, as the spec says). */
  callbackTimeoutMs?: number;
  /** Waits between the 3 Host Mode callback attempts (default 1 s, then 5 s). */
  callbackRetryMs?: readonly number[];
}

export interface OutboundDeps extends OutboundOptions {
  now: Clock;
  timers: Timers;
  /** The webhook registries, read at every attempt. */
  endpoints: EndpointBook;
}

interface AttemptRecord {
  at: number;
  url: string;
  role?: EndpointRole;
  status: number | "error" | "rejected";
}

/** An outbound record with what the sandbox knows beyond the shared shape (tests read it). */
export interface DeliveryRecord extends OutboundRecord {
  deliveryId?: number;
  /** `not_sent`: no active endpoint; `dead`: every attempt failed; `dropped`: callback gave up. */
  state: "queued" | "delivered" | "dead" | "not_sent" | "dropped";
  /** Role of the endpoint of the last attempt. */
  role?: EndpointRole;
  log: AttemptRecord[];
}

export interface OutboundSender extends Outbound {
  history(): DeliveryRecord[];
}

const HOST_CALLBACK_ATTEMPTS = 3;
const USER_AGENT = "service-webhook/1.0";

/** What the delivery functions below share: the options, the origin map and a timer-backed wait. */
interface Sender {
  deps: OutboundDeps;
  originMap: Map<string, string>;
  wait(ms: number): Promise<void>;
}

function scheduleFor(deps: OutboundDeps, name: ScheduleName): readonly number[] {
  const custom = deps.retryScheduleMs;
  if (Array.isArray(custom)) return custom;
  const own = (custom as Partial<Record<ScheduleName, readonly number[]>> | undefined)?.[name];
  if (own) return own;
  const scale = deps.retryScale ?? 1;
  return DEFAULT_RETRY_SCHEDULE_MS[name].map((ms) => Math.round(ms * scale));
}

/** One signed POST to one endpoint; true on 2xx. Redirects are not followed (a 3xx is a failure). */
async function attemptWebhook(
  sender: Sender,
  record: DeliveryRecord,
  endpoint: WebhookEndpoint,
  kind: RegistryKind,
): Promise<boolean> {
  const { deps } = sender;
  record.attempts += 1;
  record.role = endpoint.role;
  const log: AttemptRecord = { at: deps.now(), url: endpoint.url, role: endpoint.role, status: "rejected" };
  record.log.push(log);
  // The URL rules are checked again before every delivery, not only at registration.
  if (!checkPublicUrl(endpoint.url).ok) {
    record.lastStatus = "error";
    return false;
  }
  const target = mapOrigin(endpoint.url, sender.originMap);
  const body = Buffer.from(JSON.stringify(record.payload), "utf8");
  const timestamp = Math.floor(deps.now() / 1000);
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "user-agent": USER_AGENT,
    "x-service-delivery": String(record.deliveryId),
    "x-service-timestamp": String(timestamp),
    "x-service-signature": signWebhookBody(endpoint.secret, timestamp, body),
  };
  if (kind === "order") headers["x-service-event"] = String(record.payload.event);
  log.url = target;
  record.url = target;
  const status = await send(target, { method: "POST", headers, body }, deps.deliveryTimeoutMs ?? 10_000);
  log.status = status;
  record.lastStatus = status;
  return typeof status === "number" && status >= 200 && status < 300;
}

/**
 * Primary with its schedule, then backup with a fresh one. The endpoint is looked up at every attempt,
 * so a pause, a new URL or a rotated secret applies at once; paused or missing endpoints are skipped.
 */
async function deliverWebhook(
  sender: Sender,
  record: DeliveryRecord,
  target: { userId: number; kind: RegistryKind; schedule: ScheduleName },
): Promise<void> {
  const gaps = scheduleFor(sender.deps, target.schedule);
  for (const role of ENDPOINT_ROLES) {
    for (let n = 0; n <= gaps.length; n++) {
      if (n > 0) await sender.wait(gaps[n - 1] ?? 0);
      const endpoint = sender.deps.endpoints.withRole(target.userId, target.kind, role);
      if (!endpoint?.is_active) break;
      if (await attemptWebhook(sender, record, endpoint, target.kind)) {
        record.state = "delivered";
        return;
      }
    }
  }
  record.state = record.attempts > 0 ? "dead" : "not_sent";
}

/** Host Mode callback: unsigned GET, 200 acknowledges, up to 3 attempts, then dropped. */
async function deliverCallback(sender: Sender, record: DeliveryRecord, url: string): Promise<void> {
  const gaps = sender.deps.callbackRetryMs ?? [1_000, 5_000];
  for (let n = 0; n < HOST_CALLBACK_ATTEMPTS; n++) {
    if (n > 0) await sender.wait(gaps[n - 1] ?? gaps.at(-1) ?? 0);
    record.attempts += 1;
    const status = await send(url, { method: "GET" }, sender.deps.callbackTimeoutMs ?? 10_000);
    record.log.push({ at: sender.deps.now(), url, status });
    record.lastStatus = status;
    if (status === 200) {
      record.state = "delivered";
      return;
    }
  }
  record.state = "dropped";
}

/** The callback URL with the parameters appended, after origin mapping; undefined when unparseable. */
function callbackUrl(url: string, params: Record<string, string>, originMap: Map<string, string>) {
  try {
    const target = new URL(mapOrigin(url, originMap));
    for (const [name, value] of Object.entries(params)) target.searchParams.append(name, value);
    return target.toString();
  } catch {
    return undefined;
  }
}

export function createOutbound(deps: OutboundDeps): OutboundSender {
  const records: DeliveryRecord[] = [];
  const inflight = new Set<Promise<void>>();
  const sender: Sender = {
    deps,
    originMap: normaliseOriginMap(deps.originMap ?? {}),
    wait: (ms) => new Promise<void>((resolve) => deps.timers.after(ms, resolve)),
  };
  let nextDeliveryId = 1;

  function track(record: DeliveryRecord, run: () => Promise<void>): void {
    records.push(record);
    const done: Promise<void> = run()
      .catch(() => {})
      .finally(() => inflight.delete(done));
    inflight.add(done);
  }

  function enqueue(kind: RegistryKind, userId: number, event: OutboundEvent, schedule: ScheduleName) {
    const { event: name, delivery_id: _ignored, ...rest } = event;
    const deliveryId = nextDeliveryId++;
    const payload = { event: name, delivery_id: deliveryId, ...rest };
    const record: DeliveryRecord = { kind, payload, deliveryId, attempts: 0, state: "queued", log: [] };
    track(record, () => deliverWebhook(sender, record, { userId, kind, schedule }));
  }

  return {
    orderEvent(account, event) {
      enqueue("order", account.userId, event, event.order_type === "5m" ? "order5m" : "order");
    },
    reportEvent(account, event) {
      enqueue("report", account.userId, event, "report");
    },
    hostCallback(url, params) {
      const target = callbackUrl(url, params, sender.originMap);
      const record: DeliveryRecord = {
        kind: "host",
        payload: { ...params },
        attempts: 0,
        state: "queued",
        log: [],
      };
      if (target === undefined) {
        record.state = "not_sent";
        records.push(record);
        return;
      }
      record.url = target;
      track(record, () => deliverCallback(sender, record, target));
    },
    async idle() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
    history() {
      return records.map((r) => ({ ...r, log: [...r.log] }));
    },
  };
}

/** HTTP status of one exchange, or "error" for a network failure or timeout. */
async function send(
  url: string,
  init: { method: "GET" | "POST"; headers?: Record<string, string>; body?: Buffer },
  timeoutMs: number,
): Promise<number | "error"> {
  try {
    const reply = await request(url, {
      method: init.method,
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(timeoutMs),
      // One connection per attempt: a receiver that hung must not poison the next attempt.
      reset: true,
    });
    await reply.body.dump();
    return reply.statusCode;
  } catch {
    return "error";
  }
}

function normaliseOriginMap(map: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [from, to] of Object.entries(map)) out.set(new URL(from).origin, to.replace(/\/+$/, ""));
  return out;
}

function mapOrigin(url: string, map: Map<string, string>): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const target = map.get(parsed.origin);
  return target === undefined ? url : `${target}${parsed.pathname}${parsed.search}`;
}
