import type { WebhookFamily } from "../../service/webhook-events.js";
import type { WebhookEndpoint } from "../../service/webhook-registries.js";
import type { CoreDeps } from "../deps.js";
import { dropWebhookSecrets, storedWebhookSecrets, storeWebhookSecret } from "./webhook-secrets.js";

/**
 * Registering the bot's receivers in the service's two webhook registries, and rotating their
 * secrets. Every step reads the registry first, so running it again (or at every demo start)
 * changes nothing that is already right. A secret goes from the service's reply straight into
 * the store: it is never returned to a caller that could show or log it.
 */
export const WEBHOOK_FAMILIES: readonly WebhookFamily[] = ["orders", "reports"];

export type RegistrationDeps = Pick<CoreDeps, "service" | "store" | "now" | "settings" | "logger">;

/** `PUBLIC_URL/webhooks/orders` or `/reports`: the routes of src/webhooks. */
const webhookUrl = (publicUrl: string, family: WebhookFamily): string =>
  `${publicUrl.replace(/\/+$/, "")}/webhooks/${family}`;

async function listEndpoints(deps: RegistrationDeps, family: WebhookFamily): Promise<WebhookEndpoint[]> {
  if (family === "orders") return (await deps.service.webhooks.orders.list()).endpoints;
  return deps.service.webhooks.reports.list();
}

export type RegisterOutcome =
  | {
      family: WebhookFamily;
      status: "created" | "present" | "renewed";
      endpoint: WebhookEndpoint;
      resumed: boolean;
    }
  | { family: WebhookFamily; status: "full"; endpoints: WebhookEndpoint[] }
  | { family: WebhookFamily; status: "failed"; error: unknown };

/** Both registries, one after the other; a failure in one does not stop the other. */
export async function registerWebhooks(deps: RegistrationDeps): Promise<RegisterOutcome[]> {
  const publicUrl = deps.settings.publicUrl;
  if (!publicUrl) throw new Error("PUBLIC_URL is not set");
  const outcomes: RegisterOutcome[] = [];
  for (const family of WEBHOOK_FAMILIES) {
    try {
      outcomes.push(await registerOne(deps, family, webhookUrl(publicUrl, family)));
    } catch (error) {
      deps.logger.warn({ family, err: error }, "webhook registration failed");
      outcomes.push({ family, status: "failed", error });
    }
  }
  return outcomes;
}

async function registerOne(
  deps: RegistrationDeps,
  family: WebhookFamily,
  url: string,
): Promise<RegisterOutcome> {
  const api = deps.service.webhooks[family];
  const endpoints = await listEndpoints(deps, family);
  const existing = endpoints.find((e) => e.url === url);
  if (!existing) {
    if (endpoints.length >= 2) return { family, status: "full", endpoints };
    const created = await api.create({ url });
    await keepSecret(deps, family, created.id, created.secret, url);
    // A new endpoint can reuse the id of one deleted earlier (a fresh demo sandbox): forget its secrets.
    await dropWebhookSecrets(deps.store, family, created.id, created.secret);
    const { secret: _secret, ...endpoint } = created;
    deps.logger.info({ family, endpointId: created.id, role: created.role }, "webhook endpoint registered");
    return { family, status: "created", endpoint, resumed: false };
  }
  const held = (await storedWebhookSecrets(deps.store, family)).some((s) => s.endpointId === existing.id);
  if (!held) {
    // Registered before (another store, a lost reply): the only way to learn its secret is a new one.
    await rotateOne(deps, family, existing.id, url);
  }
  const resumed = !existing.is_active;
  const endpoint = resumed ? await api.patch(existing.id, { is_active: true }) : existing;
  return { family, status: held ? "present" : "renewed", endpoint, resumed };
}

async function keepSecret(
  deps: RegistrationDeps,
  family: WebhookFamily,
  endpointId: number,
  secret: string,
  url: string,
): Promise<void> {
  try {
    await storeWebhookSecret(deps.store, family, { endpointId, secret, url, storedAt: deps.now() });
  } catch (error) {
    deps.logger.error(
      { family, endpointId, err: error },
      "the service issued a webhook secret but the bot could not store it; run `setup rotate` once the store is back",
    );
    throw error;
  }
}

/** New secret stored first, then the old ones dropped: both verify in between. */
async function rotateOne(deps: RegistrationDeps, family: WebhookFamily, endpointId: number, url: string) {
  const rotated = await deps.service.webhooks[family].rotateSecret(endpointId);
  await keepSecret(deps, family, endpointId, rotated.secret, url);
  await dropWebhookSecrets(deps.store, family, endpointId, rotated.secret);
  deps.logger.info({ family, endpointId }, "webhook secret rotated");
}

export type RotateOutcome =
  | { family: WebhookFamily; status: "rotated"; endpointIds: number[] }
  | { family: WebhookFamily; status: "none" }
  | { family: WebhookFamily; status: "failed"; endpointIds: number[]; error: unknown };

/** Rotates every endpoint of the family that is the bot's: its URL, or a secret held in the store. */
export async function rotateWebhookSecrets(
  deps: RegistrationDeps,
  family: WebhookFamily,
): Promise<RotateOutcome> {
  const rotatedIds: number[] = [];
  try {
    const endpoints = await listEndpoints(deps, family);
    const held = new Set((await storedWebhookSecrets(deps.store, family)).map((s) => s.endpointId));
    const url = deps.settings.publicUrl ? webhookUrl(deps.settings.publicUrl, family) : undefined;
    const ours = endpoints.filter((e) => e.url === url || held.has(e.id));
    if (ours.length === 0) return { family, status: "none" };
    for (const endpoint of ours) {
      await rotateOne(deps, family, endpoint.id, endpoint.url);
      rotatedIds.push(endpoint.id);
    }
    return { family, status: "rotated", endpointIds: rotatedIds };
  } catch (error) {
    deps.logger.warn({ family, err: error }, "webhook secret rotation failed");
    return { family, status: "failed", endpointIds: rotatedIds, error };
  }
}

export interface FamilyStatus {
  family: WebhookFamily;
  expectedUrl?: string;
  endpoints: (WebhookEndpoint & { secretHeld: boolean })[];
  error?: unknown;
}

/** Each registry's endpoints, and whether the bot holds a secret for each (never the secret). */
export async function webhookStatus(deps: RegistrationDeps): Promise<FamilyStatus[]> {
  const publicUrl = deps.settings.publicUrl;
  return Promise.all(
    WEBHOOK_FAMILIES.map(async (family): Promise<FamilyStatus> => {
      const expectedUrl = publicUrl ? webhookUrl(publicUrl, family) : undefined;
      try {
        const [endpoints, stored] = await Promise.all([
          listEndpoints(deps, family),
          storedWebhookSecrets(deps.store, family),
        ]);
        const held = new Set(stored.map((s) => s.endpointId));
        return {
          family,
          expectedUrl,
          endpoints: endpoints.map((e) => ({ ...e, secretHeld: held.has(e.id) })),
        };
      } catch (error) {
        return { family, expectedUrl, endpoints: [], error };
      }
    }),
  );
}
