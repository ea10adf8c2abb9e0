import type { CommandDefinition } from "../command.js";
import type { CoreSettings } from "../deps.js";
import type { FormSpec } from "../feature.js";
import { features } from "../features.js";
import type { Invocation } from "../invocation.js";
import { parseCommandLine } from "../parse/tokenize.js";
import { errorReply, type Reply } from "../reply.js";
import { can, refusalLine, roleOf } from "../roles.js";

/** Every feature's forms, by verb (`FeatureDefinition.forms`). */
export const FORMS: Readonly<Record<string, FormSpec>> = Object.fromEntries(
  features.flatMap((feature) => feature.forms ?? []).map((spec) => [spec.verb, spec]),
);

/**
 * Forms for missing arguments: `energy` or `statement` typed without arguments opens a form
 * (a Slack modal; on Telegram a ForceReply prompt) instead of a usage line. What the form gathers
 * becomes the command line the person would have typed, checked by the same parsers, so a bad value
 * is refused with the same one line, and a good one runs the same quote → Confirm.
 */
export type { FormSpec };

export type FormOffer = { kind: "form"; spec: FormSpec } | { kind: "refused"; reply: Reply };

/**
 * The form to open for a command typed without arguments (`/energy`, `/ops statement`), or
 * undefined: run the line as it is. A person whose role cannot run the command gets the refusal
 * line at once rather than a form they cannot submit.
 */
export function formFor(
  invocation: Extract<Invocation, { kind: "command" }>,
  commands: readonly CommandDefinition[],
  settings: Pick<CoreSettings, "admins" | "operators">,
): FormOffer | undefined {
  const parsed = parseCommandLine(invocation.text, commands);
  if (!parsed.ok || parsed.value.args.length > 0) return undefined;
  const spec = FORMS[parsed.value.verb];
  const command = commands.find((c) => c.verb === parsed.value.verb);
  if (spec === undefined || command === undefined) return undefined;
  const role = roleOf(invocation.actor, settings);
  if (!can(role, command.role)) {
    return {
      kind: "refused",
      reply: errorReply(refusalLine(command.verb, command.role, role, invocation.actor)),
    };
  }
  return { kind: "form", spec };
}

export type FormResult = { ok: true; line: string } | { ok: false; errors: Record<string, string> };

/**
 * The command line a filled form stands for, checked by the command's own parser; a refusal names
 * the field it belongs to (Slack shows it under that field) with the parser's one line.
 */
export function formLine(
  spec: FormSpec,
  values: Readonly<Record<string, string>>,
  today: Date,
  /** A button's form (`Reply.asks`): the line its answer completes, instead of the verb. */
  lead: string = spec.verb,
): FormResult {
  const words = (name: string): string[] => (values[name] ?? "").trim().split(/\s+/).filter(Boolean);
  const typed = (name: string): string[] => [(values[name] ?? "").trim()].filter(Boolean);
  const args = spec.fields.flatMap((f) => (f.freeText ? typed(f.name) : words(f.name)));
  const checked = spec.check(args, today);
  if (checked.ok) return { ok: true, line: [lead, ...args].join(" ") };
  return { ok: false, errors: { [spec.fieldOf(values, today)]: checked.error } };
}
