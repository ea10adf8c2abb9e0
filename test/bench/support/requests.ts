import { randomBytes } from "node:crypto";
import { signSlackRequest } from "../../../adapters/slack/verify.js";
import { signServiceWebhook } from "../../../src/webhooks/service-signature.js";
import { FAKE_SLACK_TEAM } from "../../fakes/slack-api.js";
import type { RequestSpec } from "./load-types.js";

/** Secrets the bench gives the bots (and its baselines); none of them is real. */
export const BENCH_SIGNING_SECRET = "bench5ecret0f0ps0b0tsl4ckappxyz";
export const BENCH_ORDER_SECRET = "whsec_bench0rderwebhooksecret0123456789";
export const BENCH_TELEGRAM_SECRET = "bench-telegram-webhook-secret";

/**
 * A slash command as Slack POSTs it to /slack/events: form body, a fresh trigger_id (the bot's
 * once-only identity), `v0` signature. `responseUrl` comes from the fake Slack API.
 */
export function slashCommand(
  line: string,
  o: { channel: string; user: string; responseUrl: string; path?: string },
): RequestSpec {
  const [command = "", ...rest] = line.split(" ");
  const raw = new URLSearchParams({
    token: "verification-token",
    team_id: FAKE_SLACK_TEAM,
    team_domain: "fake",
    channel_id: o.channel,
    channel_name: "bench",
    user_id: o.user,
    user_name: "bench",
    command,
    text: rest.join(" "),
    api_app_id: "A0OPSBOT",
    is_enterprise_install: "false",
    response_url: o.responseUrl,
    trigger_id: `${Date.now()}.${randomBytes(8).toString("hex")}`,
  }).toString();
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    method: "POST",
    path: o.path ?? "/slack/events",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": signSlackRequest(BENCH_SIGNING_SECRET, timestamp, raw),
    },
    body: raw,
  };
}

/** A signed `delegation.confirmed` order webhook, as the service sends it. */
export function orderWebhook(deliveryId: number, orderId: string, path = "/webhooks/orders"): RequestSpec {
  const hash = randomBytes(32).toString("hex");
  const body = JSON.stringify({
    event: "delegation.confirmed",
    delivery_id: deliveryId,
    order_id: orderId,
    order_type: "5m",
    receive_address: "TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW",
    energy_amount: 65_050,
    tx_hashes: [hash],
    tx_hash: hash,
    confirmed_at: new Date().toISOString(),
  });
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    method: "POST",
    path,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-service-timestamp": String(timestamp),
      "x-service-signature": signServiceWebhook(BENCH_ORDER_SECRET, timestamp, body),
    },
    body,
  };
}
