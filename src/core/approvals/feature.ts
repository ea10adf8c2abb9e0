import { defineFeature } from "../feature.js";
import type { DefinitionRegistry } from "../spend/definition.js";
import { approvalActions } from "./decide-action.js";

/**
 * Approve and Reject of two-person approval, over every feature's spends and guarded actions:
 * built from the registry the feature list makes (src/core/features.ts), so it imports no feature.
 */
export const approvalsFeature = (registry: DefinitionRegistry) =>
  defineFeature({ name: "approvals", actions: approvalActions(registry) });
