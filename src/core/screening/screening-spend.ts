import { defineCharge } from "../spend/definition.js";

/** A paid screening: a person's command, charged at once, within that person's caps (no Confirm). */
export const paidScreening = defineCharge({
  name: "screening",
  trigger: "command",
  ledgerKind: "screening",
  noun: "This screening",
});
