import { type ReportReady, reportReadySchema } from "../../service/webhook-events.js";
import { deliveryKey, type NotificationDefinition } from "../notices/definition.js";
import { expectationKeys } from "../notices/expectations.js";
import { findOrigin } from "../origins.js";
import { renderReportReady } from "./report-ready-render.js";
import { deliverStatementFile } from "./statement-tracking.js";

/** `report.ready` read back as not yet done: ask again this many times, then leave it to the poller. */
const STATEMENT_PENDING_RETRIES = 5;
const STATEMENT_PENDING_DELAY_MS = 5_000;

/** A statement is ready: the file itself (downloaded, checked) goes to the conversation that asked. */
export const reportReady: NotificationDefinition<ReportReady> = {
  event: "report.ready",
  source: "reports",
  schema: reportReadySchema,
  key: deliveryKey("reports"),
  origin: (deps, n) => findOrigin(deps.store, "report", n.order_id),
  expects: (n) => expectationKeys(["request", n.client_request_id]),
  async deliverToOrigin(deps, n, origin, ctx) {
    if (n.status !== undefined && n.status !== "done") return undefined;
    const outcome = await deliverStatementFile(deps, n.order_id, origin);
    if (outcome === "pending" && ctx.deferrals < STATEMENT_PENDING_RETRIES) {
      return { laterMs: STATEMENT_PENDING_DELAY_MS };
    }
    return "done";
  },
  render: (n) => renderReportReady(n),
};
