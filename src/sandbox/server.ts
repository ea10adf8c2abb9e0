import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Clock, sleep as realSleep, systemClock } from "../clock.js";
import { type AccountBook, createAccountBook, DEFAULT_API_KEY, type SandboxAccount } from "./accounts.js";
import { createTimers, type SandboxContext, type Timers } from "./context.js";
import { createEndpointBook } from "./families/account/endpoint-book.js";
import { type AccountFamilyOptions, createAccountFamily } from "./families/account.js";
import { createEnergyFamily, type EnergyFamilyOptions } from "./families/energy.js";
import { createScreeningFamily, type ScreeningFamilyOptions } from "./families/screening.js";
import { createOutbound, type OutboundOptions } from "./outbound.js";
import { raiseEnergyPrices } from "./price-book.js";
import { SANDBOX_LIMITS, type SandboxBucket } from "./rate-limits.js";
import { createRouter, type Route, type SandboxReply, type SandboxRequest } from "./router.js";

export interface SandboxOptions {
  port?: number;
  host?: string;
  now?: Clock;
  /** What runs the services' timers (checks, waits, deliveries); a test can fire them by hand. */
  timers?: Timers;
  /** How the `delay` and `late` faults wait; a test can hold them and let go by hand. */
  sleep?: (ms: number) => Promise<void>;
  /** The key of the first account (default `sandbox-api-key`). */
  apiKey?: string;
  /** Enforce the spec's rate limits with 429 (default true). */
  enforceRateLimits?: boolean;
  screening?: ScreeningFamilyOptions;
  energy?: EnergyFamilyOptions;
  account?: AccountFamilyOptions;
  outbound?: OutboundOptions;
  /**
   * How many of the latest calls `calls()` keeps (default: every one, for tests). The demo bot's
   * built-in sandbox keeps a bounded log, so a demo left running does not grow with every call.
   */
  keepCalls?: number;
}

/** One recorded call, for tests to check what the service was asked. */
export interface RecordedCall {
  at: number;
  endpoint: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  status: number;
}

/**
 * What a test makes the next call(s) of an endpoint meet. Before the endpoint runs (nothing done):
 * `reply` answers instead, `delay` waits first, `hold` waits until the test's promise resolves,
 * `reset` drops the connection. After it ran (the call took effect, its answer is lost on the way
 * back): `late` answers only after `ms`, `lost` drops the connection, or answers `reply` (a 5xx)
 * instead of the real answer.
 */
export type Injected =
  | { kind: "reply"; reply: SandboxReply }
  | { kind: "delay"; ms: number }
  | { kind: "hold"; until: Promise<void> }
  | { kind: "reset" }
  | { kind: "late"; ms: number }
  | { kind: "lost"; reply?: SandboxReply };

interface Injection {
  endpoint: string;
  remaining: number;
  effect: Injected;
}

export type Sandbox = Awaited<ReturnType<typeof createSandbox>>;

