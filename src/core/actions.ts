import { randomBytes } from "node:crypto";
import { type Clock, systemClock } from "../clock.js";
import type { Store } from "../store/store.js";
import type { ActionRecord } from "./action-record.js";
import { ELSEWHERE_LINE, type PressedIn, pressedWhereShown } from "./buttons/place.js";
import type { ActionHandler } from "./command.js";
import { type Actor, actorKey, type ConversationRef } from "./invocation.js";
import { publicReply, text } from "./reply.js";
import { can, higherRole, type Role, refusalLine } from "./roles.js";
import { requesterOf, tell } from "./spend-lifecycle.js";

/**
 * One-time buttons. A button carries only a short random token; what it does lives in the store
 * with a TTL. The buttons of one message share a group (its `confirmationId`): claiming any token
 * of the group claims the whole group with one atomic SET NX, so Confirm also kills Cancel, and a
 * double click, a retry or two bot instances run the action once.
 */
export const ACTION_TTL_MS = 5 * 60_000;
/** The claim mark outlives any button of its group, so a late second click says "Already handled." */
const CLAIM_TTL_MS = 24 * 60 * 60_000;
/** The record outlives its button a little, so a late click can say how long buttons last. */
const EXPIRED_GRACE_MS = 60_000;
const TOKEN_KEY = (token: string) => `action:${token}`;
/** The claim mark of a button group; for a durable action its value is the stored intent. */
export const CLAIM_KEY = (group: string) => `action-claim:${group}`;
/** base64url of 16 random bytes: 22 chars, fits Telegram's 64-byte callback_data and Slack's value. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,24}$/;

export type { ActionRecord };

export interface CreateActionOptions<P = unknown> {
  kind: string;
  payload: P;
  role: Role;
  conversation: ConversationRef;
  createdBy: Actor | string;
  /** Default 5 minutes. */
  ttlMs?: number;
  now?: Clock;
  /** The group to join (from `newActionGroup()`); omitted: a group of its own. */
  group?: string;
  notBy?: ActionRecord["notBy"];
}

const randomId = (): string => randomBytes(16).toString("base64url");

/** A fresh group id: pass it as `group` to every button of one message. */
export const newActionGroup = (): string => randomId();

/** Stores one button's action; returns its token (22 URL-safe chars). */
export async function createAction<P>(store: Store, options: CreateActionOptions<P>): Promise<string> {
  const ttlMs = options.ttlMs ?? ACTION_TTL_MS;
  const createdAt = (options.now ?? systemClock)();
  const token = randomId();
  const record: ActionRecord = {
    token,
    kind: options.kind,
    payload: options.payload,
    role: options.role,
    conversation: options.conversation,
    createdBy: typeof options.createdBy === "string" ? options.createdBy : actorKey(options.createdBy),
    confirmationId: options.group ?? newActionGroup(),
    createdAt,
    expiresAt: createdAt + ttlMs,
    ...(options.notBy && { notBy: options.notBy }),
  };
  await store.set(TOKEN_KEY(token), JSON.stringify(record), ttlMs + EXPIRED_GRACE_MS);
  return token;
}

export interface ActionItem {
  kind: string;
  payload: unknown;
  role: Role;
}

/** The buttons of one message in one group: `tokens[i]` belongs to `items[i]`. */
export async function createActionGroup(
  store: Store,
  common: Omit<CreateActionOptions, "kind" | "payload" | "role" | "group">,
  items: readonly ActionItem[],
): Promise<{ confirmationId: string; tokens: string[] }> {
  const confirmationId = newActionGroup();
  const tokens = await Promise.all(
    items.map((item) => createAction(store, { ...common, ...item, group: confirmationId })),
  );
  return { confirmationId, tokens };
}

type ClaimFailure = "expired" | "used" | "forbidden" | "elsewhere";

export type ClaimResult =
  | { ok: true; record: ActionRecord }
  | { ok: false; reason: ClaimFailure; line: string };

