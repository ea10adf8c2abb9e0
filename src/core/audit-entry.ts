/** One audit line: who spent what, where, with which result. A leaf module, so the digest can name it. */
export interface AuditEntry {
  /** ISO 8601 time of the outcome. */
  at: string;
  /** actorKey: `slack:U123`. */
  actor: string;
  /** conversationKey: `slack:C123` / `telegram:-100…:7`. */
  conversation: string;
  verb: string;
  address?: string;
  /** As the user asked, e.g. `65000` energy or a file format. */
  amount?: string;
  /** The quote shown on the button, in TRX as a decimal string. */
  quoteTrx?: string;
  /** Every address of a spend on many (a payout run), as one entry. */
  addresses?: string[];
  result: "ok" | "failed";
  /** The service's message or the line the user saw. */
  message?: string;
  orderIds?: string[];
  /** The standing order whose run made this spend (src/core/schedule/); absent for a person's Confirm. */
  schedule?: string;
  /** The agent that asked for this spend (`agent:<name>`), when a person confirmed an agent's request. */
  requestedBy?: string;
}
