import { createHash } from "node:crypto";
import { DEMO_ADDRESSES } from "./demo-addresses.js";

/** An entity as the version 2 order shows it (cluster, exposure and sanctioned entities). */
export interface RiskEntity {
  name: string;
  category: string;
  is_vasp: boolean;
  is_primary: boolean;
  is_after_sanction_date: boolean;
}

export interface RiskExposure {
  category: string;
  /** Decimal string 0..1. */
  share_fraction: string;
  direction: "source" | "destination";
  hops: number;
  is_screened_address: boolean;
  entities: RiskEntity[];
  /** Decimal string: the USD value behind the share. */
  usd: string;
}

interface RiskRule {
  name: string;
  type: string;
  level: string;
  /** Decimal string on the 0..10 base scale. */
  score: string;
  share_fraction: string;
  category: string;
  proximity: "direct" | "indirect";
  direction: "source" | "destination";
}

/**
 * A provider's finding with scores on a base 0..10 scale; the views put them on the provider's own
 * scale (`scaleScore`), as a provider with a 0..100 scale would report them. Decimal strings throughout.
 */
export interface RiskResult {
  score: string | null;
  sourceScore: string | null;
  destinationScore: string | null;
  /** The address itself is a sanctioned entity. */
  selfSanctioned: boolean;
  exposure: RiskExposure[];
  rules: RiskRule[];
  /** Entities of the address's own cluster. */
  entities: RiskEntity[];
  inflowUsd: string | null;
  outflowUsd: string | null;
}

interface CategoryInfo {
  risk: number; // base-scale score of a rule triggered by this category, hundredths
  vasp: boolean;
  names: string[];
}

const CATEGORIES: Record<string, CategoryInfo> = {
  exchange: { risk: 0, vasp: true, names: ["Exchange Alpha", "Exchange Beta", "Exchange Gamma"] },
  defi: { risk: 0, vasp: false, names: ["Lending Pool One", "Swap Router Two"] },
  p2p_exchange: { risk: 250, vasp: true, names: ["P2P Desk North"] },
  gambling: { risk: 450, vasp: false, names: ["Casino Royale Online", "Dice Hub"] },
  mixer: { risk: 800, vasp: false, names: ["Mixer Omega", "Tumbler Sigma"] },
  scam: { risk: 850, vasp: false, names: ["Fake Airdrop Ring", "Investment Scam 42"] },
  sanctions: {
    risk: 1000,
    vasp: false,
    names: ["Sanctioned Entity SDN-7", "Sanctioned Exchange Garantex-like"],
  },
};

/** Exposure categories by band of the base score in hundredths. */
function categoriesFor(hundredths: number | null): string[] {
  if (hundredths === null) return ["exchange"];
  if (hundredths >= 900) return ["sanctions", "mixer", "exchange"];
  if (hundredths >= 700) return ["mixer", "scam", "exchange"];
  if (hundredths >= 300) return ["gambling", "p2p_exchange", "exchange"];
  return ["exchange", "defi"];
}

/** Hundredths → "d.dd". */
const hundredthsToDecimal = (h: number): string =>
  `${Math.floor(h / 100)}.${String(h % 100).padStart(2, "0")}`;
/** Thousandths → "0.ddd" (or "1.000"). */
const thousandthsToDecimal = (t: number): string =>
  `${Math.floor(t / 1000)}.${String(t % 1000).padStart(3, "0")}`;

/** Splits 1000 thousandths into `n` positive shares, derived from the digest. */
function shares(n: number, digest: Buffer): number[] {
  if (n === 1) return [1000];
  const first = 450 + ((digest[3] ?? 0) % 300);
  if (n === 2) return [first, 1000 - first];
  const second = Math.max(1, Math.floor(((1000 - first) * (40 + ((digest[4] ?? 0) % 40))) / 100));
  return [first, second, 1000 - first - second];
}

function entityFor(category: string, digest: Buffer, index: number, primary = false): RiskEntity {
  const info = CATEGORIES[category] ?? { risk: 0, vasp: false, names: [category] };
  return {
    name: info.names[(digest[8 + index] ?? 0) % info.names.length] ?? category,
    category,
    is_vasp: info.vasp,
    is_primary: primary,
    is_after_sanction_date: category === "sanctions",
  };
}

