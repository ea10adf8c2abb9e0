import type { FormSpec } from "../feature.js";
import { ADDRESS_FIELD, addressFieldFails } from "../form-fields.js";
import { parseStatementPeriod } from "../parse/dates.js";
import { parseStatementArgs } from "./statement-args.js";

/** `statement` typed without arguments: address, first and last day, format and token. */
export const statementForm: FormSpec = {
  verb: "statement",
  title: "Order a statement",
  submit: "Order",
  fields: [
    ADDRESS_FIELD,
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
  check: (args, today) => parseStatementArgs(args, today),
  /** The first field that fails on its own, else the last one filled. */
  fieldOf(values, today) {
    const value = (name: string): string => (values[name] ?? "").trim();
    if (addressFieldFails(values)) return "address";
    if (value("from") === "" || !parseStatementPeriod(value("from"), value("from"), today).ok) return "from";
    if (value("to") === "" || !parseStatementPeriod(value("from"), value("to"), today).ok) return "to";
    return value("token") !== "" && value("format") === "" ? "token" : "format";
  },
};
