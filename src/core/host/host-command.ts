import { isServiceError } from "../../service/errors.js";
import { clearAlertOf } from "../alerts/index.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { parseTronAddress } from "../parse/tron-address.js";
import { errorReply, type Reply } from "../reply.js";
import { balanceCovers, getBalance } from "../spend/balance-cache.js";
import { whoName } from "../spend/confirmed.js";
import { offerQuote } from "../spend/offer-quote.js";
import { denyListText, preflightAddress } from "../spend/preflight.js";
import { quoteHost } from "../spend/quote.js";
import { auditSpend } from "../spend/record.js";
import { checkSpend } from "../spend/spend-guard.js";
import { markHostStopped } from "./active.js";
import { hostFailureLine } from "./host-errors.js";
import { recordHostEvent } from "./host-events.js";
import { type HostConfirmPayload, hostCallbackUrl } from "./host-payload.js";
import { NO_CALLBACK_WARNING, renderHostQuote, renderHostStopped } from "./host-render.js";
import { hostStart } from "./host-spend.js";
import { hostStatusReply } from "./host-status-action.js";

const USAGE =
  "use host start <address>, host stop <address> or host status <address>, e.g. host start TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

/**
 * `host start|stop|status <address>`: Host Mode in infinity mode. Start quotes and needs Confirm;
 * stop spends nothing; status (anyone's) reads the service's Time Status beside the bot's record.
 */
export const hostCommand: CommandDefinition = {
  verb: "host",
  subverbs: ["start", "stop", "status"],
  role: "viewer",
  subverbRoles: { start: "operator", stop: "operator" },
  summary: "Host Mode in infinity mode: start (quoted, then Confirm), stop, status",
  usage: "host start|stop|status <address>",
  example: "host start TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  async run(ctx) {
    const [text, ...extra] = ctx.args;
    if (text === undefined) return errorReply(`no address given: ${USAGE}`);
    if (extra.length > 0) return errorReply(`host ${ctx.subverb} takes one address: ${USAGE}`);
    const address = parseTronAddress(text);
    if (!address.ok) return errorReply(address.error);
    if (ctx.subverb === "status") return hostStatusReply(ctx.deps, ctx.invocation, address.value);
    return ctx.subverb === "stop" ? runStop(ctx, address.value) : runStart(ctx, address.value);
  },
};

async function runStart(ctx: CommandContext, address: string): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const preflight = await preflightAddress(deps, address, "started");
  if (!preflight.ok) return errorReply(preflight.line);
  const quote = await quoteHost(deps);
  const spend = await checkSpend({
    store: deps.store,
    actor,
    quoteTrx: quote.firstCycleTrx,
    settings: deps.settings,
    now: deps.now,
  });
  if (!spend.ok) return errorReply(spend.line);
  const balance = await getBalance(deps);
  const warnings = preflight.warning === undefined ? [] : [preflight.warning];
  if (hostCallbackUrl(deps.settings) === undefined) warnings.push(NO_CALLBACK_WARNING);
  const view = {
    address,
    quote,
    balance,
    denyList: denyListText(preflight.verdict),
    warnings,
    ...(deps.settings.dailyLimitTrx !== undefined && { dailyLimitTrx: deps.settings.dailyLimitTrx }),
  };
  if (balanceCovers(balance, quote.firstCycleTrx) === false) {
    return renderHostQuote({
      ...view,
      refusal:
        "The balance does not cover one cycle, so no Start button is offered: top up the deposit address, then run the command again.",
    });
  }
  const payload: HostConfirmPayload = { address, firstCycleTrx: quote.firstCycleTrx };
  const { tokens } = await offerQuote(deps, { conversation, actor }, hostStart, payload);
  return renderHostQuote({ ...view, tokens });
}

async function runStop(ctx: CommandContext, address: string): Promise<Reply> {
  const { deps } = ctx;
  const { actor, conversation } = ctx.invocation;
  const base = { actor, conversation, verb: "host stop", address };
  try {
    const stopped = await deps.service.hostMode.stop(address);
    await stoppedHere(ctx, address, stopped.data.orders_closed);
    // Its alert (the address turned blocked while in Host Mode) is answered: resolved in place.
    await clearAlertOf(deps, "host.blocked", address, `Host Mode stopped by ${whoName(actor)}`).catch(
      (error: unknown) =>
        deps.logger.warn({ err: error, address }, "Host Mode stopped; its alert was not resolved"),
    );
    await auditSpend(deps, {
      ...base,
      result: "ok",
      message: `${stopped.message}; ${stopped.data.orders_closed} order(s) closed`,
    });
    return renderHostStopped(stopped.data, whoName(actor));
  } catch (error) {
    // Already inactive: what was wanted, and a start still being reconciled must not run it.
    if (isServiceError(error) && error.code === -7) await stoppedHere(ctx, address, 0);
    const line = hostFailureLine(error, address, "stop");
    deps.logger.warn({ err: error, address }, "host stop failed");
    await auditSpend(deps, { ...base, result: "failed", message: line });
    return errorReply(line);
  }
}

/** The address is off: the App Home list, and the record a start reconciler reads before it asks again. */
async function stoppedHere(ctx: CommandContext, address: string, ordersClosed: number): Promise<void> {
  const { deps } = ctx;
  try {
    await recordHostEvent(deps.store, address, { event: "stopped", at: deps.now(), ordersClosed });
    await markHostStopped(deps, address);
  } catch (error) {
    deps.logger.warn(
      { err: error, address },
      "Host Mode stopped, but the bot's record of it was not updated",
    );
  }
}
