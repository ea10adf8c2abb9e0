import type { Server } from "node:http";
// `ws` comes with @slack/socket-mode (Bolt's Socket Mode); the fake plays Slack's side of it.
import { type WebSocket, WebSocketServer } from "ws";

/** Slack's side of Socket Mode: `hello` on connect, envelopes out, acks (by `envelope_id`) back. */
export function createSocketSide(server: Server) {
  const wss = new WebSocketServer({ server, path: "/socket" });
  const clients = new Set<WebSocket>();
  const received: Record<string, unknown>[] = [];
  const waiting = new Map<string, (ack: Record<string, unknown>) => void>();
  wss.on("connection", (ws) => {
    clients.add(ws);
    ws.on("close", () => clients.delete(ws));
    ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      received.push(message);
      waiting.get(String(message.envelope_id))?.(message);
    });
    ws.send(JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "A0OPSBOT" } }));
  });
  return {
    connections: () => clients.size,
    received: () => [...received],
    /** Sends an envelope to every connected bot; resolves with the ack (fails after 3 s, Slack's limit). */
    send(envelope: { envelope_id: string; type: string; payload: unknown; [key: string]: unknown }) {
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ack for ${envelope.envelope_id} within 3 s`)),
          3_000,
        );
        waiting.set(envelope.envelope_id, (ack) => {
          clearTimeout(timer);
          resolve(ack);
        });
        for (const ws of clients) ws.send(JSON.stringify(envelope));
      });
    },
    async close() {
      for (const ws of clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
