import { createHash, timingSafeEqual } from "node:crypto";
import type { Update } from "grammy/types";
import type { Logger } from "../../src/core/index.js";
import {
  type HttpRoute,
  isBodyTooLarge,
  readRawBody,
  sendText,
  sendTooLarge,
} from "../../src/http/server.js";

/**
 * `POST /telegram/webhook`. Telegram re-sends an update it did not see acknowledged quickly, so
 * the route only checks the secret and answers; the claim (deduplication) and the work that
 * waits on the service run after the 200 (`later`, `accept` must not wait for them). A wrong or missing secret header
 * is a 401 with no effect. When the store cannot claim the update, it is acknowledged all the
 * same and handed to `storeDown`, which tells the user that nothing was done: a redelivery minutes
 * later would run a command nobody waits for any more.
 */
export const TELEGRAM_WEBHOOK_PATH = "/telegram/webhook";
const SECRET_HEADER = "x-telegram-bot-api-secret-token";
/** Updates are small; anything larger is not from Telegram. */
const BODY_LIMIT_BYTES = 1_048_576;

export interface WebhookOptions {
  secret: string;
  logger: Logger;
  /** False until the bot knows who it is (getMe), and again while stopping: Telegram retries a 503. */
  accepting(): boolean;
  /** True when this update_id is new (store SET NX shared by every instance). */
  claim(updateId: number): Promise<boolean>;
  /**
   * Runs the claim after the 200, in the background (counted by shutdown and `idle`); must return
   * at once. Answering first loses nothing: the claimed update already ran after the answer.
   */
  later(work: () => Promise<void>): void;
  /** Starts handling the update in the background; must return at once. */
  accept(update: Update): void;
  /** Answers an update that could not be claimed ("storage is unavailable"); must return at once. */
  storeDown(update: Update): void;
}

export function createWebhookRoute(options: WebhookOptions): HttpRoute {
  const expected = sha256(options.secret);
  return {
    method: "POST",
    path: TELEGRAM_WEBHOOK_PATH,
    async handler(req, res) {
      if (!secretHashMatches(req.headers[SECRET_HEADER], expected)) {
        options.logger.warn(
          {},
          "telegram webhook: refused a request with a wrong or missing secret token; check that setWebhook used TELEGRAM_WEBHOOK_SECRET",
        );
        return sendText(res, 401, "unauthorized");
      }
      if (!options.accepting()) return sendText(res, 503, "not ready");
      let raw: Buffer;
      try {
        raw = await readRawBody(req, BODY_LIMIT_BYTES);
      } catch (error) {
        return isBodyTooLarge(error) ? sendTooLarge(res, error) : sendText(res, 400, "unreadable body");
      }
      const update = parseUpdate(raw);
      if (update === undefined) return sendText(res, 400, "not a Telegram update");
      // The answer waits on nothing but the secret: the claim runs after it, tracked like the work.
      sendText(res, 200, "ok");
      options.later(() => claimThenAccept(update, options));
    },
  };
}

async function claimThenAccept(update: Update, options: WebhookOptions): Promise<void> {
  let first: boolean;
  try {
    first = await options.claim(update.update_id);
  } catch (error) {
    options.logger.error(
      { err: error, updateId: update.update_id },
      "telegram webhook: could not claim an update in the store; answered that nothing was done",
    );
    options.storeDown(update);
    return;
  }
  if (first) options.accept(update);
  else options.logger.debug({ updateId: update.update_id }, "telegram webhook: update seen before");
}

/**
 * Constant time whatever the input: both sides are hashed first, so neither the length nor a
 * common prefix of the expected secret leaks through the timing.
 */
export function secretMatches(given: string | string[] | undefined, expected: string): boolean {
  return secretHashMatches(given, sha256(expected));
}

function secretHashMatches(given: string | string[] | undefined, expectedHash: Buffer): boolean {
  if (typeof given !== "string" || given === "") return false;
  return timingSafeEqual(sha256(given), expectedHash);
}

const sha256 = (value: string): Buffer => createHash("sha256").update(value).digest();

function parseUpdate(body: Buffer | undefined): Update | undefined {
  if (body === undefined) return undefined;
  try {
    const value = JSON.parse(body.toString("utf8")) as unknown;
    if (typeof value !== "object" || value === null) return undefined;
    const id = (value as { update_id?: unknown }).update_id;
    return Number.isSafeInteger(id) ? (value as Update) : undefined;
  } catch {
    return undefined;
  }
}
