import type { Block, DiskFile, FileAttachment, ImageAttachment, Reply } from "./reply.js";

/**
 * A `Reply` as it travels in a job: JSON, so file bytes are base64 (a Uint8Array would come back
 * from JSON as an object of numbered keys).
 */
type EncodedFile = Omit<Extract<FileAttachment, { bytes: Uint8Array }>, "bytes"> & { base64: string };
type EncodedImage = Omit<ImageAttachment, "png"> & { base64: string };
type EncodedBlock =
  | Exclude<Block, { type: "file" } | { type: "image" }>
  | { type: "file"; file: EncodedFile | DiskFile }
  | { type: "image"; image: EncodedImage };
export type EncodedReply = Omit<Reply, "blocks"> & { blocks: EncodedBlock[] };

export function encodeReply(reply: Reply): EncodedReply {
  return { ...reply, blocks: reply.blocks.map(encodeBlock) };
}

export function decodeReply(encoded: EncodedReply): Reply {
  return { ...encoded, blocks: encoded.blocks.map(decodeBlock) };
}

const toBase64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
const fromBase64 = (base64: string): Uint8Array => new Uint8Array(Buffer.from(base64, "base64"));

function encodeBlock(block: Block): EncodedBlock {
  if (block.type === "image") {
    const { png, ...rest } = block.image;
    return { type: "image", image: { ...rest, base64: toBase64(png) } };
  }
  if (block.type !== "file") return block;
  // A file on this instance's disk travels as its path (it is posted by the instance that wrote it).
  if (block.file.bytes === undefined) return { type: "file", file: block.file };
  const { bytes, ...rest } = block.file;
  return { type: "file", file: { ...rest, base64: toBase64(bytes) } };
}

function decodeBlock(block: EncodedBlock): Block {
  if (block.type === "image") {
    const { base64, ...rest } = block.image;
    return { type: "image", image: { ...rest, png: fromBase64(base64) } };
  }
  if (block.type !== "file") return block;
  if (!("base64" in block.file)) return { type: "file", file: block.file };
  const { base64, ...rest } = block.file;
  return { type: "file", file: { ...rest, bytes: fromBase64(base64) } };
}
