import { blake2b } from "@noble/hashes/blake2.js";
import { sha256, sha512_256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  base32nopad,
  base58,
  base58xrp,
  base64urlnopad,
  bech32,
  bech32m,
  createBase58check,
} from "@scure/base";

/**
 * Checksum-verifying decoders for the address formats the bot recognises. Each returns undefined
 * instead of throwing, because "not this format" is an ordinary answer while detecting a network.
 */

const base58check = createBase58check(sha256);
const utf8 = new TextEncoder();

/** Bitcoin-alphabet base58check (TRON, Bitcoin, Litecoin, Dogecoin, Zcash, Horizen, Tezos): the payload. */
export function decodeBase58Check(text: string): Uint8Array | undefined {
  try {
    return base58check.decode(text);
  } catch {
    return undefined;
  }
}

/** Plain base58 (Solana public keys carry no checksum). */
export function decodeBase58(text: string): Uint8Array | undefined {
  try {
    return base58.decode(text);
  } catch {
    return undefined;
  }
}

/** XRP Ledger classic address: its own base58 alphabet, same double-SHA256 checksum. */
export function decodeXrpBase58Check(text: string): Uint8Array | undefined {
  let bytes: Uint8Array;
  try {
    bytes = base58xrp.decode(text);
  } catch {
    return undefined;
  }
  if (bytes.length < 5) return undefined;
  const payload = bytes.slice(0, -4);
  const checksum = sha256(sha256(payload)).slice(0, 4);
  return sameBytes(checksum, bytes.slice(-4)) ? payload : undefined;
}

/** The human-readable prefix of a valid bech32 or bech32m string (e.g. "bc", "cosmos"), lower-cased. */
export function bech32Prefix(text: string): string | undefined {
  // Cardano base addresses are 103 characters: above BIP-173's 90, hence the explicit limit.
  const decoded = bech32.decodeUnsafe(text, 200) ?? bech32m.decodeUnsafe(text, 200);
  return decoded?.prefix.toLowerCase();
}

/**
 * The network prefix of an SS58 address (Polkadot 0, generic Substrate 42) when its blake2b
 * checksum holds. Only the one-byte prefixes and 32-byte account ids that the listed chains use.
 */
export function ss58Prefix(text: string): number | undefined {
  const bytes = decodeBase58(text);
  if (bytes === undefined || bytes.length !== 35) return undefined;
  const body = bytes.slice(0, 33);
  const hash = blake2b(concatBytes(utf8.encode("SS58PRE"), body), { dkLen: 64 });
  const prefix = bytes[0] ?? 255;
  return prefix < 64 && hash[0] === bytes[33] && hash[1] === bytes[34] ? prefix : undefined;
}

/** Algorand: 58 base32 characters, a 32-byte key followed by the last 4 bytes of its SHA-512/256. */
export function isAlgorandAddress(text: string): boolean {
  if (!/^[A-Z2-7]{58}$/.test(text)) return false;
  try {
    const bytes = base32nopad.decode(text);
    return bytes.length === 36 && sameBytes(sha512_256(bytes.slice(0, 32)).slice(-4), bytes.slice(32));
  } catch {
    return false;
  }
}

/** TON flag bytes of mainnet user-friendly addresses: bounceable (EQ…) and non-bounceable (UQ…). */
const TON_MAINNET_FLAGS = [0x11, 0x51];

/**
 * TON user-friendly address: 48 base64 characters (url-safe or standard) holding flags, workchain
 * (0 or -1), a 32-byte account id and a CRC16-XMODEM of those 34 bytes.
 */
export function isTonFriendlyAddress(text: string): boolean {
  if (!/^[A-Za-z0-9_+/-]{48}$/.test(text)) return false;
  let bytes: Uint8Array;
  try {
    bytes = base64urlnopad.decode(text.replaceAll("+", "-").replaceAll("/", "_"));
  } catch {
    return false;
  }
  const flagsOk = TON_MAINNET_FLAGS.includes(bytes[0] ?? 0) && (bytes[1] === 0x00 || bytes[1] === 0xff);
  return flagsOk && crc16Xmodem(bytes.slice(0, 34)) === (((bytes[34] ?? 0) << 8) | (bytes[35] ?? 0));
}

function crc16Xmodem(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * EIP-55: a mixed-case hex address encodes a checksum in its letter case. All-lower and all-upper
 * carry none and are accepted as they are.
 */
export function isEip55Valid(hex40: string): boolean {
  if (hex40 === hex40.toLowerCase() || hex40 === hex40.toUpperCase()) return true;
  const hash = keccak_256(utf8.encode(hex40.toLowerCase()));
  for (let i = 0; i < 40; i++) {
    const char = hex40[i] ?? "";
    if (!/[a-f]/i.test(char)) continue;
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    if (nibble >= 8 !== (char === char.toUpperCase())) return false;
  }
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
