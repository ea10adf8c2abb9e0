/**
 * One HTTP answer from the service, before decoding. Its own module so the error decoder
 * (decode-error.ts) can name it without importing the transport, which imports the decoder.
 */
export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
