import { createHash, randomBytes } from "node:crypto";
import { isServiceError } from "../../service/errors.js";
import { requestIdempotencyKey } from "../../service/idempotency.js";
import {
  FINAL_SCREENING_STATUSES,
  type ScreeningOrder,
  type ScreeningProvider,
} from "../../service/screening.js";
import { noteScreening } from "../activity/facts.js";
import { screeningFound } from "../cases/index.js";
import type { CoreDeps } from "../deps.js";
import { UserError } from "../errors.js";
import { formatAmount } from "../format.js";
import { type Actor, actorKey, type ConversationRef, conversationKey } from "../invocation.js";
import { pollDelayMs } from "../poll.js";
import { context, errorReply, type Reply } from "../reply.js";
import { checkCharge, recordCharge } from "../spend/charge.js";
import { askerName, rememberAsker } from "./asker.js";
import { forgetProviders, pickProvider } from "./screening-providers.js";
import { renderScreeningOrder } from "./screening-render.js";
import { paidScreening } from "./screening-spend.js";

/**
 * One paid screening, from provider choice to the reply. Shared by the `screen` command and the
 * network buttons.
 *
 * Idempotency: the invocation carries no platform id, so the key is derived from the request
 * itself. The same person asking for the same address, network and provider in the same
 * conversation within REPEAT_WINDOW_MS reuses one random seed kept in the store, so the POST
 * carries the same `X-Idempotency-Key`: a retry after a timeout, a redelivered message or a
 * double-typed command returns the first order instead of paying twice. A request the service
 * refused outright frees its seed (nothing was ordered, so a fresh key cannot pay twice).
 */
const REPEAT_WINDOW_MS = 5 * 60_000;
/** How long an order id stays marked as recorded (spend, audit), so a repeat never counts twice. */
const RECORDED_TTL_MS = 48 * 60 * 60_000;
const REQUEST_KEY = (fingerprint: string) => `screen:request:${fingerprint}`;
const RECORDED_KEY = (orderId: string) => `screen:order:${orderId}`;
/** The first re-poll of a screening the synchronous wait did not see finish. */
const FIRST_POLL_MS = 2_000;

export interface ScreeningRequest {
  actor: Actor;
  conversation: ConversationRef;
  address: string;
  network: string;
  /** As the user named it; unset: the first available provider that covers the network. */
  provider?: string;
}

interface RequestKey {
  storeKey: string;
  idempotencyKey: string;
  /** When the same request was first made, if this is a repeat of it. */
  repeatOf?: number;
}

export async function runScreening(deps: CoreDeps, request: ScreeningRequest): Promise<Reply> {
  const choice = await pickProvider(deps, request.network, request.provider);
  if (!choice.ok) return errorReply(choice.line);
  const provider = choice.provider;
  const key = await requestKey(deps, request, provider.provider);
  if (key.repeatOf === undefined) {
    const refusal = await spendRefusal(deps, request.actor, provider);
    if (refusal !== undefined) {
      await deps.store.del(key.storeKey);
      return errorReply(refusal);
    }
  }
  let order: ScreeningOrder;
  try {
    const created = await deps.service.screening.create({
      address: request.address,
      network: request.network,
      provider: provider.provider,
      waitForResult: true,
      idempotencyKey: key.idempotencyKey,
    });
    order = created.order;
  } catch (error) {
    throw await failure(deps, request, provider, key, error);
  }
  const first = await recordOrder(deps, request, provider, order);
  const repeatOf = first ? undefined : key.repeatOf;
  const reply = renderScreeningOrder(order, repeatOf === undefined ? {} : { repeatOf });
  if (!FINAL_SCREENING_STATUSES.has(order.order.status)) {
    await rememberAsker(deps, order.order.client_order_id, request.actor);
    return track(deps, request.conversation, order, reply);
  }
  await noteScreening(deps, order);
  const found = await screeningFound(deps, order, {
    askedBy: askerName(request.actor),
    conversation: request.conversation,
  });
  return { ...reply, blocks: [...reply.blocks, ...found] };
}

/** The stored seed of this request (a repeat) or a new one. */
async function requestKey(deps: CoreDeps, request: ScreeningRequest, provider: string): Promise<RequestKey> {
  const fingerprint = createHash("sha256")
    .update(
      JSON.stringify([
        "opsbot.screen.v1",
        actorKey(request.actor),
        conversationKey(request.conversation),
        request.address,
        request.network,
        provider,
      ]),
    )
    .digest("hex");
  const storeKey = REQUEST_KEY(fingerprint);
  const fresh = { seed: randomBytes(16).toString("base64url"), at: deps.now() };
  for (let tries = 0; tries < 2; tries += 1) {
    if (await deps.store.setIfNotExists(storeKey, JSON.stringify(fresh), REPEAT_WINDOW_MS)) {
      return { storeKey, idempotencyKey: requestIdempotencyKey(`screen.${fresh.seed}`) };
    }
    const known = parseSeed(await deps.store.get(storeKey));
    if (known) {
      return {
        storeKey,
        idempotencyKey: requestIdempotencyKey(`screen.${known.seed}`),
        repeatOf: known.at,
      };
    }
    // Expired between the two calls, or unreadable: replace it and try once more.
    await deps.store.del(storeKey);
  }
  throw new Error("could not store the screening request key");
}

function parseSeed(raw: string | null): { seed: string; at: number } | undefined {
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw) as { seed?: unknown; at?: unknown };
    if (typeof value.seed === "string" && typeof value.at === "number")
      return { seed: value.seed, at: value.at };
  } catch {
    // Unreadable: treated as absent.
  }
  return undefined;
}

