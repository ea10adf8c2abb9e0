/**
 * What every parser returns. `error` is one short line for a person on call: what is wrong and
 * what is accepted. Parsers never throw for bad input.
 */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export type ParseFailure = { ok: false; error: string };

export const ok = <T>(value: T): ParseResult<T> => ({ ok: true, value });

export const fail = (error: string): ParseFailure => ({ ok: false, error });
