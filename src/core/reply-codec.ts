import type { Block, FileAttachment, Reply } from "./reply.js";

/**
 * A `Reply` as it travels in a job: JSON, so file bytes are base64 (a Uint8Array would come back
 * from JSON as an object of numbered keys).
 */
type EncodedFile = Omit<FileAttachment, "bytes"> & { base64: string };
type EncodedBlock = Exclude<Block, { type: "file" }> | { type: "file"; file: EncodedFile };
export type EncodedReply = Omit<Reply, "blocks"> & { blocks: EncodedBlock[] };

export function encodeReply(reply: Reply): EncodedReply {
  return { ...reply, blocks: reply.blocks.map(encodeBlock) };
}

export function decodeReply(encoded: EncodedReply): Reply {
  return { ...encoded, blocks: encoded.blocks.map(decodeBlock) };
}

function encodeBlock(block: Block): EncodedBlock {
  if (block.type !== "file") return block;
  const { bytes, ...rest } = block.file;
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return { type: "file", file: { ...rest, base64 } };
}

function decodeBlock(block: EncodedBlock): Block {
  if (block.type !== "file") return block;
  const { base64, ...rest } = block.file;
  return { type: "file", file: { ...rest, bytes: new Uint8Array(Buffer.from(base64, "base64")) } };
}
