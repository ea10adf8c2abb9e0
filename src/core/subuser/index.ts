export { subuserDeleteAction } from "./delete-subuser.js";
export { subuserDeletePayloadSchema } from "./subuser-payload.js";