/** The score in hundredths (0..1000), skewed towards low risk; null (no triggers) for about 10%. */
function baseHundredths(digest: Buffer): number | null {
  if ((digest[0] ?? 0) < 26) return null;
  const v = ((digest[1] ?? 0) << 8) | (digest[2] ?? 0);
  return Math.floor((v * v * 1000) / (65535 * 65535));
}

/** The USD value (2 decimals) of a share in thousandths of a total in cents. */
function usdShare(totalCents: number, thousandths: number): string {
  const cents = Math.floor((totalCents * thousandths) / 1000);
  return hundredthsToDecimal(cents);
}

function build(hundredths: number | null, digest: Buffer, selfSanctioned: boolean): RiskResult {
  const categories = categoriesFor(hundredths);
  const split = shares(categories.length, digest);
  const inflowCents = (((digest[5] ?? 0) << 8) | (digest[6] ?? 0)) * 3700 + (digest[7] ?? 0);
  const outflowCents = Math.floor((inflowCents * 4) / 5);
  const exposure: RiskExposure[] = categories.map((category, i) => ({
    category,
    share_fraction: thousandthsToDecimal(split[i] ?? 0),
    direction: i === categories.length - 1 && i > 0 ? "destination" : "source",
    hops: (digest[12 + i] ?? 0) % 4,
    is_screened_address: false,
    entities: [entityFor(category, digest, i)],
    usd: usdShare(inflowCents, split[i] ?? 0),
  }));
  const rules: RiskRule[] =
    hundredths === null
      ? []
      : exposure
          .filter((e) => (CATEGORIES[e.category]?.risk ?? 0) > 0)
          .map((e) => ruleFor(e, CATEGORIES[e.category]?.risk ?? 0));
  const entities = selfSanctioned
    ? [entityFor("sanctions", digest, 0, true)]
    : (digest[9] ?? 0) < 90
      ? [entityFor("exchange", digest, 1, true)]
      : [];
  const score = hundredths === null ? null : hundredthsToDecimal(hundredths);
  return {
    score,
    sourceScore: score,
    destinationScore: hundredths === null ? null : hundredthsToDecimal(Math.floor(hundredths / 2)),
    selfSanctioned,
    exposure,
    rules,
    entities,
    inflowUsd: hundredthsToDecimal(inflowCents),
    outflowUsd: hundredthsToDecimal(outflowCents),
  };
}

function ruleFor(e: RiskExposure, risk: number): RiskRule {
  return {
    name: `${e.category.replace(/_/g, " ")} exposure`,
    type: "exposure",
    level: risk >= 700 ? "high" : risk >= 300 ? "medium" : "low",
    score: hundredthsToDecimal(risk),
    share_fraction: e.share_fraction,
    category: e.category,
    proximity: e.hops === 0 ? "direct" : "indirect",
    direction: e.direction,
  };
}

const FIXED: Record<string, { hundredths: number | null; self: boolean }> = {
  [DEMO_ADDRESSES.sanctioned]: { hundredths: 980, self: true },
  [DEMO_ADDRESSES.highRisk]: { hundredths: 840, self: false },
  [DEMO_ADDRESSES.lowRisk]: { hundredths: 50, self: false },
};

/** The deterministic finding for an address: the same address always gets the same result. */
export function scoreAddress(address: string): RiskResult {
  const digest = createHash("sha256").update(address).digest();
  const fixed = FIXED[address];
  return build(fixed ? fixed.hundredths : baseHundredths(digest), digest, fixed?.self ?? false);
}

/** The spec's bands on the 0..10 scale: below 3 low, below 7 medium, else high; null → no level. */
export function levelOf(baseScore: string | null): "low" | "medium" | "high" | null {
  if (baseScore === null) return null;
  const value = Number(baseScore);
  return value < 3 ? "low" : value < 7 ? "medium" : "high";
}

/** True when the finding shows exposure to sanctioned entities (v1 `is_sanctioned`). */
export const hasSanctionsExposure = (result: RiskResult): boolean =>
  result.selfSanctioned || result.exposure.some((e) => e.category === "sanctions");
