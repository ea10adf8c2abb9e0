import { z } from "zod";

/** The Confirm button of a standing order's quote (and of the cheapest period's Schedule button). */
export const SCHEDULE_CONFIRM_KIND = "schedule.confirm";

export const scheduleConfirmPayloadSchema = z.object({
  address: z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
  amount: z.number().int().positive(),
  atMin: z.number().int().min(0).max(1439),
  repeat: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("daily") }),
    z.object({ kind: z.literal("days"), days: z.array(z.number().int().min(0).max(6)) }),
    z.object({ kind: z.literal("once"), at: z.number() }),
  ]),
  maxSun: z.number().int().positive().optional(),
});
export type ScheduleConfirmPayload = z.infer<typeof scheduleConfirmPayloadSchema>;
