// The codec is the core's (a reply stored with an intent uses it too); re-exported for the job system.
export * from "../core/reply-codec.js";
