import type { ActionRecord } from "./action-record.js";
import type { CoreDeps } from "./deps.js";
import type { Invocation } from "./invocation.js";
import type { Reply } from "./reply.js";
import type { Role } from "./roles.js";

/** What a command's `run` gets. */
export interface CommandContext {
  invocation: Extract<Invocation, { kind: "command" }>;
  /**
   * The words after the verb, as the parser split them. For a verb with `subverbs` the core has
   * already checked and removed the subverb: `host start T…` gives `subverb: "start"`, `args: ["T…"]`.
   */
  args: string[];
  /** Set only for verbs with `subverbs`. */
  subverb?: string;
  /** The role of the user who typed the command (already checked against the command's `role`). */
  role: Role;
  deps: CoreDeps;
  /** The core's registry (help lists it). */
  commands: readonly CommandDefinition[];
}

/** One verb of the chat grammar. The registry (`command-registry.ts`) is a plain list of these. */
export interface CommandDefinition {
  verb: string;
  /** For verbs like `host start|stop`: the first argument must be one of these. */
  subverbs?: readonly string[];
  /** Other names that run this command and are not listed by help (Telegram's `start` → help). */
  aliases?: readonly string[];
  /** The lowest role allowed to run it. */
  role: Role;
  /** A subverb that needs more than `role` (`host start` operator, while `host status` is anyone's). */
  subverbRoles?: Readonly<Record<string, Role>>;
  /** One line for `help`. */
  summary: string;
  /** The grammar, e.g. `energy <address> <amount>`. */
  usage: string;
  /** A complete example line, e.g. `energy TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k`. */
  example: string;
  /** More than one line can say (other forms, options): shown by `help <verb>` only, so the list stays one message. */
  details?: string;
  /**
   * After this many words (a subverb counted), the rest of the line is one last arg, exactly as
   * typed (trimmed): a reason or a note, whose quotes, apostrophes and line breaks are kept.
   */
  freeTextAfter?: number;
  run(ctx: CommandContext): Promise<Reply>;
}

/** The role a command line needs: its subverb's, when that subverb names one, else the command's. */
export function roleNeeded(command: CommandDefinition, subverb?: string): Role {
  return (subverb !== undefined && command.subverbRoles?.[subverb]) || command.role;
}

/** What an action handler's `run` gets when a button was claimed. */
export interface ActionContext {
  invocation: Extract<Invocation, { kind: "action" }>;
  /** The role of the user who pressed the button. */
  role: Role;
  deps: CoreDeps;
  /** The claimed record: `confirmationId` is the idempotency seed for spending actions. */
  record: ActionRecord;
  /**
   * True when a recovery job runs a durable action again because the process that claimed it
   * died: the service may already have acted on the first run (same idempotency key).
   */
  recovered?: boolean;
}

/**
 * Runs the action behind a button (`kind` as given to `createAction`). The core claims the button
 * first, so `run` is called at most once per button group, ever. The reply replaces the message
 * that carried the button. The payload comes back from the store as JSON: validate it.
 */
export interface ActionHandler<P = unknown> {
  kind: string;
  /** The lowest role allowed to press it; the stricter of this and the record's role applies. */
  role: Role;
  /**
   * A spending action: the click is stored as an intent together with the claim, before it is
   * acknowledged; if the process dies, a recovery job on any instance runs it again (with the same
   * idempotency key) and posts its outcome, exactly once (src/core/intents/). `run` must then be
   * safe to repeat for one confirmation: derive every key from `record.confirmationId`.
   */
  durable?: true;
  run(ctx: ActionContext, payload: P): Promise<Reply>;
}
