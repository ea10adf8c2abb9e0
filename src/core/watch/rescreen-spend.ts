import { defineCharge } from "../spend/definition.js";

/** A scheduled re-screen: automatic, within its own monthly budget (OPS_WATCH_BUDGET_TRX). */
export const scheduledRescreen = defineCharge({
  name: "rescreen",
  trigger: "automatic",
  ledgerKind: "rescreen",
  noun: "This re-screen",
  monthBudgetTrx: (settings) => settings.watch.budgetTrx,
});
