import { balanceCovers } from "../balance/balance-cache.js";
import { balanceToRefuseOn } from "../balance/balance-fresh.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { parseTronAddress } from "../parse/tron-address.js";
import { quoteHost } from "../pricing/quote.js";
import { errorReply, type Reply } from "../reply.js";
import { offerQuote } from "../spend/offer-quote.js";
import { denyListText, preflightAddress } from "../spend/preflight.js";
import { checkSpend } from "../spend/spend-guard.js";
import { type HostConfirmPayload, hostCallbackUrl } from "./host-payload.js";
import { NO_CALLBACK_WARNING, renderHostQuote } from "./host-render.js";
import { hostStart } from "./host-spend.js";
import { hostStatusReply } from "./host-status-action.js";
import { stopHostMode } from "./host-stop.js";

const USAGE =
  "use host start <address>, host stop <address> or host status <address>, e.g. host start TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b";

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
  example: "host start TF6qg4pGgrMviRrWwUomrfxbPTsxjKrP7b",
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
  const balance = await balanceToRefuseOn(deps, quote.firstCycleTrx);
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

function runStop(ctx: CommandContext, address: string): Promise<Reply> {
  const { actor, conversation } = ctx.invocation;
  return stopHostMode(ctx.deps, { actor, conversation }, address);
}
