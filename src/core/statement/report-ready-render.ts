import type { ReportReady } from "../../service/webhook-events.js";
import { clip } from "../format.js";
import { when, withOptional } from "../notices/notice-parts.js";
import { formatCount } from "../parse/echo.js";
import { code, context, fields, header, publicReply, type Reply } from "../reply.js";

/** 1234567 → "1.2 MB": the size of a statement file. */
function formatBytes(bytes: number): string {
  if (bytes < 1_024) return `${formatCount(bytes)} bytes`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1_024;
  let unit = 0;
  while (value >= 1_024 && unit < units.length - 1) {
    value /= 1_024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function renderReportReady(event: ReportReady): Reply {
  const done = event.status === undefined || event.status === "done";
  const title = done ? "Statement ready" : "Statement not ready";
  const size = event.artifact?.size_bytes;
  const sha = event.artifact?.sha256;
  const items = withOptional(
    [["Order", code(clip(event.order_id))]],
    [
      ["Status", event.status ? clip(event.status, 40) : undefined],
      ["Type", event.order_type ? clip(event.order_type, 40) : undefined],
      ["Format", event.format ? clip(event.format, 10) : undefined],
      ["Size", size === undefined || size === null ? undefined : formatBytes(size)],
      ["Expires", when(event.expires_at ?? undefined)],
    ],
  );
  if (sha) items.push(["SHA-256", code(clip(sha, 70))]);
  const note = done
    ? "Download it with the order number while it lives (30 days)."
    : "The service reported this status instead of a finished file.";
  return publicReply(`${title}: ${clip(event.order_id, 40)}`, [
    header(title),
    fields(...items),
    context(note),
  ]);
}
