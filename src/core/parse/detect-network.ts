import { hex } from "@scure/base";
import {
  bech32Prefix,
  decodeBase58,
  decodeBase58Check,
  decodeXrpBase58Check,
  isAlgorandAddress,
  isEip55Valid,
  isTonFriendlyAddress,
  ss58Prefix,
} from "./address-codecs.js";
import { EVM_TICKERS, type NetworkTicker } from "./network-tickers.js";
import { isTronAddress } from "./tron-address.js";

export type NetworkDetection =
  | { kind: "single"; network: NetworkTicker }
  | { kind: "ambiguous"; candidates: NetworkTicker[] }
  | { kind: "unknown" };

interface Rule {
  readonly tickers: readonly NetworkTicker[];
  readonly matches: (address: string) => boolean;
}

/** Base58check with a 1-byte version (Bitcoin family): the version, when the payload is 21 bytes. */
function version1(address: string): number | undefined {
  const payload = decodeBase58Check(address);
  return payload?.length === 21 ? payload[0] : undefined;
}

/** Base58check with a 2-byte version (Zcash, Horizen transparent addresses). */
function version2(address: string): number | undefined {
  const payload = decodeBase58Check(address);
  return payload?.length === 22 ? ((payload[0] ?? 0) << 8) | (payload[1] ?? 0) : undefined;
}

const hasVersion = (address: string, versions: readonly number[], decode = version1): boolean => {
  const version = decode(address);
  return version !== undefined && versions.includes(version);
};

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const isEvmAddress = (address: string): boolean =>
  EVM_ADDRESS.test(address) && isEip55Valid(address.slice(2));
export const looksLikeEvmAddress = (address: string): boolean => EVM_ADDRESS.test(address);

/** Tezos implicit accounts tz1/tz2/tz3 and contracts KT1: 3-byte prefix + 20-byte hash. */
const TEZOS_PREFIXES = ["06a19f", "06a1a1", "06a1a4", "025a79"];
function isTezosAddress(address: string): boolean {
  const payload = decodeBase58Check(address);
  if (payload?.length !== 23) return false;
  return TEZOS_PREFIXES.includes(hex.encode(payload.slice(0, 3)));
}

const withBech32Prefix = (prefixes: readonly string[]) => (address: string) =>
  prefixes.includes(bech32Prefix(address) ?? "");

const CASHADDR = /^(bitcoincash:)?[qp][qpzry9x8gf2tvdw0s3jn54khce6mua7l]{41}$/;
/** Bitcoin Cash cashaddr, with or without its `bitcoincash:` prefix; one case throughout, like bech32. */
const isCashAddr = (a: string): boolean =>
  (a === a.toLowerCase() || a === a.toUpperCase()) && CASHADDR.test(a.toLowerCase());
const NEAR_NAME = /^(?=.{2,64}$)([a-z\d]+[-_])*[a-z\d]+(\.([a-z\d]+[-_])*[a-z\d]+)*\.near$/;

/**
 * In order; the first rule that matches decides. Checksummed formats come first, Solana (any
 * 32-byte base58 string, no checksum) last, so it only wins when nothing else fits.
 */
const RULES: readonly Rule[] = [
  { tickers: ["trx"], matches: isTronAddress },
  { tickers: EVM_TICKERS, matches: isEvmAddress },
  { tickers: ["xdc"], matches: (a) => /^xdc[0-9a-fA-F]{40}$/.test(a) },
  { tickers: ["apt", "sui", "strk"], matches: (a) => /^0x[0-9a-fA-F]{64}$/.test(a) },
  // Starknet addresses are field elements often written without their leading zeros.
  { tickers: ["strk"], matches: (a) => /^0x[0-9a-fA-F]{50,63}$/.test(a) },
  // Legacy 1…/3… also fit Bitcoin Cash's old format; BCH is asked for with its cashaddr form or by name.
  { tickers: ["btc"], matches: (a) => hasVersion(a, [0x00, 0x05]) || bech32Prefix(a) === "bc" },
  { tickers: ["ltc"], matches: (a) => hasVersion(a, [0x30, 0x32]) || bech32Prefix(a) === "ltc" },
  { tickers: ["doge"], matches: (a) => hasVersion(a, [0x1e, 0x16]) },
  { tickers: ["bch"], matches: isCashAddr },
  { tickers: ["zec"], matches: (a) => hasVersion(a, [0x1cb8, 0x1cbd], version2) || bech32Prefix(a) === "zs" },
  { tickers: ["zen"], matches: (a) => hasVersion(a, [0x2089, 0x2096], version2) },
  { tickers: ["xrp"], matches: (a) => a.startsWith("r") && decodeXrpBase58Check(a)?.length === 21 },
  { tickers: ["xlm"], matches: (a) => /^G[A-Z2-7]{55}$/.test(a) },
  { tickers: ["algo"], matches: isAlgorandAddress },
  { tickers: ["ton"], matches: (a) => isTonFriendlyAddress(a) || /^(0|-1):[0-9a-fA-F]{64}$/.test(a) },
  { tickers: ["xtz"], matches: isTezosAddress },
  { tickers: ["dot"], matches: (a) => ss58Prefix(a) === 0 },
  // Bittensor uses the generic Substrate prefix 42 (addresses start with 5).
  { tickers: ["tao"], matches: (a) => ss58Prefix(a) === 42 },
  {
    tickers: ["ada"],
    matches: (a) => bech32Prefix(a) === "addr" || /^(Ae2|DdzFF)[1-9A-HJ-NP-Za-km-z]{50,}$/.test(a),
  },
  { tickers: ["atom"], matches: withBech32Prefix(["cosmos"]) },
  { tickers: ["dydx"], matches: withBech32Prefix(["dydx"]) },
  { tickers: ["inj"], matches: withBech32Prefix(["inj"]) },
  { tickers: ["sei"], matches: withBech32Prefix(["sei"]) },
  { tickers: ["zil"], matches: withBech32Prefix(["zil"]) },
  { tickers: ["bnb"], matches: withBech32Prefix(["bnb"]) },
  { tickers: ["cro"], matches: withBech32Prefix(["cro"]) },
  { tickers: ["avax"], matches: (a) => /^[XP]-avax1/.test(a) && bech32Prefix(a.slice(2)) === "avax" },
  {
    tickers: ["fil"],
    matches: (a) => /^f(0\d{1,20}|[12][a-z2-7]{39}|3[a-z2-7]{84}|410f[a-z2-7]{20,})$/.test(a),
  },
  { tickers: ["hbar"], matches: (a) => /^0\.0\.\d{1,19}(-[a-z]{5})?$/.test(a) },
  { tickers: ["icp"], matches: (a) => /^([a-z2-7]{5}-){4,}[a-z2-7]{1,5}$/.test(a) },
  // 64 hex digits: an ICP account identifier or a NEAR implicit account.
  { tickers: ["icp", "near"], matches: (a) => /^[0-9a-f]{64}$/.test(a) },
  { tickers: ["near"], matches: (a) => NEAR_NAME.test(a) },
  { tickers: ["sol"], matches: (a) => a.length >= 32 && a.length <= 44 && decodeBase58(a)?.length === 32 },
];

/** The networks an address can belong to, judged by its format alone. */
export function detectNetworks(address: string): NetworkDetection {
  const text = address.trim();
  const rule = RULES.find((r) => r.matches(text));
  if (rule === undefined) return { kind: "unknown" };
  const [first, ...rest] = rule.tickers;
  if (first !== undefined && rest.length === 0) return { kind: "single", network: first };
  return { kind: "ambiguous", candidates: [...rule.tickers] };
}
