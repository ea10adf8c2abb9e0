import { createHash } from "node:crypto";
import { z } from "zod";
import type { WebhookFamily } from "../../service/webhook-events.js";
import type { Store } from "../../store/store.js";

/**
 * The webhook secrets the bot registered itself (`setup webhooks`, `setup rotate`), kept in the
 * store so every instance verifies with them and a restart keeps them. One hash per family; one
 * field per secret, named `<endpoint id>:<fingerprint>`, so a rotation can add the new secret
 * before it drops the old ones and both verify in between. Secret values never leave this module
 * except to the verifier: listings give ids and fingerprints.
 */
const SECRETS_KEY = (family: WebhookFamily) => `webhooks:secrets:${family}`;

const storedSchema = z.object({
  endpointId: z.number().int(),
  secret: z.string().startsWith("whsec_"),
  url: z.string(),
  storedAt: z.number(),
});

export type StoredSecret = z.infer<typeof storedSchema>;

/** A short, one-way name for a secret (logs and listings may show it). */
const secretFingerprint = (secret: string): string =>
  createHash("sha256").update(secret).digest("hex").slice(0, 12);

const fieldOf = (endpointId: number, secret: string) => `${endpointId}:${secretFingerprint(secret)}`;

export async function storeWebhookSecret(
  store: Store,
  family: WebhookFamily,
  entry: StoredSecret,
): Promise<void> {
  await store.hashSet(SECRETS_KEY(family), fieldOf(entry.endpointId, entry.secret), JSON.stringify(entry));
}

/** Every secret the bot holds for the family (unreadable entries are skipped). */
export async function storedWebhookSecrets(store: Store, family: WebhookFamily): Promise<StoredSecret[]> {
  const all = await store.hashGetAll(SECRETS_KEY(family));
  const out: StoredSecret[] = [];
  for (const raw of Object.values(all)) {
    const parsed = safeParse(raw);
    if (parsed) out.push(parsed);
  }
  return out;
}

/** Drops the endpoint's secrets except `keep` (after a rotation), or all of them. */
export async function dropWebhookSecrets(
  store: Store,
  family: WebhookFamily,
  endpointId: number,
  keep?: string,
): Promise<number> {
  const all = await store.hashGetAll(SECRETS_KEY(family));
  const keepField = keep === undefined ? undefined : fieldOf(endpointId, keep);
  const drop = Object.keys(all).filter((field) => field.startsWith(`${endpointId}:`) && field !== keepField);
  for (const field of drop) await store.hashDel(SECRETS_KEY(family), field);
  return drop.length;
}

function safeParse(raw: string): StoredSecret | undefined {
  try {
    const result = storedSchema.safeParse(JSON.parse(raw));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}
