import type { EncodedReply } from "../core/index.js";
import { type ConversationRef, conversationKey } from "../core/index.js";
import type { Appended, Store } from "../store/store.js";

/**
 * One conversation's mailbox in the store, shared by every instance: notices numbered in the
 * order they were posted, a watermark of what was sent, and a lead mark naming the one job that
 * sends for the conversation. Only the lead holder moves the watermark, so nothing is sent twice
 * by two instances; the notices and marks live in Redis, so a restart loses none of them.
 *
 * A notice, its number and its dedup mark are written in one atomic step (`Store.appendOnce`), so
 * a number at or below the counter without a notice is a hole (lost to a failover, or expired).
 * The sender tombstones each hole it passes (SET NX): after a failover the new master's counter
 * may be behind what the sender read, and an append that takes such a number then finds it
 * taken and moves on, instead of landing where the sender has already been.
 */
const TOMBSTONE = "-";
/**
 * Refreshed on every run of the lead job (a wait for the next slot is seconds, a send ≤ 30 s),
 * and stretched over a retry's backoff; short, so a sender that died frees the lead soon.
 */
const LEAD_TTL_MS = 60_000;
/** Read in one round trip: a slot's whole backlog (100/s into one channel) in the common case. */
const READ_CHUNK = 256;

export interface Notice {
  seq: number;
  reply: EncodedReply;
}

export interface BoxState {
  /** The last number handed out. */
  last: number;
  /** Every notice up to this number was sent (or dropped). */
  sent: number;
}

/**
 * The mailbox a notice goes to: one per conversation and place in it (a Slack thread, a Telegram
 * forum topic, the Telegram message its notices answer), so a batch is always sent to one place.
 */
export const mailboxKey = (c: ConversationRef): string =>
  c.replyTo ? `${conversationKey(c)}:re:${c.replyTo}` : conversationKey(c);

/**
 * A mailbox's lane. `low` holds what may wait behind everything else of the place (agents'
 * requests): the one lead of the place sends the `first` lane's notices before any of it.
 */
export type Lane = "first" | "low";

export function notifyBox(
  store: Store,
  conversation: ConversationRef,
  noticeTtlMs: number,
  lane: Lane = "first",
) {
  const place = `notify:box:${mailboxKey(conversation)}`;
  const base = lane === "first" ? place : `${place}:low`;
  const seqKey = `${base}:seq`;
  const sentKey = `${base}:sent`;
  const leadKey = `${place}:lead`;
  const noticeKey = (seq: number) => `${base}:n:${seq}`;
  const num = (value: string | null) => (value === null ? 0 : Number(value));

  /** The notice for number `seq` from its stored `value`, or null for a hole (tombstoned now or before). */
  async function noticeOf(seq: number, stored: string | null): Promise<Notice | null> {
    let value = stored;
    if (value === null) {
      if (await store.setIfNotExists(noticeKey(seq), TOMBSTONE, noticeTtlMs)) return null;
      value = await store.get(noticeKey(seq));
    }
    if (value === null || value === TOMBSTONE) return null;
    try {
      return { seq, reply: JSON.parse(value) as EncodedReply };
    } catch {
      return null;
    }
  }

  /** The notices of these numbers, read in one round trip (plus one per hole). */
  async function readAll(seqs: readonly number[]): Promise<(Notice | null)[]> {
    const values = await store.getMany(seqs.map(noticeKey));
    return Promise.all(seqs.map((seq, i) => noticeOf(seq, values[i] ?? null)));
  }

  return {
    lane,
    /**
     * Stores a notice under the next number, once per `mark` (a dedup key's mark): answers its
     * number, and whether it was stored now (false: the number the mark's first post got).
     */
    append: (reply: EncodedReply, mark?: string): Promise<Appended> =>
      store.appendOnce(
        { counter: seqKey, floor: sentKey, itemPrefix: `${base}:n:`, ...(mark !== undefined && { mark }) },
        JSON.stringify(reply),
        noticeTtlMs,
      ),

    async state(): Promise<BoxState> {
      const [last, sent] = await Promise.all([store.get(seqKey), store.get(sentKey)]);
      return { last: num(last), sent: num(sent) };
    },

    /** Takes the lead when nobody holds it. */
    tryLead: (jobId: string) => store.setIfNotExists(leadKey, jobId, LEAD_TTL_MS),
    /** The job id that holds the lead, or null. */
    leader: () => store.get(leadKey),
    holds: async (jobId: string) => (await store.get(leadKey)) === jobId,
    refresh: (jobId: string, ttlMs = LEAD_TTL_MS) => store.set(leadKey, jobId, Math.max(ttlMs, LEAD_TTL_MS)),
    async release(jobId: string): Promise<void> {
      if ((await store.get(leadKey)) === jobId) await store.del(leadKey);
    },

    /**
     * Notices after `state.sent`, oldest first, while `take` accepts them (holes are skipped and
     * counted in `end`). `end` is the number the watermark moves to once they are sent.
     */
    async gather(
      state: BoxState,
      take: (notice: Notice, taken: readonly Notice[]) => boolean,
    ): Promise<{ notices: Notice[]; end: number }> {
      const notices: Notice[] = [];
      let end = state.sent;
      for (let from = state.sent + 1; from <= state.last; from += READ_CHUNK) {
        const seqs = Array.from({ length: Math.min(READ_CHUNK, state.last - from + 1) }, (_, i) => from + i);
        const chunk = await readAll(seqs);
        for (const [i, notice] of chunk.entries()) {
          if (notice !== null && !take(notice, notices)) return { notices, end };
          if (notice !== null) notices.push(notice);
          end = seqs[i]!;
        }
      }
      return { notices, end };
    },

    /** Everything up to `end` is sent: move the watermark, free the notices. */
    async advance(from: number, end: number): Promise<void> {
      await store.set(sentKey, String(end));
      const seqs = Array.from({ length: Math.max(0, end - from) }, (_, i) => from + 1 + i);
      await Promise.all(seqs.map((seq) => store.del(noticeKey(seq))));
    },
  };
}

export type NotifyBox = ReturnType<typeof notifyBox>;
