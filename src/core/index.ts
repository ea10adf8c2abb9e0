/**
 * The core's one front door for the chat adapters (adapters/) and the agents' transport (src/mcp/):
 * everything they use of the core, and nothing else (test/unit/layers.test.ts keeps it so). A new
 * need of an adapter is one line here.
 */
export { type AgentIdentity, type AgentToolName, callAgentTool, toolError } from "./agents/index.js";
export type { CommandDefinition } from "./command.js";
export { commands } from "./command-registry.js";
export type { HandleHooks } from "./core.js";
export type { CoreDeps } from "./deps.js";
export { STORE_UNAVAILABLE_LINE } from "./faults/store-unavailable.js";
export { FORMS, type FormOffer, type FormSpec, formLine } from "./forms/index.js";
export type { Actor, ConversationRef, Invocation, SharedFile } from "./invocation.js";
export { conversationKey, SHARED_FILE_MAX_BYTES } from "./invocation.js";
export type { Logger } from "./logger.js";
export { formatCount } from "./parse/echo.js";
export type { PastedMessage } from "./paste-check/index.js";
export { type ChatAdapter, type ChatAdapterLifecycle, ChatSendError, type Notifier } from "./ports.js";
export type { ImageAttachment } from "./reply.js";
export {
  type Block,
  type Button,
  errorReply,
  type Field,
  type FileAttachment,
  image,
  publicReply,
  type Reply,
  type Span,
} from "./reply.js";
