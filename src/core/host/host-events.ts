import { z } from "zod";
import type { Store } from "../../store/store.js";
import { getJson, setJson } from "../../store/store-json.js";

/**
 * The last Host Mode change the bot made for an address: a start (by which confirmation) or a
 * stop (and how many open orders it closed), or a pause the service reported (`host_paused`: it was
 * running, then someone or something stopped it outside this bot). The start reconciler reads it before it asks the
 * service again, so it never restarts an address someone stopped meanwhile, nor counts a start
 * that a later confirmation made.
 */
const EVENT_TTL_MS = 2 * 24 * 3_600_000;

const eventSchema = z.discriminatedUnion("event", [
  z.object({ event: z.literal("started"), at: z.number(), confirmationId: z.string() }),
  z.object({ event: z.literal("stopped"), at: z.number(), ordersClosed: z.number().int() }),
  z.object({ event: z.literal("paused"), at: z.number(), reason: z.string().max(200).optional() }),
]);
export type HostEvent = z.infer<typeof eventSchema>;

const eventKey = (address: string) => `host-last:${address}`;

export async function recordHostEvent(store: Store, address: string, event: HostEvent): Promise<void> {
  await setJson(store, eventKey(address), event, EVENT_TTL_MS);
}

export const lastHostEvent = (store: Store, address: string): Promise<HostEvent | null> =>
  getJson(store, eventKey(address), eventSchema);
