import type { SandboxAccount } from "../accounts.js";
import type { SandboxContext } from "../context.js";
import type { Route } from "../router.js";
import { createEndpointBook, type EndpointBook } from "./account/endpoint-book.js";
import { createPricingRoutes } from "./account/pricing.js";
import type { ReportBookOptions } from "./account/report-book.js";
import { createReportRoutes } from "./account/reports.js";
import { addSubuser, createUserinfoRoutes } from "./account/userinfo.js";
import { createWebhookRegistryRoutes } from "./account/webhook-registries.js";

/**
 * The account family of the sandbox: price list, account information, sub-user deletion, statement
 * reports and the two webhook registries.
 */
export interface AccountFamilyOptions {
  reports?: ReportBookOptions;
  /**
   * The webhook registries. The server creates one book and gives it to both this family and the
   * outbound sender, so deliveries see registrations; a book of its own is made when absent.
   */
  endpoints?: EndpointBook;
}

export function createAccountFamily(ctx: SandboxContext, options: AccountFamilyOptions = {}) {
  const endpoints = options.endpoints ?? createEndpointBook(ctx.now);
  const reports = createReportRoutes(ctx, options.reports);
  const routes: Route[] = [
    ...createPricingRoutes(ctx),
    ...createUserinfoRoutes(ctx),
    ...createWebhookRegistryRoutes(ctx, endpoints),
    ...reports.routes,
  ];
  const control = {
    ...reports.control,
    /** Adds a sub-user of `parent` (external id `SUB…`) with its own API key. */
    addSubuser: (parent: SandboxAccount, init: Partial<SandboxAccount> = {}) => addSubuser(ctx, parent, init),
    /** The registered webhook endpoints (with secrets), for tests and the demo. */
    endpoints,
  };
  return { routes, control };
}
