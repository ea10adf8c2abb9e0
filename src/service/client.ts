import type { Dispatcher } from "undici";
import { createAccountApi } from "./account.js";
import { createAmlV1Api } from "./aml-v1.js";
import { createComplianceApi } from "./compliance.js";
import { coalesceLookups } from "./compliance-coalescer.js";
import { createHostModeApi } from "./host-mode.js";
import { createOrchestratorApi } from "./orchestrator.js";
import { createOrder5mApi } from "./order5m.js";
import { createPricingApi } from "./pricing.js";
import type { ServiceRateLimiter } from "./rate-limits.js";
import { createReportsApi } from "./reports.js";
import { createScreeningApi } from "./screening.js";
import { type CallSpec, createTransport } from "./transport.js";
import { createWebhookRegistriesApi } from "./webhook-registries.js";

export interface ServiceClientOptions {
  baseUrl: string;
  apiKey: string;
  realIp?: string;
  dispatcher?: Dispatcher;
  limiter?: ServiceRateLimiter;
  maxAttempts?: number;
  maxRetryWaitMs?: number;
  onReply?: (spec: CallSpec, status: number | "error", durationMs: number) => void;
  /**
   * Single deny-list lookups that arrive together share one batch call (see
   * compliance-coalescer.ts). The bot turns it on; tests of the endpoints themselves leave it off.
   */
  coalesceLookups?: boolean;
}

/** The typed client of every documented endpoint of the service, one property per API family. */
export function createServiceClient(options: ServiceClientOptions) {
  const transport = createTransport(options);
  const compliance = createComplianceApi(transport);
  return {
    screening: createScreeningApi(transport),
    amlV1: createAmlV1Api(transport),
    compliance: options.coalesceLookups ? coalesceLookups(compliance) : compliance,
    order5m: createOrder5mApi(transport),
    orchestrator: createOrchestratorApi(transport),
    hostMode: createHostModeApi(transport),
    pricing: createPricingApi(transport),
    account: createAccountApi(transport),
    reports: createReportsApi(transport),
    webhooks: createWebhookRegistriesApi(transport),
  };
}

export type ServiceClient = ReturnType<typeof createServiceClient>;
