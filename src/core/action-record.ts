import type { ConversationRef } from "./invocation.js";
import type { Role } from "./roles.js";

/**
 * What the store keeps for one button (src/core/actions.ts writes and claims it). Its own module so
 * the command types (src/core/command.ts) can name it without importing the actions, which import them.
 */
export interface ActionRecord {
  token: string;
  kind: string;
  payload: unknown;
  /** The lowest role allowed to press it. */
  role: Role;
  /** Where the button was posted. */
  conversation: ConversationRef;
  /** actorKey of the user whose command created it. */
  createdBy: string;
  /**
   * The group id, shared by the buttons of one message: 22 chars of [A-Za-z0-9_-]. Spending actions
   * derive the service idempotency key from it (src/service/idempotency.ts).
   */
  confirmationId: string;
  createdAt: number;
  expiresAt: number;
  /** Who may not press it, and what they are told (the requester of an approval). */
  notBy?: { actor: string; line: string };
}
