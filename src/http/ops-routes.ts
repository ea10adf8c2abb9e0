import type { Registry } from "prom-client";
import type { Health } from "./health.js";
import { type HttpRoute, sendJson } from "./server.js";

/** `GET /healthz`: 200 when every configured part is ready, else 503; the body names each part. */
export function healthRoute(health: Health): HttpRoute {
  return {
    method: "GET",
    path: "/healthz",
    handler: async (_req, res) => {
      const report = await health.report();
      res.setHeader("cache-control", "no-store");
      sendJson(res, report.ok ? 200 : 503, report);
    },
  };
}

/** `GET /metrics`: Prometheus text exposition of the app's registry. */
export function metricsRoute(registry: Registry): HttpRoute {
  return {
    method: "GET",
    path: "/metrics",
    handler: async (_req, res) => {
      const body = await registry.metrics();
      res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" });
      res.end(body);
    },
  };
}
