import { defineFeature } from "../feature.js";
import { subuserDeletion } from "./delete-subuser.js";
import { subuserCommand } from "./subuser-command.js";

export const subuserFeature = defineFeature({
  name: "subuser",
  commands: [subuserCommand],
  spends: [subuserDeletion],
});
