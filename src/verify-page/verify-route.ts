import type { IncomingMessage, ServerResponse } from "node:http";
import { type CoreDeps, type Logger, verifyAnyCode } from "../core/index.js";
import type { HttpRoute } from "../http/server.js";
import { NoFreeSlotError, type RateLimiter } from "../store/rate-limit.js";
import { MAX_FILE_MB, type PageState, renderPage, SECURITY_HEADERS } from "./page.js";
import { readVerifyForm } from "./verify-form.js";

/**
 * `GET /verify`, `GET /verify?code=…` and `POST /verify` (CONTRACT.md, "Verification page"): for
 * anyone, no login. Every answer is the page with its security headers; an unknown or malformed
 * input is the "not genuine" page (200), a store that does not answer a "try again later" page
 * (503), never an error page or a stack trace. More than 30 requests a minute from one address
 * (the connection's peer, so a client cannot name another's address) get 429.
 */
export interface VerifyPageOptions {
  deps: Pick<CoreDeps, "store" | "settings">;
  /** One bucket per client address (the windows come with the limiter). */
  limiter: RateLimiter<string>;
  logger: Logger;
}

export function verifyRoutes(options: VerifyPageOptions): HttpRoute[] {
  return [
    {
      method: "GET",
      path: "/verify",
      handler: (req, res) => answer(options, req, res, () => fromQuery(options, req)),
    },
    {
      method: "POST",
      path: "/verify",
      handler: (req, res) => answer(options, req, res, () => fromForm(options, req)),
    },
  ];
}

type Answer = { status: number; state: PageState; headers?: Record<string, string> };

async function answer(
  options: VerifyPageOptions,
  req: IncomingMessage,
  res: ServerResponse,
  build: () => Promise<Answer>,
): Promise<void> {
  let result: Answer;
  try {
    result = (await limited(options, req)) ?? (await build());
  } catch (error) {
    options.logger.warn({ err: error }, "verification page could not check a code");
    result = {
      status: 503,
      state: {
        notice: { title: "Unavailable", line: "Codes cannot be checked right now. Try again in a minute." },
      },
    };
  }
  // A body not read (a POST over its limit of requests): not waited for, the connection closes after.
  if (!req.complete && !req.destroyed) {
    res.setHeader("connection", "close");
    req.resume();
  }
  res.writeHead(result.status, {
    "content-type": "text/html; charset=utf-8",
    ...SECURITY_HEADERS,
    ...result.headers,
  });
  res.end(renderPage(result.state));
}

async function limited(options: VerifyPageOptions, req: IncomingMessage): Promise<Answer | undefined> {
  const address = req.socket.remoteAddress ?? "unknown";
  try {
    await options.limiter.acquire([address], { maxWaitMs: 0 });
    return undefined;
  } catch (error) {
    if (!(error instanceof NoFreeSlotError)) throw error;
    const seconds = Math.max(1, Math.ceil(error.waitMs / 1000));
    return {
      status: 429,
      headers: { "retry-after": String(seconds) },
      state: {
        notice: {
          title: "Too many requests",
          line: `At most 30 checks a minute from one address. Try again in ${seconds} s.`,
        },
      },
    };
  }
}

async function fromQuery(options: VerifyPageOptions, req: IncomingMessage): Promise<Answer> {
  let code: string | null = null;
  try {
    code = new URL(req.url ?? "/", "http://verify").searchParams.get("code");
  } catch {
    code = "";
  }
  if (code === null || code.trim() === "") return { status: 200, state: {} };
  return { status: 200, state: { code, verdict: await verifyAnyCode(options.deps, code) } };
}

const MALFORMED = "the form could not be read (send a code, and optionally a file, as multipart/form-data)";

async function fromForm(options: VerifyPageOptions, req: IncomingMessage): Promise<Answer> {
  const form = await readVerifyForm(req, options.deps);
  if (form.kind === "checked")
    return {
      status: 200,
      state: { code: form.code, verdict: form.verdict, ...(form.file && { file: form.file }) },
    };
  if (form.kind === "malformed")
    return {
      status: 200,
      state: {
        ...(form.code !== undefined && { code: form.code }),
        verdict: { kind: "unknown", genuine: false, why: MALFORMED },
      },
    };
  return {
    status: 413,
    ...(form.cutConnection && { headers: { connection: "close" } }),
    state: {
      ...(form.code !== undefined && { code: form.code }),
      notice: {
        title: "File too large",
        line: `The file may be at most ${MAX_FILE_MB} MB. Nothing was checked.`,
      },
    },
  };
}
