import { defineFeature } from "../feature.js";

/**
 * Agents over MCP (CONTRACT.md "Agents"): the tools' reads and `request_energy`, whose quote a
 * person confirms with the energy Confirm. The transport (`src/mcp/`) reaches it through
 * `src/core/index.ts`; it has no chat command or button of its own.
 */
export const agentsFeature = defineFeature({ name: "agents" });
