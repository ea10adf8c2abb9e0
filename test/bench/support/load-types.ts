/**
 * The load generator's plans and results, shared by the main thread (load.ts) and the worker
 * thread that sends the requests (load-worker.ts). Times are epoch milliseconds with sub-ms
 * precision (`performance.timeOrigin + performance.now()`), comparable across threads.
 */
export interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Requests given one by one, or signed service webhooks made on the fly (unbounded runs). */
export type RequestSource =
  | { kind: "list"; requests: RequestSpec[] }
  | {
      kind: "service-webhooks";
      path: string;
      secret: string;
      /** delivery_id of the first request; each next one adds 1, so every request is new. */
      firstDeliveryId: number;
      orderIdPrefix: string;
    };

/** Open loop: request i leaves at start + i / ratePerSec, whatever the answers do. */
export interface RatePlan {
  mode: "rate";
  origin: string;
  connections: number;
  ratePerSec: number;
  count: number;
  source: RequestSource;
}

/** Closed loop: `inFlight` requests at all times for `durationMs`; the first `warmupMs` are not counted. */
export interface MaxPlan {
  mode: "max";
  origin: string;
  connections: number;
  inFlight: number;
  durationMs: number;
  warmupMs: number;
  /** Hard cap on requests sent. */
  maxRequests: number;
  source: RequestSource;
}

export type LoadPlan = RatePlan | MaxPlan;

export interface RateResult {
  mode: "rate";
  sentAt: number[];
  doneAt: number[];
  /** HTTP status, or 0 for a network error. */
  status: number[];
  errors: string[];
}

export interface MaxResult {
  mode: "max";
  sent: number;
  /** 2xx answers completed inside the measured window. */
  okInWindow: number;
  non2xx: number;
  failed: number;
  windowMs: number;
  /** Latency samples (ms) of the requests completed inside the window. */
  latencies: number[];
  errors: string[];
}
