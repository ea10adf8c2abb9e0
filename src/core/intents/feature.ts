import { defineFeature } from "../feature.js";
import { createRecoverIntentHandler } from "./durable.js";

export const intentsFeature = defineFeature({
  name: "intents",
  tracked: {
    "recover-intent": ({ deps, actions }) =>
      createRecoverIntentHandler(deps, new Map(actions.map((a) => [a.kind, a]))),
  },
});
