import { defineFeature } from "../feature.js";
import { subuserDeleteAction } from "./delete-subuser.js";
import { subuserCommand } from "./subuser-command.js";

export const subuserFeature = defineFeature({
  name: "subuser",
  commands: [subuserCommand],
  actions: [subuserDeleteAction],
});
