import type { z } from "zod";
import type { Notification, NotificationSource } from "../../service/webhook-events.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import type { Reply } from "../reply.js";
import type { ExpectationKey } from "./expectations.js";

/** What routing one notification came to: finished, or ask again after a while. */
export type RouteOutcome = "done" | { laterMs: number };

export interface RouteContext {
  /** How many times this notification was deferred already (origin grace, statement pending). */
  deferrals: number;
}

/**
 * Everything the bot knows about one kind of incoming event, in the feature folder it belongs to
 * (the command registry's counterpart): how it is read, what identifies it, where it goes and what
 * it says there. The parser, the router and the renderer only walk these definitions
 * (`registry.ts`); no event name is decided anywhere else.
 */
export interface NotificationDefinition<N extends Notification = Notification> {
  event: N["event"];
  /** The webhook family (signed POST) or the Host Mode callback that carries it. */
  source: NotificationSource;
  /** The `event` value on the wire when it differs from `event`; null: the payload has none. */
  wireEvent?: string | null;
  /** The payload as the service sends it, read into the notification (the whole body or query). */
  schema: z.ZodType<N>;
  /** The identity of one delivery: the same for every repeat of it (inbox dedup, done mark, posts). */
  key(n: N): string;
  /** The conversation that caused it, when the bot recorded one. */
  origin(deps: CoreDeps, n: N): Promise<ConversationRef | null>;
  /** What an expected spend recorded that this notification matches, in the order tried. */
  expects(n: N): ExpectationKey[];
  /** Bookkeeping on receipt, before any wait or post (runs again when the job is repeated). */
  onReceipt?(deps: CoreDeps, n: N): Promise<void>;
  /**
   * Delivers it to its origin itself (a file instead of a notice); undefined: post the rendered
   * notice as usual.
   */
  deliverToOrigin?(
    deps: CoreDeps,
    n: N,
    origin: ConversationRef,
    ctx: RouteContext,
  ): Promise<RouteOutcome | undefined>;
  render(n: N, explorerTxUrl: string): Reply;
  /** Headers of its rendered notice → how a coalesced digest counts it ("12 deliveries confirmed"). */
  digestNouns?: Readonly<Record<string, readonly [one: string, many: string]>>;
}

/** `orders:<delivery_id>`: the key of a signed webhook (the id stays the same across primary and backup). */
export const deliveryKey =
  (family: NotificationSource) =>
  (n: { delivery_id: string }): string =>
    `${family}:${n.delivery_id}`;
