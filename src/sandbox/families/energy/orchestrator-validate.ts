import { isRecord, type SandboxReply, type SandboxRequest } from "../../router.js";
import { detailReply, headerValue, TRON_ADDRESS } from "./common.js";

/** Checks of POST /apiv2/orchestrator, in the order the service reports them. */

const LIMITS = { maxItems: 100, minEnergy: 61_000, maxEnergy: 50_000_000, maxTotal: 50_000_000 };
const HEADER_KEY = /^[A-Za-z0-9._:-]{12,128}$/;
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const BOOLEAN_OPTIONS = ["bandwidth", "check", "trx_send", "activation"] as const;

export interface ItemOptions {
  bandwidth: boolean;
  bandwidthAmount: number;
  bandwidthPeriod: "5m" | "1h";
  check: boolean;
  trx_send: boolean;
  activation: boolean;
}

export interface ValidItem {
  receiveAddress: string;
  amount: number;
  options: ItemOptions;
}

type Problem = { loc: Array<string | number>; msg: string };

const invalid = (msg: string) => detailReply(400, 5004, msg);

/** The key that identifies the order: the header, else `clientRequestId` (5009 malformed, 5010 neither). */
export function resolveKey(req: SandboxRequest, body: Record<string, unknown>): string | SandboxReply {
  const header = headerValue(req, "x-idempotency-key");
  if (header !== undefined) {
    return HEADER_KEY.test(header) ? header : detailReply(400, 5009, "Malformed X-Idempotency-Key");
  }
  const id = body.clientRequestId;
  if (id === undefined || id === null) {
    return detailReply(400, 5010, "X-Idempotency-Key header or clientRequestId is required");
  }
  return typeof id === "string" && CLIENT_REQUEST_ID.test(id)
    ? id
    : detailReply(400, 5009, "Malformed clientRequestId");
}

/** Wrong JSON types: the 422 code 4220 with `data.errors`. */
function typeProblems(
  where: Array<string | number>,
  value: Record<string, unknown>,
  isItem: boolean,
): Problem[] {
  const problems: Problem[] = [];
  const at = (field: string, msg: string) => problems.push({ loc: [...where, field], msg });
  if (isItem && typeof value.receiveAddress !== "string") at("receiveAddress", "must be a string");
  if (isItem && !Number.isInteger(value.amount)) at("amount", "must be an integer");
  for (const name of BOOLEAN_OPTIONS) {
    if (value[name] !== undefined && typeof value[name] !== "boolean") at(name, "must be a boolean");
  }
  if (value.bandwidthAmount !== undefined && !Number.isInteger(value.bandwidthAmount)) {
    at("bandwidthAmount", "must be an integer");
  }
  if (value.bandwidthPeriod !== undefined && typeof value.bandwidthPeriod !== "string") {
    at("bandwidthPeriod", "must be a string");
  }
  return problems;
}

function structureProblems(body: Record<string, unknown>): Problem[] {
  const { items, defaults } = body;
  if (!Array.isArray(items)) return [{ loc: ["items"], msg: "must be an array" }];
  if (items.length > LIMITS.maxItems) return [{ loc: ["items"], msg: `at most ${LIMITS.maxItems} items` }];
  const problems: Problem[] = [];
  if (defaults !== undefined && !isRecord(defaults))
    problems.push({ loc: ["defaults"], msg: "must be an object" });
  if (isRecord(defaults)) problems.push(...typeProblems(["defaults"], defaults, false));
  items.forEach((item, i) => {
    if (!isRecord(item)) problems.push({ loc: ["items", i], msg: "must be an object" });
    else problems.push(...typeProblems(["items", i], item, true));
  });
  return problems;
}

/** Options of one item: its own value, else `defaults`, else the spec's default. */
function resolveOptions(item: Record<string, unknown>, defaults: Record<string, unknown>): ItemOptions {
  const pick = <T>(name: string, fallback: T): T => (item[name] ?? defaults[name] ?? fallback) as T;
  const bandwidthAmount = pick("bandwidthAmount", 400);
  return {
    bandwidth: pick("bandwidth", true),
    bandwidthAmount,
    bandwidthPeriod: pick("bandwidthPeriod", "1h"),
    check: pick("check", bandwidthAmount === 400),
    trx_send: pick("trx_send", false),
    activation: pick("activation", true),
  };
}

function fieldProblem(where: string, item: ValidItem): SandboxReply | undefined {
  if (!TRON_ADDRESS.test(item.receiveAddress)) return invalid(`${where}: invalid receiveAddress format`);
  if (item.amount < LIMITS.minEnergy || item.amount > LIMITS.maxEnergy) {
    return invalid(`${where}: amount must be between ${LIMITS.minEnergy} and ${LIMITS.maxEnergy}`);
  }
  if (item.options.bandwidthAmount !== 400 && item.options.bandwidthAmount !== 5000) {
    return invalid(`${where}: bandwidthAmount must be 400 or 5000`);
  }
  if (item.options.bandwidthPeriod !== "5m" && item.options.bandwidthPeriod !== "1h") {
    return invalid(`${where}: bandwidthPeriod must be 5m or 1h`);
  }
  return undefined;
}

/** Validates the body; the items with their resolved options, or the service's error reply. */
export function validateOrder(body: unknown): ValidItem[] | SandboxReply {
  if (!isRecord(body)) return invalid("Request body must be a JSON object");
  if (
    body.items === undefined ||
    body.items === null ||
    (Array.isArray(body.items) && body.items.length === 0)
  ) {
    return detailReply(400, 5005, "items is required and must not be empty");
  }
  const problems = structureProblems(body);
  if (problems.length > 0) {
    return detailReply(422, 4220, "Validation failed", { data: { errors: problems } });
  }
  const defaults = isRecord(body.defaults) ? body.defaults : {};
  const items = (body.items as Record<string, unknown>[]).map((item) => ({
    receiveAddress: item.receiveAddress as string,
    amount: item.amount as number,
    options: resolveOptions(item, defaults),
  }));
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const problem = fieldProblem(`items[${i}]`, item);
    if (problem) return problem;
    if (seen.has(item.receiveAddress))
      return detailReply(400, 5006, `Duplicate receiveAddress: ${item.receiveAddress}`);
    seen.add(item.receiveAddress);
  }
  const total = items.reduce((sum, item) => sum + item.amount, 0);
  if (total > LIMITS.maxTotal)
    return detailReply(400, 5012, `Total energy ${total} exceeds ${LIMITS.maxTotal}`);
  return items;
}
