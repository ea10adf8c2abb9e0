import type { NotificationEvent } from "../service/webhook-events.js";
import { accountFeature } from "./account/feature.js";
import { cancelActionHandler } from "./actions.js";
import { agentsFeature } from "./agents/feature.js";
import { alertsFeature } from "./alerts/feature.js";
import { approvalsFeature } from "./approvals/feature.js";
import { auditFeature } from "./audit/feature.js";
import { casesFeature } from "./cases/feature.js";
import { chartFeature } from "./chart/feature.js";
import { complianceFeature } from "./compliance/feature.js";
import { digestFeature } from "./digest/feature.js";
import { energyFeature } from "./energy/feature.js";
import {
  defineFeature,
  type NoneMissing,
  type NotificationEventsOf,
  type TrackedKind,
  type TrackedKindsOf,
} from "./feature.js";
import { helpCommand } from "./help.js";
import { hostFeature } from "./host/feature.js";
import { guardHost } from "./host/index.js";
import { intentsFeature } from "./intents/feature.js";
import { pasteCheckFeature } from "./paste-check/feature.js";
import { payoutFeature } from "./payout/feature.js";
import { reconcileFeature } from "./reconcile/feature.js";
import { runwayFeature } from "./runway/feature.js";
import { scheduleFeature } from "./schedule/feature.js";
import { pauseOnBlocked } from "./schedule/index.js";
import { screeningFeature } from "./screening/feature.js";
import { setupFeature } from "./setup/feature.js";
import { confirmable, type DefinitionRegistry } from "./spend/definition.js";
import { statementFeature } from "./statement/feature.js";
import { subuserFeature } from "./subuser/feature.js";
import { watchFeatureWith } from "./watch/feature.js";
import type { OnBlocked } from "./watch/index.js";

/** The shared verbs and buttons of the core itself: help, and Cancel on any quote. */
const basicsFeature = defineFeature({
  name: "basics",
  commands: [helpCommand],
  actions: [cancelActionHandler],
});

/**
 * What other features do when a watched address becomes blocked, in this order: Host Mode's guard
 * (a Stop button, or the stop itself), then the address's standing orders pause. Handed to the
 * watch here, so the watch imports neither (they import it: `autoWatch`).
 */
export const onBlocked: readonly OnBlocked[] = [guardHost, pauseOnBlocked];

/** The features that declare what approvals carry out (all of them but approvals itself). */
const declared = [
  basicsFeature,
  screeningFeature,
  complianceFeature,
  energyFeature,
  payoutFeature,
  hostFeature,
  scheduleFeature,
  accountFeature,
  reconcileFeature,
  statementFeature,
  runwayFeature,
  digestFeature,
  chartFeature,
  watchFeatureWith(onBlocked),
  alertsFeature,
  casesFeature,
  auditFeature,
  setupFeature,
  subuserFeature,
  pasteCheckFeature,
  intentsFeature,
  agentsFeature,
] as const;

/** Every spend and guarded action by name: what an approval request names (src/core/spend/definition.ts). */
const definitions: DefinitionRegistry = new Map(
  declared.flatMap((feature) =>
    confirmable("spends" in feature ? (feature.spends ?? []) : []).map((d) => [d.name, d]),
  ),
);

/**
 * Every feature of the bot. Help lists the commands in this order. Add a feature: its folder's
 * `feature.ts`, and one line in `declared` above (its spends are read from it).
 */
export const features = [...declared, approvalsFeature(definitions)] as const;

type Listed = (typeof features)[number];
/** Every kind of tracked work has a handler: the compiler names a kind no feature handles. */
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, never used as a type
type EveryTrackedKindHandled = NoneMissing<Exclude<TrackedKind, TrackedKindsOf<Listed>>>;
/** Every event the service sends has a definition: the compiler names an event no feature defines. */
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, never used as a type
type EveryEventDefined = NoneMissing<Exclude<NotificationEvent, NotificationEventsOf<Listed>>>;
