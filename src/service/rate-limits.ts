import type { RateLimiter } from "../store/rate-limit.js";

/**
 * The service's published rate limits, as named buckets. Every call names the buckets it
 * consumes; the limiter makes the caller wait for a free slot instead of earning a 429.
 * Version 2 AML is shared by every AML path, so v1 calls consume both `aml` and `aml_v1`.
 */
export interface RateWindow {
  points: number;
  durationMs: number;
}

export const RATE_BUCKETS = {
  aml: [
    { points: 5, durationMs: 1_000 },
    { points: 150, durationMs: 60_000 },
  ],
  aml_v1: [
    { points: 2, durationMs: 1_000 },
    { points: 30, durationMs: 60_000 },
  ],
  compliance_open: [
    { points: 10, durationMs: 1_000 },
    { points: 300, durationMs: 60_000 },
  ],
  compliance_batch: [
    { points: 200, durationMs: 1_000 },
    { points: 12_000, durationMs: 60_000 },
  ],
  order5m: [{ points: 50, durationMs: 1_000 }],
  orchestrator: [{ points: 20, durationMs: 1_000 }],
  userinfo: [{ points: 6, durationMs: 60_000 }],
  reports_statement: [{ points: 10, durationMs: 1_000 }],
  reports_read: [{ points: 10, durationMs: 1_000 }],
  reports_download: [{ points: 10, durationMs: 1_000 }],
  report_webhooks: [{ points: 10, durationMs: 1_000 }],
  order_webhooks: [
    { points: 5, durationMs: 1_000 },
    { points: 150, durationMs: 60_000 },
  ],
} as const satisfies Record<string, readonly RateWindow[]>;

export type RateBucket = keyof typeof RATE_BUCKETS;

/** The limiter of the service's buckets (the interface and its error live with the sliding logs, in the store). */
export type ServiceRateLimiter<B extends string = RateBucket> = RateLimiter<B>;

export const unlimited: ServiceRateLimiter = { acquire: async () => undefined };
