import { requestIdempotencyKey } from "../../service/idempotency.js";
import type { ReportReply, StatementRequest } from "../../service/reports.js";
import { appendAudit } from "../audit-log.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { UserError } from "../errors.js";
import { actorKey, conversationKey } from "../invocation.js";
import { rememberOrigin } from "../origins.js";
import { statementTokenId } from "../parse/dates.js";
import { errorReply } from "../reply.js";
import { followUpConversation } from "../threads/follow-ups.js";
import { parseStatementArgs, type StatementArgs } from "./statement-args.js";
import { renderStatementOrdered, specificStatementLine } from "./statement-render.js";
import { STATEMENT_FIRST_POLL_MS, statementPollJobId, wasStatementDelivered } from "./statement-tracking.js";

/**
 * `statement <address> <from> <to> [csv|pdf] [token]`: orders a statement file; the poller (or the
 * service's report.ready webhook) posts it into this conversation when it is built.
 *
 * Idempotency: the `client_request_id` is derived from the invocation, not drawn at random:
 * the same person asking for the same statement (address, period, format, token) in the same
 * conversation on the same UTC day always sends the same id, so a retry (a re-delivered Slack
 * command, a double send, a transport resend after a timeout) finds the existing order
 * (`msg: existing`) instead of building a second file. A new UTC day starts a new order, so a
 * period that ends today can be asked for again once the day has more operations. When the
 * existing order failed or expired, the id is derived again with that order's number appended
 * (`after`), so asking again builds a new file, and a retry of that ask still finds one order.
 */
function statementClientRequestId(ctx: CommandContext, args: StatementArgs, after?: string): string {
  const { invocation, deps } = ctx;
  const day = new Date(deps.now()).toISOString().slice(0, 10);
  const token = statementTokenId(args.token) ?? "TRX";
  const { dateFrom, dateTo } = args.period;
  // The readable head shows in the service's records; the JSON tail makes the identity unambiguous.
  const head = `st-${dateFrom}-${dateTo}-${args.format}-${args.address}`;
  const identity = JSON.stringify([
    "opsbot.statement.v1",
    day,
    actorKey(invocation.actor),
    conversationKey(invocation.conversation),
    args.address,
    dateFrom,
    dateTo,
    args.format,
    token,
    ...(after === undefined ? [] : [after]),
  ]);
  return requestIdempotencyKey(`${head}|${identity}`);
}

function requestOf(ctx: CommandContext, args: StatementArgs, after?: string): StatementRequest {
  const tokenId = statementTokenId(args.token);
  return {
    client_request_id: statementClientRequestId(ctx, args, after),
    address: args.address,
    ...(tokenId !== undefined && { token_id: tokenId }),
    date_from: args.period.dateFrom,
    date_to: args.period.dateTo,
    format: args.format,
  };
}

async function audit(
  ctx: CommandContext,
  args: StatementArgs,
  outcome: { orderNo?: string; error?: string },
) {
  await appendAudit(ctx.deps.store, {
    at: new Date(ctx.deps.now()).toISOString(),
    actor: actorKey(ctx.invocation.actor),
    conversation: conversationKey(ctx.invocation.conversation),
    verb: "statement",
    address: args.address,
    amount: `${args.format} ${args.period.dateFrom}..${args.period.dateTo}`,
    result: outcome.error === undefined ? "ok" : "failed",
    ...(outcome.error !== undefined && { message: outcome.error }),
    ...(outcome.orderNo !== undefined && { orderIds: [outcome.orderNo] }),
  });
}

/** An existing order in one of these states has no file to give: asking again orders anew. */
const DEAD_STATUSES: readonly string[] = ["error", "expired"];
/** Bounds the chain of re-orders one ask may walk (each failed order links to the next). */
const MAX_REORDERS = 5;

async function order(ctx: CommandContext, args: StatementArgs): Promise<ReportReply> {
  try {
    let reply = await ctx.deps.service.reports.statement(requestOf(ctx, args));
    for (let i = 0; i < MAX_REORDERS; i += 1) {
      if (reply.msg !== "existing" || !DEAD_STATUSES.includes(reply.data.status)) break;
      reply = await ctx.deps.service.reports.statement(requestOf(ctx, args, reply.data.order_no));
    }
    return reply;
  } catch (error) {
    const line = specificStatementLine(error);
    await audit(ctx, args, { error: line ?? (error instanceof Error ? error.message : String(error)) });
    // Undocumented failures go to the core as they are: its line and its log share one ref.
    if (line === undefined) throw error;
    throw new UserError(line, { code: "statement_refused", cause: error });
  }
}

export const statementCommand: CommandDefinition = {
  verb: "statement",
  role: "operator",
  summary: "a statement file of an address, posted here when ready",
  usage: "statement <address> <from> <to> [csv|pdf] [token]",
  example: "statement TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 2025-01-01 2025-01-31 pdf",
  async run(ctx) {
    // Everything is checked here first: bad input costs one line and no call.
    const parsed = parseStatementArgs(ctx.args, new Date(ctx.deps.now()));
    if (!parsed.ok) return errorReply(parsed.error);
    const args = parsed.value;
    const reply = await order(ctx, args);
    const report = reply.data;
    const { store, jobs } = ctx.deps;
    // The file is posted in reply to the message that asked for it (where the platform has one).
    const conversation = followUpConversation(ctx.deps, ctx.invocation);
    const repeat = reply.msg === "existing";
    const delivered = repeat && (await wasStatementDelivered(store, report.order_no));
    if (!delivered) {
      await rememberOrigin(store, "report", report.order_no, conversation);
      await jobs.schedule(
        { kind: "poll-statement", orderNo: report.order_no, conversation },
        { delayMs: STATEMENT_FIRST_POLL_MS, jobId: statementPollJobId(report.order_no) },
      );
    }
    if (!repeat) await audit(ctx, args, { orderNo: report.order_no });
    return renderStatementOrdered(report, { repeat, delivered, status: report.status });
  },
};
