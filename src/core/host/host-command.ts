import type { CommandContext, CommandDefinition } from "../command.js";
import { parseTronAddress } from "../parse/tron-address.js";
import { quoteHost } from "../pricing/quote.js";
import { errorReply, type Reply } from "../reply.js";
import { checkAtQuote } from "../spend/check-at-quote.js";
import { offerQuote } from "../spend/offer-quote.js";
import { denyListText } from "../spend/preflight.js";
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
  const checked = await checkAtQuote(deps, {
    actor,
    word: hostStart.word,
    preflight: address,
    price: (reads) => quoteHost(deps, reads),
    prices: ["host"],
    costOf: (q) => q.firstCycleTrx,
  });
  if (!checked.ok) return errorReply(checked.line);
  const { quote, balance } = checked;
  const warnings = [...checked.warnings];
  if (hostCallbackUrl(deps.settings) === undefined) warnings.push(NO_CALLBACK_WARNING);
  const view = {
    address,
    quote,
    balance,
    denyList: denyListText(checked.verdict),
    warnings,
    ...(deps.settings.dailyLimitTrx !== undefined && { dailyLimitTrx: deps.settings.dailyLimitTrx }),
  };
  if (!checked.covered) {
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
