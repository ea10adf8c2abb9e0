import type { Notification, NotificationSource } from "../../service/webhook-events.js";
import { features } from "../features.js";
import type { NotificationDefinition } from "../notices/definition.js";

/**
 * Every incoming event the bot knows, read from the features (src/core/features.ts): one
 * definition per event name. The parser, the router and the renderers find a notification's
 * definition here.
 */
export const notificationDefinitions: readonly NotificationDefinition[] = features.flatMap((feature) =>
  // A definition is only ever called with a notification of its own event (looked up by name).
  Object.values(feature.notifications ?? {}).map((d) => d as unknown as NotificationDefinition),
);

const byEvent = new Map<string, NotificationDefinition>();
for (const definition of notificationDefinitions) {
  if (byEvent.has(definition.event)) throw new Error(`event "${definition.event}" is defined twice`);
  byEvent.set(definition.event, definition);
}

/** The definition of a notification that was read by one (so it always has one). */
export function definitionOf(notification: Notification): NotificationDefinition {
  const definition = byEvent.get(notification.event);
  if (!definition) throw new Error(`no definition for the event "${notification.event}"`);
  return definition;
}

const wireEventOf = (definition: NotificationDefinition): string | null =>
  definition.wireEvent === undefined ? definition.event : definition.wireEvent;

/** The definition a payload of `source` with this `event` value (null: none) is read by. */
export function definitionOnWire(
  source: NotificationSource,
  wireEvent: string | null,
): NotificationDefinition | undefined {
  return notificationDefinitions.find((d) => d.source === source && wireEventOf(d) === wireEvent);
}

/** Header of a rendered notice → how a coalesced digest counts it. */
export const digestNouns: ReadonlyMap<string, readonly [string, string]> = new Map(
  notificationDefinitions.flatMap((d) => Object.entries(d.digestNouns ?? {})),
);
