export { type BullQueuesOptions, createBullQueues } from "./bull-queue.js";
export { createMemoryQueues } from "./memory-queue.js";
export {
  createNotifier,
  NOTIFY_QUEUE,
  NOTIFY_RETRY,
  type NotifierOptions,
  type NotifyWorkerOptions,
  notifyGapMs,
  startNotifyWorker,
} from "./notify.js";
export {
  type AddOptions,
  type Backoff,
  type JobContext,
  type JobCounts,
  type JobHandler,
  type JobOutcome,
  type JobQueue,
  type JobWorker,
  PermanentJobError,
  QUEUE_NAMES,
  queueDepths,
} from "./queue.js";
export { decodeReply, type EncodedReply, encodeReply } from "../core/reply-codec.js";
export {
  createJobScheduler,
  type PollAnswer,
  pollDelayMs,
  startTrackedWorker,
  TRACKED_QUEUE,
  type TrackedHandlers,
} from "./scheduler.js";