export interface ClaimOptions {
  now?: Clock;
  /** An extra role needed by kind (the handler's), so the stricter one is checked before claiming. */
  roleForKind?: (kind: string) => Role | undefined;
  /**
   * Called after every check and before the atomic claim; its answer, when given, is stored as the
   * claim's value in the same SET NX (a durable action's intent: claim and intent in one step).
   */
  beforeClaim?: (record: ActionRecord) => Promise<string | undefined>;
  /** Where the button was pressed: anywhere but where it was shown, it is refused and not claimed. */
  pressedIn?: PressedIn;
}

const expiredLine = (ttlMs: number): string => {
  const minutes = Math.max(1, Math.round(ttlMs / 60_000));
  return `This button has expired (buttons last ${minutes} minute${minutes === 1 ? "" : "s"}). Run the command again.`;
};

/**
 * Claims a button for `actor`. The role is checked BEFORE the atomic claim, so a user without the
 * role leaves the button usable for someone who has it.
 */
export async function claimAction(
  store: Store,
  token: string,
  actor: Actor,
  role: Role,
  options: ClaimOptions = {},
): Promise<ClaimResult> {
  const now = options.now ?? systemClock;
  const record = TOKEN_PATTERN.test(token) ? await readRecord(store, token) : undefined;
  if (!record || now() >= record.expiresAt) {
    const ttl = record ? record.expiresAt - record.createdAt : ACTION_TTL_MS;
    return { ok: false, reason: "expired", line: expiredLine(ttl) };
  }
  const ttlMs = record.expiresAt - now() + EXPIRED_GRACE_MS;
  if (options.pressedIn && !(await pressedWhereShown(store, record, options.pressedIn, ttlMs))) {
    return { ok: false, reason: "elsewhere", line: ELSEWHERE_LINE };
  }
  const extra = options.roleForKind?.(record.kind);
  const needed = extra ? higherRole(record.role, extra) : record.role;
  if (!can(role, needed)) {
    return { ok: false, reason: "forbidden", line: refusalLine("This button", needed, role, actor) };
  }
  // Checked before the claim, like the role: the button stays usable for someone allowed to press it.
  if (record.notBy?.actor === actorKey(actor))
    return { ok: false, reason: "forbidden", line: record.notBy.line };
  const value = (await options.beforeClaim?.(record)) ?? actorKey(actor);
  const won = await store.setIfNotExists(CLAIM_KEY(record.confirmationId), value, CLAIM_TTL_MS);
  if (!won) return { ok: false, reason: "used", line: "Already handled." };
  return { ok: true, record };
}

/**
 * Frees a claimed group (its action was not carried out; see `buttons/not-carried-out.ts`): a
 * press of any of its buttons is claimed anew. Only for a non-durable action, whose claim holds no intent.
 */
export async function releaseClaim(store: Store, group: string): Promise<void> {
  await store.del(CLAIM_KEY(group));
}

async function readRecord(store: Store, token: string): Promise<ActionRecord | undefined> {
  const raw = await store.get(TOKEN_KEY(token));
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as ActionRecord;
  } catch {
    return undefined;
  }
}

/** The kind of the generic Cancel button: it only replaces the message. */
export const CANCEL_KIND = "cancel";

export const cancelActionHandler: ActionHandler = {
  kind: CANCEL_KIND,
  role: "viewer",
  async run(ctx, payload) {
    const who = ctx.invocation.actor.displayName ?? actorKey(ctx.invocation.actor);
    // A spend's quote (src/core/spend/offer-quote.ts): its lifecycle hears it ended here.
    const spend = (payload as { spend?: unknown } | null)?.spend;
    if (typeof spend === "string") {
      const requester = requesterOf(payload);
      const ref = { spend, confirmationId: ctx.record.confirmationId, ...(requester && { requester }) };
      await tell(ctx.deps, { ...ref, status: "cancelled" });
    }
    return publicReply(`Cancelled by ${who}.`, [text(`Cancelled by ${who}.`)]);
  },
};
