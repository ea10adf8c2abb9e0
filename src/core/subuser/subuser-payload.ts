import { z } from "zod";

/** The Delete sub-user button. */
export const SUBUSER_DELETE_KIND = "subuser.delete";

/** The service's `user_id` (path of `DELETE /apiv2/subuserdel/{user_id}`): a positive integer. */
export const subuserDeletePayloadSchema = z.object({
  userId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});
export type SubuserDeletePayload = z.infer<typeof subuserDeletePayloadSchema>;
