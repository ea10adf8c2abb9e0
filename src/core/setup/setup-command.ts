import type { WebhookFamily } from "../../service/webhook-events.js";
import type { CommandContext, CommandDefinition } from "../command.js";
import { toUserLine } from "../errors.js";
import { hostCallbackUrl } from "../host/index.js";
import { echo } from "../parse/echo.js";
import { type Block, bold, code, context, errorReply, header, type Reply, text } from "../reply.js";
import {
  type FamilyStatus,
  type RegisterOutcome,
  type RotateOutcome,
  registerWebhooks,
  rotateWebhookSecrets,
  WEBHOOK_FAMILIES,
  webhookStatus,
} from "./webhook-registration.js";

/**
 * `setup webhooks | status | rotate [orders|reports]` (admins): registers the bot's receivers in
 * the service's two webhook registries, shows them, rotates their secrets. Secrets go from the
 * service's reply into the store and are never shown. Replies are for the admin only.
 */
const LABELS: Record<WebhookFamily, string> = { orders: "Order webhooks", reports: "Report webhooks" };
const SECRET_NOTE = "Secrets are kept in the bot's store and never shown in chat or logs.";

const adminReply = (summary: string, blocks: Block[]): Reply => ({ summary, blocks, visibility: "private" });

export const setupCommand: CommandDefinition = {
  verb: "setup",
  subverbs: ["webhooks", "status", "rotate"],
  role: "admin",
  summary: "register, list or rotate the bot's webhooks",
  usage: "setup webhooks|status|rotate [orders|reports]",
  example: "setup webhooks",
  async run(ctx) {
    switch (ctx.subverb) {
      case "webhooks":
        return ctx.args.length > 0 ? errorReply("setup webhooks takes no arguments.") : setupWebhooks(ctx);
      case "status":
        return ctx.args.length > 0 ? errorReply("setup status takes no arguments.") : setupStatus(ctx);
      case "rotate":
        return setupRotate(ctx);
      default:
        return errorReply("Use setup webhooks, setup status or setup rotate [orders|reports].");
    }
  },
};

const NO_PUBLIC_URL =
  "setup webhooks needs PUBLIC_URL: set it to the https address where the service reaches this bot (e.g. https://bot.example.com) and restart.";

async function setupWebhooks(ctx: CommandContext): Promise<Reply> {
  if (!ctx.deps.settings.publicUrl) return errorReply(NO_PUBLIC_URL);
  const outcomes = await registerWebhooks(ctx.deps);
  const lines = outcomes.map(registerLine);
  const ok = outcomes.every((o) => o.status !== "failed" && o.status !== "full");
  return adminReply(ok ? "Webhooks registered" : "Webhook set-up incomplete", [
    header("Webhook set-up"),
    ...lines.map((line) => text(line)),
    context(SECRET_NOTE),
  ]);
}

function registerLine(outcome: RegisterOutcome): string {
  const label = LABELS[outcome.family];
  switch (outcome.status) {
    case "created":
      return `${label}: registered ${outcome.endpoint.url} as #${outcome.endpoint.id} (${outcome.endpoint.role}); its secret is stored.`;
    case "present":
      return `${label}: already registered as #${outcome.endpoint.id} (${outcome.endpoint.role})${outcome.resumed ? "; it was paused and is active again" : ""}.`;
    case "renewed":
      return `${label}: #${outcome.endpoint.id} was registered already, but the bot did not hold its secret: a new secret was issued and stored${outcome.resumed ? "; it was paused and is active again" : ""}.`;
    case "full": {
      const taken = outcome.endpoints.map((e) => `#${e.id} ${e.url}`).join(", ");
      return `${label}: both endpoint slots are taken (${taken}); remove one with the service, then run setup webhooks again.`;
    }
    case "failed":
      return `${label}: not registered. ${toUserLine(outcome.error)}`;
  }
}

async function setupStatus(ctx: CommandContext): Promise<Reply> {
  const statuses = await webhookStatus(ctx.deps);
  const blocks: Block[] = [header("Webhook endpoints")];
  for (const status of statuses) blocks.push(...statusBlocks(status));
  const callback = hostCallbackUrl(ctx.deps.settings);
  blocks.push(
    callback
      ? text(
          bold("Host Mode callbacks: "),
          code(callback.replace(/[^/]+$/, "<token>")),
          " (the token is secret)",
        )
      : text(bold("Host Mode callbacks: "), "PUBLIC_URL is not set, so Host Mode cannot call the bot back."),
  );
  blocks.push(context(SECRET_NOTE));
  return adminReply("Webhook endpoints", blocks);
}

function statusBlocks(status: FamilyStatus): Block[] {
  const label = LABELS[status.family];
  if (status.error !== undefined)
    return [text(bold(`${label}: `), `could not list. ${toUserLine(status.error)}`)];
  const expected = status.expectedUrl
    ? ` (the bot's URL: ${status.expectedUrl})`
    : " (PUBLIC_URL is not set)";
  if (status.endpoints.length === 0) return [text(bold(`${label}: `), `none registered${expected}.`)];
  const lines = status.endpoints.map((e) => {
    const state = e.is_active ? "active" : "paused";
    const mine = e.url === status.expectedUrl ? "the bot's" : "another receiver";
    const secret = e.secretHeld ? "secret held" : "no secret held here";
    return `#${e.id} ${e.role}, ${state}: ${e.url} (${mine}, ${secret})`;
  });
  return [text(bold(`${label}:`)), text(lines.join("\n"))];
}

async function setupRotate(ctx: CommandContext): Promise<Reply> {
  const [which, ...extra] = ctx.args;
  const wanted = which?.toLowerCase();
  if (extra.length > 0 || (wanted !== undefined && wanted !== "orders" && wanted !== "reports")) {
    const shown = which === undefined ? "" : ` (got ${echo(ctx.args.join(" "))})`;
    return errorReply(`setup rotate takes orders, reports or nothing (both)${shown}.`);
  }
  const families = wanted === undefined ? WEBHOOK_FAMILIES : [wanted as WebhookFamily];
  const outcomes: RotateOutcome[] = [];
  for (const family of families) outcomes.push(await rotateWebhookSecrets(ctx.deps, family));
  const ok = outcomes.every((o) => o.status === "rotated");
  return adminReply(ok ? "Webhook secrets rotated" : "Webhook secret rotation incomplete", [
    header("Webhook secret rotation"),
    ...outcomes.map((o) => text(rotateLine(o))),
    context(
      `The new secret is stored before the old one is dropped, so deliveries verify throughout. ${SECRET_NOTE}`,
    ),
  ]);
}

function rotateLine(outcome: RotateOutcome): string {
  const label = LABELS[outcome.family];
  const ids = (list: number[]) => list.map((id) => `#${id}`).join(", ");
  switch (outcome.status) {
    case "rotated":
      return `${label}: new secret for ${ids(outcome.endpointIds)}; the old one was dropped.`;
    case "none":
      return `${label}: no endpoint of this bot is registered; run setup webhooks first.`;
    case "failed": {
      const done =
        outcome.endpointIds.length > 0 ? ` (${ids(outcome.endpointIds)} rotated before the failure)` : "";
      return `${label}: rotation failed${done}. ${toUserLine(outcome.error)}`;
    }
  }
}
