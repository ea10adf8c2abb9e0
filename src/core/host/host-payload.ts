import { z } from "zod";
import type { CoreSettings } from "../deps.js";

/** The Start button of a Host Mode quote. */
export const HOST_CONFIRM_KIND = "host.confirm";

export const hostConfirmPayloadSchema = z.object({
  address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
  firstCycleTrx: z.string().regex(/^\d+(\.\d+)?$/),
});
export type HostConfirmPayload = z.infer<typeof hostConfirmPayloadSchema>;

/** The Status button: Time Status beside the bot's own record, in place of the message that carries it. */
export const HOST_STATUS_KIND = "host.status";
export const hostStatusPayloadSchema = hostConfirmPayloadSchema.pick({ address: true });

/**
 * The one Host Mode callback URL (Host Mode start and `setup` both use it):
 * `${PUBLIC_URL}/callbacks/host/${HOST_CALLBACK_TOKEN}`, the token URL-encoded, or undefined without
 * PUBLIC_URL. Secret: never shown.
 */
export function hostCallbackUrl(
  settings: Pick<CoreSettings, "publicUrl" | "hostCallbackToken">,
): string | undefined {
  if (!settings.publicUrl) return undefined;
  return `${settings.publicUrl.replace(/\/+$/, "")}/callbacks/host/${encodeURIComponent(settings.hostCallbackToken)}`;
}
