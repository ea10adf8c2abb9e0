/**
 * The core's one front door for everything outside it (the chat adapters, the agents' transport
 * src/mcp/, the wiring, jobs, webhooks, metrics, app): everything they use of the core, and nothing
 * else (test/unit/layers.test.ts keeps it so). A new need outside the core is one line here.
 */

export {
  type AgentIdentity,
  type AgentToolName,
  agentRequestLifecycle,
  callAgentTool,
  toolError,
} from "./agents/index.js";
export { alertDigestBlocks, alertPosted } from "./alerts/index.js";
export { loadPdfLibraries } from "./cases/index.js";
export type { CommandDefinition } from "./command.js";
export { actionHandlers, commands } from "./command-registry.js";
export type { AdapterCore, Core } from "./core.js";
export { createCore } from "./core.js";
export type { CoreDeps, CoreSettings, FaultPoint } from "./deps.js";
export { STORE_UNAVAILABLE_LINE } from "./faults/store-unavailable.js";
export type { ScheduledJob } from "./feature.js";
export { features } from "./features.js";
export { FORMS, type FormOffer, type FormSpec, formLine } from "./forms/index.js";
export { homeSummary } from "./home.js";
export { recoverOpenIntents } from "./intents/index.js";
// What the rest of the bot (the wiring, jobs, webhooks, metrics, app) uses besides.
export type { Actor, ConversationRef, Invocation, Platform, SharedFile } from "./invocation.js";
export { atTop, conversationKey, SHARED_FILE_MAX_BYTES } from "./invocation.js";
export type { Logger } from "./logger.js";
export type { CoreObserver } from "./observer.js";
export { formatCount } from "./parse/echo.js";
export type { PastedMessage } from "./paste-check/index.js";
export { atName, platformFacts } from "./platforms.js";
export type { PollAnswer } from "./poll.js";
export { pollDelayMs } from "./poll.js";
export type { JobScheduler, MessageLimits, PlatformFacts, TrackedJob } from "./ports.js";
export { type ChatAdapter, type ChatAdapterLifecycle, ChatSendError, type Notifier } from "./ports.js";
export { sunToTrx } from "./pricing/trx.js";
export type { ImageAttachment } from "./reply.js";
export {
  type Block,
  type Button,
  errorReply,
  type Field,
  type FileAttachment,
  fileSize,
  image,
  publicReply,
  type Reply,
  type Span,
} from "./reply.js";
export type { EncodedReply } from "./reply-codec.js";
export { decodeReply, encodeReply } from "./reply-codec.js";
export type {
  NotificationRouter,
  NotificationSource,
  RouteOutcome,
  WebhookFamily,
} from "./service-events/index.js";
export {
  canDigest,
  createNotificationRouter,
  digestBudget,
  digestCost,
  notificationKey,
  parseHostCallback,
  parseNotification,
  parseServiceEvent,
  renderNoticeDigest,
} from "./service-events/index.js";
export { registerWebhooks, storedWebhookSecrets } from "./setup/index.js";
export { createTrackedHandlers } from "./tracking-registry.js";
export { createUserGroupDirectory, isUserGroupEntry, type UserGroupDirectory } from "./user-groups.js";
export {
  type CodeVerdict,
  factsOf,
  type VerdictFact,
  verifyAnyCode,
} from "./verification/verify-code.js";
export { checkFileOfCode, type FileCheck } from "./verification/verify-file.js";
