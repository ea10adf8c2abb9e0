import { defineFeature } from "../feature.js";
import { approveAction, rejectAction } from "./decide.js";

export const approvalsFeature = defineFeature({ name: "approvals", actions: [approveAction, rejectAction] });