export async function createSandbox(options: SandboxOptions = {}) {
  const now = options.now ?? systemClock;
  const accounts: AccountBook = createAccountBook();
  const primary: SandboxAccount = accounts.add({ apiKey: options.apiKey ?? DEFAULT_API_KEY });
  const timers = options.timers ?? createTimers();
  const sleep = options.sleep ?? realSleep;
  // One webhook registry book, written by the account family's routes and read by the sender.
  const endpoints = createEndpointBook(now);
  const outbound = createOutbound({ now, timers, endpoints, ...options.outbound });
  const ctx: SandboxContext = { now, accounts, outbound, timers };

  const screening = createScreeningFamily(ctx, options.screening);
  const energy = createEnergyFamily(ctx, options.energy);
  const account = createAccountFamily(ctx, { ...options.account, endpoints });
  const routes: Route[] = [...screening.routes, ...energy.routes, ...account.routes];
  const router = createRouter(routes);

  const calls: RecordedCall[] = [];
  const keepCalls = options.keepCalls;
  const injections: Injection[] = [];
  const limits = createWindowCounter(now);
  const priceUndos: (() => void)[] = [];
  let enforceRateLimits = options.enforceRateLimits ?? true;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? "/", "http://sandbox");
    const matched = router.match(req.method ?? "GET", url.pathname);
    if (!matched) {
      const status = router.knowsPath(url.pathname) ? 405 : 404;
      return send(res, { status, json: { detail: status === 405 ? "Method Not Allowed" : "Not Found" } });
    }
    const realIp = req.headers["x-real-ip"];
    const request: SandboxRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      params: matched.params,
      query: url.searchParams,
      headers: req.headers,
      rawBody,
      ip: (Array.isArray(realIp) ? realIp[0] : realIp) ?? req.socket.remoteAddress ?? "",
    };
    const record: RecordedCall = {
      at: now(),
      endpoint: matched.route.name,
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: flatHeaders(req.headers),
      body: parseMaybe(rawBody),
      status: 0,
    };
    calls.push(record);
    // Dropped in halves, so a bounded log costs one splice per `keepCalls` calls, not one per call.
    if (keepCalls !== undefined && calls.length > 2 * keepCalls) calls.splice(0, calls.length - keepCalls);

    const injected = takeInjection(matched.route.name);
    if (injected?.kind === "reset") {
      record.status = -1;
      req.socket.destroy();
      return;
    }
    if (injected?.kind === "delay") await sleep(injected.ms);
    if (injected?.kind === "hold") await injected.until;
    if (injected?.kind === "reply") {
      record.status = injected.reply.status;
      return send(res, injected.reply);
    }
    if (enforceRateLimits) {
      const limited = overLimit(matched.route, request);
      if (limited !== undefined) {
        record.status = 429;
        const seconds = Math.max(1, Math.ceil(limited / 1000));
        return send(
          res,
          matched.route.limitReply?.(seconds) ?? {
            status: 429,
            json: { message: "API rate limit exceeded" },
            headers: { "retry-after": String(seconds) },
          },
        );
      }
    }
    let reply: SandboxReply;
    try {
      reply = await matched.route.handler(request);
    } catch (error) {
      reply = { status: 500, json: { detail: `sandbox handler failed: ${(error as Error).message}` } };
    }
    record.status = reply.status;
    if (injected?.kind === "late") await sleep(injected.ms);
    if (injected?.kind === "lost") {
      if (injected.reply === undefined) {
        record.status = -1;
        req.socket.destroy();
        return;
      }
      record.status = injected.reply.status;
      return send(res, injected.reply);
    }
    if (res.destroyed || req.socket.destroyed) return;
    send(res, reply);
  }

  /** Milliseconds until a slot frees when the route's limit is exceeded, else undefined. */
  function overLimit(route: Route, req: SandboxRequest): number | undefined {
    if (route.limitBy === "global") return limits.hit(route.buckets, "*");
    const key = route.limitBy === "key" ? String(req.headers["x-api-key"] ?? "") : req.ip;
    return limits.hit(route.buckets, key);
  }

  function takeInjection(endpoint: string): Injected | undefined {
    const index = injections.findIndex((i) => i.endpoint === endpoint || i.endpoint === "*");
    const found = injections[index];
    if (!found) return undefined;
    found.remaining -= 1;
    if (found.remaining <= 0) injections.splice(index, 1);
    return found.effect;
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) send(res, { status: 500, json: { detail: error.message } });
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve),
  );
  const address = server.address() as AddressInfo;

  return {
    url: `http://${address.address}:${address.port}`,
    port: address.port,
    ctx,
    /** The first account (its key is `options.apiKey`). */
    account: primary,
    accounts,
    screening: screening.control,
    energy: energy.control,
    reports: account.control,
    outbound,
    /** Every call received (the latest `keepCalls` when bounded), in order; filter by endpoint label. */
    calls(endpoint?: string): RecordedCall[] {
      const kept = keepCalls === undefined ? calls : calls.slice(-keepCalls);
      return endpoint ? kept.filter((c) => c.endpoint === endpoint) : [...kept];
    },
    clearCalls(): void {
      calls.length = 0;
    },
    /** Makes the next `times` calls of `endpoint` (or `*`) answer as given instead. */
    inject(endpoint: string, effect: Injected, times = 1): void {
      injections.push({ endpoint, remaining: times, effect });
    },
    setRateLimits(enforce: boolean): void {
      enforceRateLimits = enforce;
    },
    /** The price list changes at run time (undone when the sandbox closes). */
    prices: {
      raiseEnergy(sun: number): void {
        priceUndos.push(raiseEnergyPrices(sun));
      },
    },
    async close(): Promise<void> {
      for (const undo of priceUndos.splice(0)) undo();
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sliding-log counter per bucket and caller, matching the windows of SANDBOX_LIMITS. */
function createWindowCounter(now: Clock) {
  const logs = new Map<string, number[]>();
  return {
    hit(buckets: readonly SandboxBucket[], caller: string): number | undefined {
      const t = now();
      let waitMs: number | undefined;
      const touched: number[][] = [];
      for (const bucket of buckets) {
        for (const window of SANDBOX_LIMITS[bucket]) {
          const id = `${bucket}:${window.durationMs}:${caller}`;
          const log = (logs.get(id) ?? []).filter((at) => at > t - window.durationMs);
          logs.set(id, log);
          if (log.length >= window.points) {
            const free = (log[0] ?? t) + window.durationMs - t;
            waitMs = Math.max(waitMs ?? 0, free);
          }
          touched.push(log);
        }
      }
      if (waitMs !== undefined) return waitMs;
      for (const log of touched) log.push(t);
      return undefined;
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, reply: SandboxReply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let body: Buffer | undefined = reply.raw;
  if (body === undefined && reply.json !== undefined) {
    body = Buffer.from(JSON.stringify(reply.json));
    headers["content-type"] ??= "application/json";
  }
  res.writeHead(reply.status, headers);
  res.end(body);
}

function flatHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseMaybe(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return raw.toString("utf8");
  }
}
