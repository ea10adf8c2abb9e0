import { defineFeature } from "../feature.js";
import { approveAction, rejectAction } from "./decide-action.js";

export const approvalsFeature = defineFeature({ name: "approvals", actions: [approveAction, rejectAction] });
