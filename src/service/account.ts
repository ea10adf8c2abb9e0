import { z } from "zod";
import { parseReply } from "./decode-error.js";
import type { Transport } from "./transport.js";

/**
 * GET /apiv2/userinfo (6 per minute) and DELETE /apiv2/subuserdel/{user_id}. Errors arrive as
 * ServiceError: userinfo 401 (code 401), 429 (rate_limited, retryAfterMs), 500; sub-user deletion
 * 400 (not found / not a sub-user), 401 (missing key), 403 (not the parent, invalid key or IP), 500.
 */
export const userinfoSchema = z.object({
  status: z.string(),
  timestamp: z.string(),
  user_id: z.number().int(),
  user_info: z.object({ email: z.string(), name: z.string(), deposit_address: z.string() }),
  stats: z.object({
    balance: z.number(),
    total_delegations: z.number().int(),
    total_energy_delegated: z.number().int(),
    total_trx_spent: z.number(),
    total_deposit: z.number(),
    avg_rate_sun_energy: z.number(),
    save_by_netts_percent: z.number(),
    save_in_dollars: z.number(),
  }),
  network_info: z.object({ trx_price: z.number(), network_energy_fee: z.number() }),
});

const subuserDeletionSchema = z.object({
  user_id: z.number().int(),
  google_id: z.string(),
  parent_user_id: z.number().int(),
  total_reassigned: z.number().int(),
  total_deleted: z.number().int(),
  message: z.string(),
});

export type Userinfo = z.infer<typeof userinfoSchema>;
export type SubuserDeletion = z.infer<typeof subuserDeletionSchema>;

export function createAccountApi(transport: Transport) {
  return {
    /** `maxLimiterWaitMs`: see CallSpec (0: fail at once when the 6 a minute are used up). */
    async userinfo(options: { maxLimiterWaitMs?: number } = {}): Promise<Userinfo> {
      const reply = await transport.send({
        ...options,
        family: "userinfo",
        endpoint: "userinfo.get",
        method: "GET",
        path: "/apiv2/userinfo",
        auth: "key+ip",
        timeoutMs: 10_000,
        buckets: ["userinfo"],
        resendable: true,
      });
      return parseReply("userinfo", "userinfo.get", reply, userinfoSchema);
    },

    /** Irreversible: never resent after a network error (a resend would only report "not found"). */
    async deleteSubuser(userId: number): Promise<SubuserDeletion> {
      if (!Number.isSafeInteger(userId) || userId < 0)
        throw new RangeError(`user id must be an integer: ${userId}`);
      const reply = await transport.send({
        family: "subuser",
        endpoint: "subuser.delete",
        method: "DELETE",
        path: `/apiv2/subuserdel/${userId}`,
        auth: "key+ip",
        timeoutMs: 15_000,
        buckets: [],
        resendable: false,
      });
      return parseReply("subuser", "subuser.delete", reply, subuserDeletionSchema);
    },
  };
}
