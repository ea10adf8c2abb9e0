import { z } from "zod";
import { payoutOptionsSchema } from "./payout-options.js";

/** The Confirm button of a payout quote: exactly what was quoted, so the confirmation orders that. */
export const PAYOUT_CONFIRM_KIND = "payout.confirm";
/** The Cancel button of a running payout: cancels what is still queued. */
export const PAYOUT_CANCEL_KIND = "payout.cancel";

const TRON = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

export const payoutConfirmPayloadSchema = z.object({
  items: z
    .array(z.object({ address: z.string().regex(TRON), amount: z.number().int().positive() }))
    .min(1)
    .max(100),
  options: payoutOptionsSchema,
  quoteTrx: z.string().regex(/^\d+(\.\d+)?$/),
  energy: z.number().int().positive(),
  periodLabel: z.string(),
  /** The cost of each item at the decided price (set at Confirm): what a delivery is charged at. */
  itemTrx: z.array(z.string()).optional(),
  /** The activation fees the caps hold beside the quote (addresses that may not be active yet). */
  activationTrx: z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .optional(),
  /** How many rows the quote left out (said again in the outcome). */
  leftOut: z.number().int().nonnegative(),
  /** Addresses left out at Confirm (newly on the deny list), with the reason: the re-quote lists them. */
  dropped: z
    .array(z.object({ address: z.string(), reason: z.string() }))
    .max(100)
    .optional(),
});
export type PayoutConfirmPayload = z.infer<typeof payoutConfirmPayloadSchema>;

export const payoutCancelPayloadSchema = z.object({ idempotencyKey: z.string() });
