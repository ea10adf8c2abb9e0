import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AgentIdentity } from "../core/index.js";

export interface AgentTokenEntry extends AgentIdentity {
  token: string;
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/**
 * The agent a request's `Authorization: Bearer <token>` names, or undefined. Every configured
 * token is compared, each in constant time over its SHA-256 (equal lengths whatever was sent), so
 * the time taken tells nothing of how much of a token was right or which one it was.
 */
export function agentOf(req: IncomingMessage, agents: readonly AgentTokenEntry[]): AgentIdentity | undefined {
  const header = req.headers.authorization ?? "";
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const sent = digest(match?.[1] ?? "");
  let found: AgentIdentity | undefined;
  for (const agent of agents) {
    if (timingSafeEqual(sent, digest(agent.token)) && match)
      found ??= { name: agent.name, scope: agent.scope };
  }
  return found;
}
