import { randomBytes } from "node:crypto";
import { ACTION_TTL_MS } from "../actions.js";
import type { CoreDeps } from "../deps.js";
import { type EnergyConfirmPayload, energyOrder } from "../energy/index.js";
import { checkEnergyRange, parseEnergyAmount } from "../parse/amount.js";
import { parseTronAddress } from "../parse/tron-address.js";
import { energyServiceFor, quoteEnergy } from "../pricing/quote.js";
import { checkAtQuote } from "../spend/check-at-quote.js";
import { offerQuote } from "../spend/offer-quote.js";
import { denyListText } from "../spend/preflight.js";
import { auditAgent } from "./audit.js";
import { takeAwaitingSlot, tooManyWaitingLine } from "./awaiting-slots.js";
import { checkAgentReason } from "./reason.js";
import { renderAgentQuote } from "./render.js";
import { saveRequest } from "./requests.js";

export interface EnergyAsk {
  agent: string;
  address: string;
  /** An integer, or the text typed after `energy` (`65000`, `65k`). */
  amount: number | string;
  reason: string;
}

export type EnergyAskResult =
  | { request_id: string; status: "awaiting_confirmation"; quote_trx: string }
  | { request_id: string; status: "refused"; refusal: string };

const newRequestId = (): string => `R${randomBytes(9).toString("base64url").replace(/[-_]/g, "x")}`;

/**
 * `request_energy`: the checks of a person's `energy` command (range, deny list, caps, balance),
 * then the quote in the agents' channel for an operator to confirm. Refused: nothing is posted.
 * The quote is offered by the pipeline (offerQuote) with the agent as its requester, so its Confirm
 * is the energy Confirm under every money rule of a person's, and its outcome names the agent.
 */
export async function requestEnergy(deps: CoreDeps, ask: EnergyAsk): Promise<EnergyAskResult> {
  const id = newRequestId();
  const refused = async (refusal: string): Promise<EnergyAskResult> => {
    await auditAgent(deps, ask.agent, "request_energy", "failed", refusal, {
      address: ask.address,
      amount: String(ask.amount),
    });
    return { request_id: id, status: "refused", refusal };
  };
  const reason = checkAgentReason(ask.reason);
  if (!reason.ok) return refused(reason.error);
  ask = { ...ask, reason: reason.value };
  const address = parseTronAddress(ask.address);
  if (!address.ok) return refused(address.error);
  const parsed = parseEnergyAmount(String(ask.amount));
  const amount = parsed.ok ? checkEnergyRange(parsed.value) : parsed;
  if (!amount.ok) return refused(amount.error);
  const actor = `agent:${ask.agent}`;
  const checked = await checkAtQuote(deps, {
    actor,
    preflight: address.value,
    price: (reads) => quoteEnergy(deps, address.value, amount.value, reads),
    prices: [energyServiceFor(amount.value)],
    costOf: (q) => q.costTrx,
    activation: [address.value],
    agent: ask.agent,
  });
  if (!checked.ok) return refused(checked.line);
  const { quote, activationTrx } = checked;
  if (!checked.covered) {
    return refused("The balance does not cover this order: top up the deposit address first.");
  }
  const channel = deps.settings.agentChannel;
  if (!channel)
    return refused("No channel is set up for agents' requests (OPS_AGENT_CHANNEL); nothing was posted.");
  const payload: EnergyConfirmPayload = {
    address: address.value,
    amount: amount.value,
    route: quote.route,
    quoteTrx: quote.costTrx,
    unitPriceSun: quote.unitPriceSun,
    periodLabel: quote.periodLabel,
    ...(activationTrx !== undefined && { activationTrx }),
  };
  const slot = await takeAwaitingSlot(deps, ask.agent, id);
  if (!slot.ok) return refused(tooManyWaitingLine(slot.waiting));
  const requester = { kind: "agent" as const, name: ask.agent, reason: ask.reason };
  const group = await offerQuote(deps, { conversation: channel, actor }, energyOrder, payload, {
    requester,
  }).catch(async (error: unknown) => {
    await slot.release();
    throw error;
  });
  const now = deps.now();
  await saveRequest(deps.store, {
    id,
    agent: ask.agent,
    reason: ask.reason,
    address: address.value,
    amount: amount.value,
    quoteTrx: quote.costTrx,
    status: "awaiting_confirmation",
    confirmationId: group.confirmationId,
    expiresAt: now + ACTION_TTL_MS,
    createdAt: now,
  });
  const reply = renderAgentQuote({
    agent: ask.agent,
    reason: ask.reason,
    requestId: id,
    quote,
    denyList: denyListText(checked.verdict),
    warnings: checked.warnings,
    tokens: group.tokens,
    ...(activationTrx !== undefined && { activationTrx }),
  });
  // Behind the channel's answers, alerts and delivery notices: a burst of requests never delays them.
  await deps.notifier.post(channel, reply, `agent-request:${id}`, { priority: "low" });
  await auditAgent(
    deps,
    ask.agent,
    "request_energy",
    "ok",
    `request ${id} posted, quote ${quote.costTrx} TRX: ${ask.reason}`,
    {
      address: address.value,
      amount: String(amount.value),
      quoteTrx: quote.costTrx,
    },
  );
  return { request_id: id, status: "awaiting_confirmation", quote_trx: quote.costTrx };
}
