/**
 * The limits the simulated service enforces with 429, written from the spec's "Limits" tables and
 * nothing else: the sandbox must not borrow the client's table (src/service/rate-limits.ts), or a
 * wrong number would be wrong on both sides and every test would still pass. The bucket names are
 * the sandbox's own labels; a route lists the buckets one call counts against.
 */
export interface LimitWindow {
  points: number;
  durationMs: number;
}

const perSecond = (points: number): LimitWindow => ({ points, durationMs: 1_000 });
const perMinute = (points: number): LimitWindow => ({ points, durationMs: 60_000 });

export const SANDBOX_LIMITS = {
  // screening-and-compliance.md: "version 2 AML requests (shared with every AML path) | 5 per second, 150 per minute"
  aml: [perSecond(5), perMinute(150)],
  // screening-and-compliance.md: "version 1 AML requests, per IP | 2 per second, 30 per minute"
  aml_v1: [perSecond(2), perMinute(30)],
  // screening-and-compliance.md: "GET /apiv2/compliance/{address} and /stats, per IP | 10 per second, 300 per minute"
  compliance_open: [perSecond(10), perMinute(300)],
  // screening-and-compliance.md: "POST /apiv2/compliance/batch, per key | 200 per second, 12,000 per minute"
  compliance_batch: [perSecond(200), perMinute(12_000)],
  // energy-hostmode-pricing-reports-webhooks.md: "5-minute requests, per IP | 50 per second"
  order5m: [perSecond(50)],
  // energy-hostmode-pricing-reports-webhooks.md: "Orchestrator requests, per IP | 20 per second"
  orchestrator: [perSecond(20)],
  // energy-hostmode-pricing-reports-webhooks.md: "userinfo requests, per IP | 6 per minute"
  userinfo: [perMinute(6)],
  // energy-hostmode-pricing-reports-webhooks.md: "Reports and report webhooks requests | 10 per second per
  // endpoint, shared across all clients": one bucket per endpoint, counted globally (`limitBy: "global"`).
  reports_statement: [perSecond(10)],
  reports_read: [perSecond(10)],
  reports_download: [perSecond(10)],
  report_webhooks: [perSecond(10)],
  // energy-hostmode-pricing-reports-webhooks.md: "Order webhook registry requests, per API key | 5 per second, 150 per minute"
  order_webhooks: [perSecond(5), perMinute(150)],
} as const satisfies Record<string, readonly LimitWindow[]>;

export type SandboxBucket = keyof typeof SANDBOX_LIMITS;
