import type { CommandDefinition } from "../command.js";
import type { CoreSettings } from "../deps.js";
import { parseEnergyArgs } from "../energy/index.js";
import type { Invocation } from "../invocation.js";
import { parseStatementPeriod } from "../parse/dates.js";
import type { ParseResult } from "../parse/result.js";
import { parseCommandLine } from "../parse/tokenize.js";
import { parseTronAddress } from "../parse/tron-address.js";
import { errorReply, type Reply } from "../reply.js";
import { can, refusalLine, roleOf } from "../roles.js";
import { parseStatementArgs } from "../statement/index.js";

/**
 * Forms for missing arguments: `energy` or `statement` typed without arguments opens a form
 * (a Slack modal; on Telegram a ForceReply prompt) instead of a usage line. What the form gathers
 * becomes the command line the person would have typed, checked by the same parsers, so a bad value
 * is refused with the same one line, and a good one runs the same quote → Confirm.
 */
interface FormField {
  /** The field's id (Slack `block_id`). */
  name: string;
  label: string;
  placeholder: string;
  optional?: boolean;
  hint?: string;
}

export interface FormSpec {
  verb: string;
  /** ≤ 24 characters (Slack's limit on a modal title). */
  title: string;
  submit: string;
  fields: readonly FormField[];
  /** The one-message version (Telegram ForceReply): what to answer, with an example. */
  prompt: string;
  /** What the reply field shows before typing. */
  placeholder: string;
}

const ADDRESS: FormField = {
  name: "address",
  label: "TRON address",
  placeholder: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
};

export const FORMS: Readonly<Record<string, FormSpec>> = {
  energy: {
    verb: "energy",
    title: "Rent energy",
    submit: "Get quote",
    fields: [
      ADDRESS,
      {
        name: "amount",
        label: "Energy",
        placeholder: "65k",
        hint: "65000, 65k or 131k; above 650k by orchestrator",
      },
    ],
    prompt:
      "Energy: reply to this message with the address and the amount, e.g. TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 65k",
    placeholder: "<address> <amount>",
  },
  statement: {
    verb: "statement",
    title: "Order a statement",
    submit: "Order",
    fields: [
      ADDRESS,
      { name: "from", label: "From (UTC date)", placeholder: "2026-01-01" },
      { name: "to", label: "To (UTC date)", placeholder: "2026-01-31" },
      { name: "format", label: "Format", placeholder: "csv or pdf", optional: true, hint: "csv when empty" },
      {
        name: "token",
        label: "Token",
        placeholder: "TRX, a TRC20 contract T… or a TRC10 id",
        optional: true,
      },
    ],
    prompt:
      "Statement: reply to this message with the address, the first and last day, and optionally csv|pdf and a token, e.g. TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t 2026-01-01 2026-01-31 pdf",
    placeholder: "<address> <from> <to> [csv|pdf] [token]",
  },
};

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
export function formLine(spec: FormSpec, values: Readonly<Record<string, string>>, today: Date): FormResult {
  const words = (name: string): string[] => (values[name] ?? "").trim().split(/\s+/).filter(Boolean);
  const args = spec.fields.flatMap((f) => words(f.name));
  const checked: ParseResult<unknown> =
    spec.verb === "energy" ? parseEnergyArgs(args) : parseStatementArgs(args, today);
  if (checked.ok) return { ok: true, line: [spec.verb, ...args].join(" ") };
  return { ok: false, errors: { [fieldOf(spec, values, today)]: checked.error } };
}

/** Which field a parser's refusal is about: the first field that fails on its own, else the last one filled. */
function fieldOf(spec: FormSpec, values: Readonly<Record<string, string>>, today: Date): string {
  const value = (name: string): string => (values[name] ?? "").trim();
  if (value("address") === "" || !parseTronAddress(value("address")).ok || /\s/.test(value("address"))) {
    return "address";
  }
  if (spec.verb === "energy") return "amount";
  if (value("from") === "" || !parseStatementPeriod(value("from"), value("from"), today).ok) return "from";
  if (value("to") === "" || !parseStatementPeriod(value("from"), value("to"), today).ok) return "to";
  return value("token") !== "" && value("format") === "" ? "token" : "format";
}
