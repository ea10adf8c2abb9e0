import { z } from "zod";
import type { ScreeningOrder } from "../../service/screening.js";
import { getJson, setJson } from "../../store/store-json.js";
import type { CoreDeps } from "../deps.js";
import type { ConversationRef } from "../invocation.js";
import type { Block } from "../reply.js";
import { findingLine, noteFinding } from "./open.js";

/**
 * The last completed screening of each address, as a certificate states it: provider, risk score
 * with its scale, level, sanctions, top exposure categories, checked at, `client_order_id`, who
 * asked, and the SHA-256 of the service's raw reply. Written for every completed screening (a
 * `screen`, a scheduled re-screen, a paste's Screen button), which also opens a case when the
 * `risk.level` is in OPS_CASE_LEVELS or `sanctions.self` is true.
 */
const evidenceSchema = z.object({
  address: z.string(),
  network: z.string(),
  provider: z.string(),
  score: z.string().nullable(),
  scale: z.object({ min: z.number(), max: z.number() }),
  level: z.string(),
  sanctionsSelf: z.boolean().nullable(),
  exposure: z.array(z.object({ category: z.string(), share: z.string() })),
  checkedAt: z.string().nullable(),
  clientOrderId: z.string(),
  askedBy: z.string(),
  rawSha256: z.string().nullable(),
});
export type ScreeningEvidence = z.infer<typeof evidenceSchema>;

const EVIDENCE_KEY = (address: string) => `case:evidence:${address}`;
const EVIDENCE_TTL_MS = 365 * 24 * 3_600_000;
const TOP_EXPOSURE = 5;

export const readEvidence = (deps: Pick<CoreDeps, "store">, address: string) =>
  getJson(deps.store, EVIDENCE_KEY(address), evidenceSchema);

function evidenceOf(order: ScreeningOrder, askedBy: string): ScreeningEvidence {
  const top = [...order.exposure]
    .sort((a, b) => Number(b.share_fraction) - Number(a.share_fraction))
    .slice(0, TOP_EXPOSURE)
    .map((e) => ({ category: e.category, share: e.share_fraction }));
  return {
    address: order.request.address,
    network: order.request.network,
    provider: order.check.provider || order.request.provider,
    score: order.risk.score,
    scale: { min: Number(order.risk.scale.min), max: Number(order.risk.scale.max) },
    level: order.risk.level,
    sanctionsSelf: order.sanctions?.self ?? null,
    exposure: top,
    checkedAt: order.check.checked_at ?? order.order.completed_at,
    clientOrderId: order.order.client_order_id,
    askedBy,
    rawSha256: order.rawSha256 ?? null,
  };
}

/** Whether a screening is a case finding: its `risk.level` is a case level, or `sanctions.self`. */
function isCaseFinding(deps: Pick<CoreDeps, "settings">, order: ScreeningOrder): boolean {
  const { levels } = deps.settings.cases;
  return levels.includes(order.risk.level) || order.sanctions?.self === true;
}

/**
 * Called with every final screening: keeps its evidence (completed ones) and opens or adds to the
 * case when it is a finding. Returns the line to show where it was found (nothing otherwise).
 */
export async function screeningFound(
  deps: CoreDeps,
  order: ScreeningOrder,
  where: { askedBy: string; conversation?: ConversationRef },
): Promise<Block[]> {
  if (order.order.status !== "completed") return [];
  await setJson(
    deps.store,
    EVIDENCE_KEY(order.request.address),
    evidenceOf(order, where.askedBy),
    EVIDENCE_TTL_MS,
  );
  if (!isCaseFinding(deps, order)) return [];
  const { score, scale, level } = order.risk;
  const sanctioned = order.sanctions?.self === true ? ", sanctioned itself" : "";
  const outcome = await noteFinding(deps, {
    address: order.request.address,
    key: `screen:${order.order.client_order_id}`,
    what: `screening ${order.order.client_order_id}: ${level} (${score ?? "no score"} on ${scale.min}–${scale.max})${sanctioned}`,
    ...(where.conversation && { foundIn: where.conversation }),
  });
  return findingLine(outcome);
}