/** The caps against the provider's list price, before any paid call (the pipeline's check of a charge). */
async function spendRefusal(deps: CoreDeps, actor: Actor, provider: ScreeningProvider) {
  const check = await checkCharge(deps, paidScreening, {
    actor,
    priceTrx: provider.price_trx,
    unknownPrice: `The TRX price of a screening with ${provider.provider} is unknown right now (the service has no exchange rate), so the spending caps cannot be checked; try again later.`,
  });
  return check.ok ? undefined : check.line;
}

/**
 * Records a new order once: what it charged goes into the user's daily total and the audit log.
 * Returns false when the order was already recorded (a repeat of the same request).
 */
async function recordOrder(
  deps: CoreDeps,
  request: ScreeningRequest,
  provider: ScreeningProvider,
  order: ScreeningOrder,
): Promise<boolean> {
  const id = order.order.client_order_id;
  if (!(await deps.store.setIfNotExists(RECORDED_KEY(id), "1", RECORDED_TTL_MS))) return false;
  const { billing } = order;
  const charged = billing.charged
    ? formatAmount(billing.charged_amount, billing.charged_currency)
    : "not charged";
  const message = `${request.network} ${provider.provider}: ${order.order.status}${order.order.cache_hit ? " (cache hit)" : ""}, ${charged}`;
  const who = actorKey(request.actor);
  // Charged when the order was created; a failed check refunds it later, so the total errs high.
  const chargedTrx = billing.charged && billing.charged_currency === "TRX" ? billing.charged_amount : "0";
  await recordCharge(deps, paidScreening, {
    id: `screening:${id}`,
    actor: who,
    requester: who,
    address: request.address,
    chargedTrx,
    result: order.order.status === "failed" && chargedTrx === "0" ? "failed" : "ordered",
    orderIds: [id],
    detail: message,
    cap: { actor: request.actor },
    audit: {
      actor: who,
      conversation: conversationKey(request.conversation),
      verb: "screen",
      address: request.address,
      ...(provider.price_trx !== null && { quoteTrx: provider.price_trx }),
      result: order.order.status === "failed" ? "failed" : "ok",
      message,
      orderIds: [id],
    },
  });
  return true;
}

/** Schedules the poll that posts the result when the check finishes. */
async function track(deps: CoreDeps, conversation: ConversationRef, order: ScreeningOrder, reply: Reply) {
  const id = order.order.client_order_id;
  try {
    await deps.jobs.schedule(
      { kind: "poll-screening", clientOrderId: id, conversation },
      { delayMs: pollDelayMs(0) ?? FIRST_POLL_MS, jobId: `poll-screening:${id}` },
    );
    return reply;
  } catch (error) {
    deps.logger.error(
      { err: error, clientOrderId: id, conversation: conversationKey(conversation) },
      "could not schedule the poll of a pending screening; its result will not be posted by itself",
    );
    const note = context(
      `The bot could not arrange to post the result. Run the same command again in a minute to see it (within ${REPEAT_WINDOW_MS / 60_000} minutes it returns this screening, not a new paid one).`,
    );
    return { ...reply, blocks: [...reply.blocks, note] };
  }
}

/** The error the user sees for a failed create: one precise line for each documented code. */
async function failure(
  deps: CoreDeps,
  request: ScreeningRequest,
  provider: ScreeningProvider,
  key: RequestKey,
  error: unknown,
): Promise<unknown> {
  if (!isServiceError(error)) return error;
  const status = error.httpStatus ?? 0;
  const refused =
    error.kind === "rate_limited" || (error.kind === "http" && (status < 500 || status === 503));
  // Refused outright: nothing was ordered, so the next try may use a fresh key. Anything else
  // (timeout, lost connection, 500, an unreadable 2xx) may have placed the order: keep the key.
  if (refused) await deps.store.del(key.storeKey);
  if ([4002, 4004, 5030].includes(Number(error.code))) await forgetProviders(deps);
  const line = failureLine(request, provider, error.kind, error.code);
  const who = actorKey(request.actor);
  await recordCharge(deps, paidScreening, {
    id: `screening-failed:${key.storeKey}:${deps.now()}`,
    actor: who,
    requester: who,
    address: request.address,
    chargedTrx: "0",
    result: "failed",
    detail: line ?? error.message,
    audit: {
      actor: who,
      conversation: conversationKey(request.conversation),
      verb: "screen",
      address: request.address,
      result: "failed",
      message: line ?? error.message,
    },
  });
  return line === undefined
    ? error
    : new UserError(line, { code: `screen_${error.code ?? error.kind}`, cause: error });
}

function failureLine(
  request: ScreeningRequest,
  provider: ScreeningProvider,
  kind: string,
  code: number | string | undefined,
): string | undefined {
  const name = provider.provider;
  const again = `Run the same command again within ${REPEAT_WINDOW_MS / 60_000} minutes: it carries the same idempotency key, so you get that screening's result and are not charged twice.`;
  if (kind === "timeout") {
    return `The service did not answer in time, so it is not known whether the screening was placed. ${again}`;
  }
  if (kind === "network") {
    return `Could not reach the service, so it is not known whether the screening was placed. ${again}`;
  }
  switch (code) {
    case 4002:
      return `Provider ${name} is not available to this account (code 4002); the screening was not placed.`;
    case 4004:
      return `Provider ${name} does not cover ${request.network} (code 4004); nothing was charged.`;
    case 4020: {
      const price = provider.price_trx === null ? "" : ` (${formatAmount(provider.price_trx)} with ${name})`;
      return `Not enough balance on the service account for a screening${price} (code 4020); nothing was charged. Top up the account and try again.`;
    }
    case 5030:
      return `Provider ${name} is temporarily unavailable (code 5030); the screening was not placed. Try again later.`;
    default:
      return undefined;
  }
}
