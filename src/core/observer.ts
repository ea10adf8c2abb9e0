/**
 * What the core tells an observer (the app wires metrics to it) about its work. Plain values only,
 * so the core never imports a metrics library. Every method is optional; an observer must not throw.
 */

/**
 * `ok`: the command ran (its reply may still be a refusal it worded itself); `invalid`: the line did
 * not parse; `denied`: the user's role may not run the verb; `refused`: a button that was used,
 * expired or not theirs; `failed`: the command threw (a service error, a bug).
 */
type HandledOutcome = "ok" | "invalid" | "denied" | "refused" | "failed";

export interface HandledEvent {
  kind: "command" | "action";
  /** The command's verb, the button's action kind, or `unknown` when the line named no known verb. */
  verb: string;
  outcome: HandledOutcome;
}

interface SpentEvent {
  /** `slack:U123`, `telegram:42`, `console:<user>`. */
  actor: string;
  /** What was charged, in integer SUN. */
  sun: number;
}

export interface CoreObserver {
  /** Once per command line or button press, after its reply is ready. */
  handled?(event: HandledEvent): void;
  /** Once per spend recorded against a user's daily total. */
  spent?(event: SpentEvent): void;
}
